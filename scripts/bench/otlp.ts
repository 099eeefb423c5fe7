/**
 * OTLP intake benchmark: spans per second and log records per second that a
 * real `vantage serve` takes over loopback as binary protobuf exports
 * (decoded, mapped into sessions, model calls and tool calls, stored), and
 * its resident memory, beside a reference server that only reads and
 * decodes the same requests (`reference_otlp_server.ts`), in the same run;
 * and the round trip of a hook posted to that `serve` while it takes the
 * traces, beside hooks with nothing else running.
 *
 * Traces: GenAI chat and tool spans (each a model call or tool call for
 * Vantage, counted into its session). Logs: Claude Code-shaped events
 * (`api_request`, `tool_result`). Every loop is bounded (at most the prepared
 * requests, at most `SECONDS` per target) and only goes to 127.0.0.1.
 *
 * Where PostgreSQL's server binaries are installed, the same run measures
 * `serve --store postgres://…` (a team server) too, on a throwaway cluster of
 * the tests' kind (its own folder and port; fsync and synchronous commit off).
 *
 * `VANTAGE_BENCH_OTLP_CONCURRENCY=N` sends N exports at once (default 4: four exporters, each
 * sending its next export once the last is answered); `VANTAGE_BENCH_OTLP_POSTGRES=0` measures
 * SQLite's `serve` alone.
 */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { signalTypes } from "../../src/agent/otlp/otlp_schema.ts";
import { POSTGRES_MISSING, startPostgresCluster } from "../../tests/helpers/postgres_cluster.ts";
import { denoDir, MAIN, startServe } from "./serve_process.ts";
import { median, percentile, printTable } from "./stats.ts";
import { postHooks } from "./writers.ts";

/** Items per export (what exporters batch: the SDKs default to 512 spans per batch). */
const BATCH = 1000;
/** Exports prepared per signal. */
const REQUESTS = 60;
/** More trace exports, sent while hooks are timed. */
const HOOK_REQUESTS = 40;
/** Most seconds spent on one signal against one target. */
const SECONDS = 30;
/**
 * Exports in flight at once: several exporters sending at the same time, each one export at a
 * time as an SDK's batch exporter does (`VANTAGE_BENCH_OTLP_CONCURRENCY`, default 4).
 */
const CONCURRENCY = Math.max(1, Number(Deno.env.get("VANTAGE_BENCH_OTLP_CONCURRENCY") ?? 4) || 4);
/** `VANTAGE_BENCH_OTLP_POSTGRES=0` leaves the team server out (SQLite's figures alone). */
const WITH_POSTGRES = Deno.env.get("VANTAGE_BENCH_OTLP_POSTGRES") !== "0";
/** Pause between two hooks of the hook latency loop, ms. */
const HOOK_PAUSE_MS = 20;

function attr(key: string, value: string | number) {
  return {
    key,
    value: typeof value === "number" ? { intValue: value } : { stringValue: value },
  };
}

let idCounter = 0;
function id(bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let n = ++idCounter;
  for (let i = bytes - 1; i >= 0 && n > 0; i--) {
    out[i] = n & 0xff;
    n = Math.floor(n / 256);
  }
  out[0] = 0x5b; // never all zero
  return out;
}

/** The trace export of `round`: `BATCH` GenAI spans, starting `start` (ms; default an hour ago). */
export function traceExport(round: number, start = Date.now() - 3_600_000): Uint8Array {
  const spans = [];
  for (let i = 0; i < BATCH; i++) {
    const at = start + round * 10_000 + i * 5;
    const conversation = `conv-${(round * 7 + i) % 50}`;
    const tool = i % 3 === 2;
    spans.push({
      traceId: id(16),
      spanId: id(8),
      name: tool ? "execute_tool Bash" : "chat claude-sonnet-4-5",
      kind: 3,
      startTimeUnixNano: `${at}000000`,
      endTimeUnixNano: `${at + 40 + (i % 900)}000000`,
      attributes: tool
        ? [
          attr("gen_ai.operation.name", "execute_tool"),
          attr("gen_ai.conversation.id", conversation),
          attr("gen_ai.tool.name", "Bash"),
          attr("gen_ai.tool.call.id", `call-${round}-${i}`),
        ]
        : [
          attr("gen_ai.operation.name", "chat"),
          attr("gen_ai.system", "anthropic"),
          attr("gen_ai.conversation.id", conversation),
          attr("gen_ai.request.model", "claude-sonnet-4-5"),
          attr("gen_ai.response.id", `resp-${round}-${i}`),
          attr("gen_ai.usage.input_tokens", 1000 + i),
          attr("gen_ai.usage.output_tokens", 100 + (i % 50)),
          attr("gen_ai.usage.cache_read.input_tokens", 500),
        ],
    });
  }
  const type = signalTypes("traces").request;
  return type.encode(type.fromObject({
    resourceSpans: [{
      resource: { attributes: [attr("service.name", "bench-agent"), attr("host.name", "bench")] },
      scopeSpans: [{ scope: { name: "bench.genai" }, spans }],
    }],
  })).finish();
}

