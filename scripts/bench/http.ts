/**
 * HTTP benchmark: requests per second and latency (p50, p99) of
 * `POST /api/ops/agent.search_sessions` from 32 concurrent clients on
 * loopback against a real `vantage serve` holding a generated Claude Code
 * corpus, beside two references measured in the same run: the same server's
 * `/api/health` (the HTTP stack and guard without an operation) and a bare
 * `Deno.serve` hello (the runtime alone). The server's resident memory
 * (VmRSS, and its peak VmHWM) is read from /proc while the load runs.
 *
 * Every loop is bounded: at most `REQUESTS` requests or `SECONDS` seconds per
 * target, whichever comes first, and only to 127.0.0.1.
 */
import { join } from "node:path";
import { prng, writeClaudeTranscript, ZipfVocabulary } from "../lib/claude_corpus.ts";
import { denoDir, startServe } from "./serve_process.ts";
import { percentile, printTable } from "./stats.ts";

const CONCURRENCY = 32;
const REQUESTS = 4000;
const SECONDS = 10;

interface LoadResult {
  requests: number;
  failures: number;
  seconds: number;
  latencies: number[];
}

interface Memory {
  rssKb: number;
  hwmKb: number;
}

function readMemory(pid: number): Memory | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const field = (name: string) =>
      Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? NaN);
    return { rssKb: field("VmRSS"), hwmKb: field("VmHWM") };
  } catch {
    return undefined; // Not Linux, or the process is gone.
  }
}

/** Runs `request` from CONCURRENCY loops until REQUESTS are done or SECONDS pass. */
async function load(request: (i: number) => Promise<Response>): Promise<LoadResult> {
  const latencies: number[] = [];
  let issued = 0;
  let failures = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const client = async () => {
    while (issued < REQUESTS && performance.now() < deadline) {
      const i = issued++;
      const t0 = performance.now();
      try {
        const response = await request(i);
        await response.arrayBuffer();
        if (!response.ok) failures++;
      } catch {
        failures++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return {
    requests: latencies.length,
    failures,
    seconds: (performance.now() - started) / 1000,
    latencies,
  };
}

/** A bare Deno.serve answering "hello", in its own process like the server. */
async function startHello(): Promise<{ child: Deno.ChildProcess; port: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(port) }, () => new Response("hello"));`,
    ],
    env: { ...Deno.env.toObject(), DENO_DIR: denoDir() },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the hello server exited");
    text += value;
  }
  reader.releaseLock();
  return { child, port: Number(text.trim()) };
}

async function messageCount(url: string): Promise<number> {
  const response = await fetch(`${url}/api/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sql: "SELECT count(*) FROM messages" }),
  });
  return ((await response.json()).rows?.[0]?.[0] as number) ?? 0;
}

function row(name: string, result: LoadResult, reference?: LoadResult): string[] {
  const rate = result.requests / result.seconds;
  const p99 = percentile(result.latencies, 99);
  return [
    name,
    String(result.requests),
    String(result.failures),
    rate.toFixed(0),
    percentile(result.latencies, 50).toFixed(2),
    p99.toFixed(2),
    reference === undefined
      ? ""
      : `${(rate / (reference.requests / reference.seconds)).toFixed(2)}× rps`,
  ];
}

/** Runs the HTTP benchmark; `corpusMb` sizes the generated transcripts (default 40 MB). */
export async function benchHttp(corpusMb = 40): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-bench-http-" });
  const dataHome = join(home, ".vantage");
  const dir = join(home, ".claude", "projects", "-work-bench");
  await Deno.mkdir(dir, { recursive: true });
  const vocabulary = new ZipfVocabulary(50_000, prng(7));
  const files = 8;
  let messages = 0;
  for (let i = 0; i < files; i++) {
    const stats = await writeClaudeTranscript(join(dir, `session-${i}.jsonl`), {
      sessionId: `bench-session-${i}`,
      cwd: "/work/bench",
      targetBytes: (corpusMb * 1024 * 1024) / files,
      seed: 100 + i,
      startMs: Date.now() - 3 * 3600_000,
      vocabulary,
    });
    messages += stats.messages;
  }
  const server = await startServe(home, dataHome);
  const url = `http://127.0.0.1:${server.port}`;
  const hello = await startHello();
  try {
    // The server tails the corpus at start; wait until every message is stored.
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline && await messageCount(url) < messages) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const stored = await messageCount(url);
    const idle = readMemory(server.child.pid);
    // Rare and common words alike, as a person's searches would be.
    const words = [
      ...vocabulary.words.slice(0, 4),
      ...vocabulary.words.slice(2000, 2004),
      "Bash",
      "Edit",
    ];
    const search = (i: number) =>
      fetch(`${url}/api/ops/agent.search_sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query: words[i % words.length],
          project: "*",
          since_min: 1440,
          limit: 5,
        }),
      });
    // Warm up each path once so start-up costs stay out of the figures.
    await (await search(0)).arrayBuffer();
    await (await fetch(`${url}/api/health`)).arrayBuffer();
    await (await fetch(`http://127.0.0.1:${hello.port}/`)).arrayBuffer();

    let peakRss = 0;
    const sampler = setInterval(() => {
      const memory = readMemory(server.child.pid);
      if (memory !== undefined) peakRss = Math.max(peakRss, memory.rssKb);
    }, 100);
    const searched = await load(search);
    clearInterval(sampler);
    const health = await load(() => fetch(`${url}/api/health`));
    const bare = await load(() => fetch(`http://127.0.0.1:${hello.port}/`));
    const after = readMemory(server.child.pid);

    console.log(
      `corpus: ${stored} messages in ${files} sessions (${corpusMb} MB of Claude Code transcripts); ` +
        `${CONCURRENCY} concurrent clients, at most ${REQUESTS} requests or ${SECONDS} s per target`,
    );
    printTable([
      ["target", "requests", "failed", "req/s", "p50 ms", "p99 ms", "vs hello"],
      row("POST /api/ops/agent.search_sessions", searched, bare),
      row("GET /api/health (same server)", health, bare),
      row("Deno.serve hello (reference)", bare),
    ]);
    const mb = (kb: number | undefined) =>
      kb === undefined || Number.isNaN(kb) ? "n/a" : `${(kb / 1024).toFixed(1)} MB`;
    printTable([
      ["server memory", "VmRSS", "VmHWM (peak)"],
      ["idle, corpus stored", mb(idle?.rssKb), mb(idle?.hwmKb)],
      ["during search load (max sampled)", mb(peakRss || undefined), ""],
      ["after all loads", mb(after?.rssKb), mb(after?.hwmKb)],
    ]);
  } finally {
    for (const child of [server.child, hello.child]) {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await child.status;
    }
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await benchHttp(Number(Deno.args[0] ?? 40));
