/**
 * An export stored in parts, taking turns with other writers (as `serve`'s
 * intake workers store it), leaves exactly what storing it in one
 * transaction leaves: the same spans, log records, merged model and tool
 * calls, usage rows, API errors and session totals, each call counted once,
 * with the Claude Code export of the real client and with GenAI spans of
 * many sessions. And a writer from another process that waits while a large
 * export is stored gets its turn between two parts, not after the whole
 * export.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { takeOtlpExport, takeOtlpExportTakingTurns } from "../../../src/agent/otlp/otlp_intake.ts";
import { type OtlpSignal, signalTypes } from "../../../src/agent/otlp/otlp_schema.ts";
import { ingestTranscriptFile } from "../../../src/agent/transcripts/transcript_ingester.ts";
import { type DatabaseSync, openDatabase } from "../../../src/store/database.ts";

const FIXTURES = new URL("../../fixtures/otlp/claude_code_2.1.197/", import.meta.url);
const SESSION = "f8236733-d176-41ab-9124-ccc8cb813fb6";
const NOW = 1_796_000_000_000;

/** Every row of the tables an export writes to, in a fixed order. */
const TABLES: Record<string, string> = {
  telemetry_spans: "trace_id, span_id",
  telemetry_logs: "id",
  telemetry_metric_points: "id",
  telemetry_model_calls: "call_key",
  telemetry_tool_calls: "call_key",
  telemetry_api_errors: "error_key",
  telemetry_sessions: "session_id",
  usage: "usage_key",
  sessions: "session_id",
};

function dump(db: DatabaseSync): Record<string, unknown[]> {
  return Object.fromEntries(
    Object.entries(TABLES).map((
      [table, order],
    ) => [
      table,
      db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all().map((r) => ({ ...r })),
    ]),
  );
}

function attr(key: string, value: string | number) {
  return {
    key,
    value: typeof value === "number" ? { intValue: value } : { stringValue: value },
  };
}

function id(n: number, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  out[0] = 0x7a;
  for (let i = bytes - 1, rest = n; i > 0 && rest > 0; i--, rest = Math.floor(rest / 256)) {
    out[i] = rest % 256;
  }
  return out;
}

/**
 * GenAI spans of `sessions` conversations: chat spans with usage (a few failed, a few sent
 * again under the same response id with more output), tool spans, spans of no agent.
 */
function genAiExport(round: number, spans: number, sessions: number): Uint8Array {
  const list = [];
  for (let i = 0; i < spans; i++) {
    const at = NOW + round * 100_000 + i * 7;
    const conversation = `conversation-${i % sessions}`;
    const kind = i % 3;
    const failed = i % 29 === 5;
    list.push({
      traceId: id(round * 10_000 + i, 16),
      spanId: id(round * 10_000 + i + 1, 8),
      name: kind === 2 ? "execute_tool Bash" : kind === 1 && i % 31 === 0 ? "GET /" : "chat",
      kind: 3,
      startTimeUnixNano: `${at}000000`,
      endTimeUnixNano: `${at + 30 + (i % 500)}000000`,
      ...(failed ? { status: { code: 2, message: "overloaded" } } : {}),
      attributes: kind === 2
        ? [
          attr("gen_ai.operation.name", "execute_tool"),
          attr("gen_ai.conversation.id", conversation),
          attr("gen_ai.tool.name", "Bash"),
          attr("gen_ai.tool.call.id", `call-${round}-${i % 40}`),
        ]
        : kind === 1 && i % 31 === 0
        ? [attr("http.method", "GET")]
        : [
          attr("gen_ai.operation.name", "chat"),
          attr("gen_ai.conversation.id", conversation),
          attr("gen_ai.request.model", i % 2 === 0 ? "claude-sonnet-4-5" : "gpt-4o"),
          // Every 50th response id again: the same call, reported twice.
          attr("gen_ai.response.id", `response-${round}-${i % 50 === 0 ? 0 : i}`),
          attr("gen_ai.usage.input_tokens", 900 + i),
          attr("gen_ai.usage.output_tokens", 40 + (i % 60)),
          attr("gen_ai.usage.cache_read.input_tokens", 300),
        ],
    });
  }
  const type = signalTypes("traces").request;
  return type.encode(type.fromObject({
    resourceSpans: [{
      resource: { attributes: [attr("service.name", "parts-test"), attr("host.name", "h")] },
      scopeSpans: [{ scope: { name: "parts.test" }, spans: list }],
    }],
  })).finish();
}

interface Export {
  signal: OtlpSignal;
  body: Uint8Array;
  encoding: "protobuf" | "json";
}

async function claudeExports(): Promise<Export[]> {
  const items = JSON.parse(
    await Deno.readTextFile(new URL("exports.json", FIXTURES)),
  ) as Array<{ path: string; body: unknown }>;
  return items.map((item) => ({
    signal: item.path.slice("/v1/".length) as OtlpSignal,
    body: new TextEncoder().encode(JSON.stringify(item.body)),
    encoding: "json",
  }));
}