/** The log export of `round`: `BATCH` Claude Code events, starting `start` (ms; default an hour ago). */
export function logsExport(round: number, start = Date.now() - 3_600_000): Uint8Array {
  const records = [];
  for (let i = 0; i < BATCH; i++) {
    const at = start + round * 10_000 + i * 5;
    const session = `bench-session-${(round * 3 + i) % 20}`;
    const apiRequest = i % 2 === 0;
    records.push({
      timeUnixNano: `${at}000000`,
      observedTimeUnixNano: `${at}000000`,
      body: { stringValue: apiRequest ? "claude_code.api_request" : "claude_code.tool_result" },
      attributes: [
        attr("user.id", "bench-user"),
        attr("session.id", session),
        attr("terminal.type", "non-interactive"),
        attr("event.name", apiRequest ? "api_request" : "tool_result"),
        attr("event.timestamp", new Date(at).toISOString()),
        attr("event.sequence", round * BATCH + i),
        attr("prompt.id", `prompt-${round}`),
        ...(apiRequest
          ? [
            attr("model", "claude-opus-4-8"),
            attr("input_tokens", 1200 + i),
            attr("output_tokens", 80),
            attr("cache_read_tokens", 4000),
            attr("cache_creation_tokens", 0),
            attr("cost_usd", 0.003),
            attr("duration_ms", 900 + (i % 400)),
            attr("request_id", `req_bench_${round}_${i}`),
            attr("query_source", "sdk"),
          ]
          : [
            attr("tool_name", "Bash"),
            attr("tool_use_id", `toolu_bench_${round}_${i}`),
            attr("success", i % 10 === 1 ? "false" : "true"),
            attr("duration_ms", String(30 + (i % 200))),
          ]),
      ],
    });
  }
  const type = signalTypes("logs").request;
  return type.encode(type.fromObject({
    resourceLogs: [{
      resource: { attributes: [attr("service.name", "claude-code")] },
      scopeLogs: [{ scope: { name: "com.anthropic.claude_code.events" }, logRecords: records }],
    }],
  })).finish();
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
    return undefined;
  }
}

/** CPU time a process has used so far, ms (user + system, from /proc). */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    // utime and stime are fields 14 and 15 of stat; the split starts at field 3.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

interface Run {
  items: number;
  seconds: number;
  failures: number;
}

/** Sends the prepared exports of one signal, CONCURRENCY at a time, within SECONDS. */
async function send(port: number, path: string, bodies: Uint8Array[]): Promise<Run> {
  let next = 0;
  let done = 0;
  let failures = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const client = async () => {
    while (next < bodies.length && performance.now() < deadline) {
      const body = bodies[next++];
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-protobuf" },
        body: body as Uint8Array<ArrayBuffer>,
      });
      await response.arrayBuffer();
      if (response.ok) done++;
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return { items: done * BATCH, seconds: (performance.now() - started) / 1000, failures };
}

/** Starts `serve --port 0 --store <store>` (a team server) and waits for its port. */
async function startTeamServe(
  home: string,
  store: string,
): Promise<{ child: Deno.ChildProcess; port: number }> {
  const dataHome = join(home, ".vantage");
  const paths = { ...resolvePaths(dataHome), userHome: home };
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...permissionFlags("serve", paths, [], store),
      MAIN,
      "serve",
      "--port",
      "0",
      "--store",
      store,
    ],
    env: { ...Deno.env.toObject(), HOME: home, VANTAGE_HOME: dataHome, DENO_DIR: denoDir() },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // What serve says goes to a string: shown when it does not start.
  let said = "";
  const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (said = (said + chunk).slice(-4000)) }),
  ).catch(() => {});
  for (let i = 0; i < 2400; i++) {
    try {
      const lock = JSON.parse(await Deno.readTextFile(`${dataHome}/serve.lock`));
      if (lock.pid === child.pid && typeof lock.port === "number") {
        return { child, port: lock.port };
      }
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  try {
    child.kill("SIGTERM");
  } catch {
    // It exited already.
  }
  await reading;
  throw new Error(`serve --store did not start: ${said}`);
}

async function startReference(): Promise<{ child: Deno.ChildProcess; port: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./reference_otlp_server.ts", import.meta.url).pathname],
    env: { ...Deno.env.toObject(), DENO_DIR: denoDir() },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the reference server did not start");
    text += value;
  }
  reader.releaseLock();
  return { child, port: Number(text.trim()) };
}

