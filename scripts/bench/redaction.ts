/**
 * Secret redaction throughput on transcript-like text, beside a plain scan and a UTF-8 copy
 * of the same messages: every hook payload and every transcript line of a backfill passes
 * through `redactString`, so its MB/s bounds ingestion.
 *
 * The messages mix what agents' transcripts hold: file reads and edits (this repository's
 * own sources, cut into message-sized pieces), prose (a Zipf vocabulary), shell commands and
 * their output, and, in one message of 200, a secret.
 */
import { join } from "node:path";
import {
  findSecretSpans,
  redactionDetectors,
  redactString,
} from "../../src/agent/redact/redact.ts";
import { AnchorIndex } from "../../src/agent/redact/redact_prefilter.ts";
import { prng, ZipfVocabulary } from "../lib/claude_corpus.ts";
import { median, printTable } from "./stats.ts";

const root = new URL("../..", import.meta.url).pathname;

async function sourceTexts(): Promise<string[]> {
  const texts: string[] = [];
  async function visit(path: string): Promise<void> {
    const info = await Deno.stat(path);
    if (info.isDirectory) {
      for await (const entry of Deno.readDir(path)) await visit(join(path, entry.name));
    } else if (/\.(ts|md|js|css|html)$/.test(path) && !/redact[^/]*$/.test(path)) {
      texts.push(await Deno.readTextFile(path));
    }
  }
  for (const name of ["src", "tests", "scripts", "README.md"]) await visit(join(root, name));
  return texts;
}

function secretLine(random: () => number): string {
  const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const chars = (n: number) =>
    Array.from({ length: n }, () => alnum[Math.floor(random() * alnum.length)]).join("");
  const lines = [
    `export OPENAI_API_KEY=sk-proj-${chars(64)}`,
    `curl -H "Authorization: Bearer ${chars(40)}" https://api.example.net/v1`,
    `DATABASE_URL=postgres://app:${chars(16)}@db:5432/app`,
    `git remote set-url origin https://x-access-token:ghp_${chars(36)}@github.com/o/r.git`,
    `password: ${chars(12)}`,
  ];
  return lines[Math.floor(random() * lines.length)];
}

/** Builds about `targetMb` of messages. */
async function transcriptMessages(targetMb: number): Promise<string[]> {
  const random = prng(7);
  const vocabulary = new ZipfVocabulary(50_000, random);
  const sources = await sourceTexts();
  const messages: string[] = [];
  let size = 0;
  while (size < targetMb * 1e6) {
    const roll = random();
    let message: string;
    if (roll < 0.45) {
      const text = sources[Math.floor(random() * sources.length)];
      const length = 500 + Math.floor(random() * 3500);
      const start = Math.floor(random() * Math.max(1, text.length - length));
      message = text.slice(start, start + length);
    } else if (roll < 0.85) {
      message = vocabulary.sentence(20 + Math.floor(random() * 120));
    } else {
      message = `$ npm test -- --filter ${vocabulary.word()}\n` +
        Array.from(
          { length: 5 + Math.floor(random() * 20) },
          () => `ok ${vocabulary.word()} ${vocabulary.word()} (${Math.floor(random() * 90)} ms)`,
        ).join(
          "\n",
        );
    }
    if (messages.length % 200 === 199) message += `\n${secretLine(random)}\n`;
    messages.push(message);
    size += message.length;
  }
  return messages;
}

function throughput(bytes: number, run: () => void): number {
  const seconds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    run();
    seconds.push((performance.now() - started) / 1000);
  }
  return bytes / 1e6 / median(seconds);
}

/** Prints redaction throughput beside a scan and a copy of the same text. */
export async function benchRedaction(): Promise<void> {
  const messages = await transcriptMessages(Number(Deno.env.get("VANTAGE_BENCH_REDACT_MB") ?? 40));
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const message of messages) bytes += encoder.encode(message).length;
  const clean = messages.filter((message) => findSecretSpans(message).length === 0);
  let cleanBytes = 0;
  for (const message of clean) cleanBytes += encoder.encode(message).length;
  const prefilter = new AnchorIndex(redactionDetectors().map((d) => [d, d.anchors] as const));
  let sink = 0;
  let gated = 0;
  for (const message of messages) if (prefilter.scan(message) !== null) gated++;
  const rows: string[][] = [["run", "MB/s"]];
  rows.push([
    "indexOf scan of each message (reference)",
    throughput(bytes, () => {
      for (const message of messages) sink += message.indexOf("\u0000");
    }).toFixed(0),
  ]);
  rows.push([
    "UTF-8 copy of each message (reference)",
    throughput(bytes, () => {
      for (const message of messages) sink += encoder.encode(message).length;
    }).toFixed(0),
  ]);
  rows.push([
    "prefilter scan only",
    throughput(bytes, () => {
      for (const message of messages) if (prefilter.scan(message) !== null) sink++;
    }).toFixed(0),
  ]);
  rows.push([
    "redactString, messages without secrets",
    throughput(cleanBytes, () => {
      for (const message of clean) sink += redactString(message).length;
    }).toFixed(0),
  ]);
  rows.push([
    "redactString, all messages",
    throughput(bytes, () => {
      for (const message of messages) sink += redactString(message).length;
    }).toFixed(0),
  ]);
  console.log(
    `\nredaction: ${(bytes / 1e6).toFixed(0)} MB in ${messages.length} transcript-like messages ` +
      `(code, prose, shell output; a secret in 1 of 200; ${
        (100 * gated / messages.length).toFixed(0)
      }% reach a detector) — ${redactionDetectors().length} detectors`,
  );
  printTable(rows);
  if (sink === 0.5) console.log(sink); // keeps the loops from being optimised away
}