async function withStores(
  run: (whole: DatabaseSync, parts: DatabaseSync, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const whole = openDatabase(join(dir, "whole.db"));
  const parts = openDatabase(join(dir, "parts.db"));
  try {
    await run(whole, parts, dir);
  } finally {
    whole.close();
    parts.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("GenAI spans of many sessions, stored in parts, store what one transaction stores", async () => {
  // 23 spans per conversation: at most 16 model calls a session, within every part size below.
  const exports = [0, 1, 0].map((round) => genAiExport(round, 300, 13));
  for (const partItems of [20, 64]) {
    await withStores(async (whole, parts) => {
      for (const body of exports) {
        const one = takeOtlpExport(whole, "traces", body, "protobuf", { now: NOW });
        const many = await takeOtlpExportTakingTurns(parts, "traces", body, "protobuf", {
          now: NOW,
          partItems,
        });
        assert.deepEqual(many, one, `the answer, parts of ${partItems}`);
      }
      const stored = dump(whole);
      assert.equal(stored.telemetry_spans.length, 600);
      assert.ok(stored.telemetry_model_calls.length > 300);
      assert.ok(stored.telemetry_tool_calls.length > 0);
      assert.ok(stored.telemetry_api_errors.length > 0);
      assert.deepEqual(dump(parts), stored, `parts of ${partItems}`);
    });
  }
});

Deno.test("a session's calls split across parts still add up to the same totals", async () => {
  const body = genAiExport(3, 200, 4);
  await withStores(async (whole, parts) => {
    takeOtlpExport(whole, "traces", body, "protobuf", { now: NOW });
    await takeOtlpExportTakingTurns(parts, "traces", body, "protobuf", { now: NOW, partItems: 3 });
    const one = dump(whole);
    const many = dump(parts);
    // Every row but the session totals is the same; the totals are summed in another grouping.
    for (const table of Object.keys(TABLES).filter((t) => t !== "sessions")) {
      assert.deepEqual(many[table], one[table], table);
    }
    const totals = (rows: unknown[]) =>
      rows.map((row) => {
        const { cost_usd, context_tokens: _context, ...rest } = row as Record<string, unknown>;
        return { ...rest, cost_usd: Math.round((cost_usd as number) * 1e9) };
      });
    assert.deepEqual(totals(many.sessions), totals(one.sessions));
  });
});

Deno.test("the real Claude Code export, stored in parts, matches its transcript in either order", async () => {
  const exports = await claudeExports();
  await withStores(async (whole, parts, dir) => {
    const transcript = join(dir, `${SESSION}.jsonl`);
    await Deno.copyFile(new URL(`${SESSION}.jsonl`, FIXTURES), transcript);
    // Telemetry first, then the transcript, then the same exports again (an exporter retrying).
    for (const item of exports) {
      takeOtlpExport(whole, item.signal, item.body, item.encoding, { now: NOW });
      await takeOtlpExportTakingTurns(parts, item.signal, item.body, item.encoding, {
        now: NOW,
        partItems: 2,
      });
    }
    assert.deepEqual(dump(parts), dump(whole), "telemetry alone");
    await ingestTranscriptFile(whole, transcript, "claude_code");
    await ingestTranscriptFile(parts, transcript, "claude_code");
    for (const item of exports) {
      takeOtlpExport(whole, item.signal, item.body, item.encoding, { now: NOW });
      await takeOtlpExportTakingTurns(parts, item.signal, item.body, item.encoding, {
        now: NOW,
        partItems: 2,
      });
    }
    const stored = dump(whole);
    assert.ok(
      stored.telemetry_model_calls.length === 3 && stored.telemetry_tool_calls.length === 2,
    );
    assert.deepEqual(dump(parts), stored, "with the transcript");
  });
});

Deno.test("a writer waiting while a large export is stored gets in between two parts", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "vantage.db");
  const stopFile = join(dir, "stop");
  const db = openDatabase(path);
  const writer = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../helpers/hook_writer.ts", import.meta.url).pathname,
      path,
      stopFile,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const lines = writer.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let output = "";
    while (!output.includes("ready\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the hook writer ended before its first write");
      output += value;
    }
    const body = genAiExport(0, 3000, 30);
    const result = await takeOtlpExportTakingTurns(db, "traces", body, "protobuf", {
      now: NOW,
      partItems: 10,
    });
    assert.equal(result.stored.spans, 3000);
    await Deno.writeTextFile(stopFile, "");
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      output += value;
    }
    assert.equal((await writer.status).code, 0);
    const seen = JSON.parse(output.trim().split("\n").at(-1)!) as number[];
    // What the writer's transactions saw committed: some while the export was half stored.
    assert.ok(seen.some((n) => n > 0 && n < 3000), `the writer saw ${[...new Set(seen)]}`);
  } finally {
    await Deno.writeTextFile(stopFile, "").catch(() => {});
    await writer.status;
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