/** Runs the OTLP benchmark and prints its table. */
export async function benchOtlp(): Promise<void> {
  console.log(`preparing ${REQUESTS} trace and ${REQUESTS} log exports of ${BATCH} items…`);
  const traces = Array.from({ length: REQUESTS }, (_, i) => traceExport(i));
  const moreTraces = Array.from({ length: HOOK_REQUESTS }, (_, i) => traceExport(REQUESTS + i));
  const logs = Array.from({ length: REQUESTS }, (_, i) => logsExport(i));
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    `trace exports ${mb(traces[0].length)} MB each, log exports ${mb(logs[0].length)} MB each`,
  );

  const rows: string[][] = [[
    "target",
    "spans/s",
    "log records/s",
    "CPU ms / 1000 spans",
    "CPU ms / 1000 records",
    "failures",
    "RSS after (MB)",
    "peak RSS (MB)",
  ]];
  const hookRows: string[][] = [["serve", "", "hooks", "p50", "p99", "max"]];
  const hookRow = (target: string, label: string, latencies: number[]) => [
    target,
    label,
    String(latencies.length),
    `${median(latencies).toFixed(1)} ms`,
    `${percentile(latencies, 99).toFixed(1)} ms`,
    `${Math.max(...latencies).toFixed(1)} ms`,
  ];
  const measure = async (
    name: string,
    start: () => Promise<{ child: Deno.ChildProcess; port: number }>,
    hooks: string | undefined,
  ) => {
    const { child, port } = await start();
    const url = `http://127.0.0.1:${port}`;
    try {
      if (hooks) {
        // Warm up, then the reference: hooks with nothing else running.
        let warm = 0;
        await postHooks(url, () => warm++ >= 20, 5);
        const idleUntil = performance.now() + 3000;
        hookRows.push(
          hookRow(
            hooks,
            "nothing else running",
            await postHooks(url, () => performance.now() > idleUntil, HOOK_PAUSE_MS),
          ),
        );
      }
      // One small export first, so start-up work (schema, store) is not timed.
      await send(port, "/v1/traces", [traces[0]]);
      const c0 = cpuMs(child.pid);
      const t = await send(port, "/v1/traces", traces.slice(1));
      const c1 = cpuMs(child.pid);
      const l = await send(port, "/v1/logs", logs);
      const c2 = cpuMs(child.pid);
      if (hooks) {
        // Hooks while more traces come in: each one waits for the part of an export being
        // stored, and for a core.
        let sending = true;
        const during = postHooks(url, () => !sending, HOOK_PAUSE_MS);
        const more = await send(port, "/v1/traces", moreTraces);
        sending = false;
        hookRows.push(
          hookRow(
            hooks,
            `during the trace intake (${(more.items / more.seconds).toFixed(0)} spans/s meanwhile)`,
            await during,
          ),
        );
      }
      const per = (a: number | undefined, b: number | undefined, items: number) =>
        a === undefined || b === undefined || items === 0
          ? "n/a"
          : ((b - a) / (items / 1000)).toFixed(0);
      const memory = readMemory(child.pid);
      rows.push([
        name,
        (t.items / t.seconds).toFixed(0),
        (l.items / l.seconds).toFixed(0),
        per(c0, c1, t.items),
        per(c1, c2, l.items),
        String(t.failures + l.failures),
        memory === undefined ? "n/a" : (memory.rssKb / 1024).toFixed(0),
        memory === undefined ? "n/a" : (memory.hwmKb / 1024).toFixed(0),
      ]);
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
  };

  await measure("reference: read + decode only", startReference, undefined);
  const home = await Deno.makeTempDir({ prefix: "vantage-bench-otlp-" });
  try {
    await measure(
      "vantage serve: decode + map + store",
      () => startServe(home, join(home, ".vantage")),
      "SQLite",
    );
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
  if (!WITH_POSTGRES) {
    console.log("(no PostgreSQL figure: VANTAGE_BENCH_OTLP_POSTGRES=0)");
  } else if (POSTGRES_MISSING === undefined) {
    const cluster = startPostgresCluster();
    const teamHome = await Deno.makeTempDir({ prefix: "vantage-bench-otlp-pg-" });
    try {
      // A loaded machine may take longer than serve's default 5 s to hand it a connection.
      const store = `${await cluster.createDatabase("bench_otlp")}?connect_timeout=60`;
      await measure(
        "serve --store postgres: decode + map, store",
        () => startTeamServe(teamHome, store),
        "PostgreSQL",
      );
    } finally {
      cluster.stop();
      await Deno.remove(teamHome, { recursive: true }).catch(() => {});
    }
  } else {
    console.log(`(no PostgreSQL figure: ${POSTGRES_MISSING})`);
  }
  printTable(rows);
  console.log(
    `(${CONCURRENCY} exports in flight, ${BATCH} items each, protobuf, loopback; target: > 20,000 spans/s)`,
  );
  console.log(`\nHook round trip (POST /api/hooks on that serve, one every ${HOOK_PAUSE_MS} ms)`);
  printTable(hookRows);
}

if (import.meta.main) await benchOtlp();
