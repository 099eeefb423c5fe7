/**
 * The real Claude Code client with its OpenTelemetry export on (logs,
 * metrics and traces, binary protobuf, short export intervals) pointed at
 * `vantage serve`, and its model at the scripted server. The session's tool
 * calls, model calls and token totals in Vantage's store equal what its
 * transcript gives — read here straight from the JSONL, not through
 * Vantage's parser — each counted once: when the transcript is tailed while
 * the telemetry arrives, and when telemetry arrives alone first and the
 * transcript is ingested afterwards.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { claudeBinary, missingClientReason } from "../helpers/agent_clients.ts";
import { type AgentHome, denoDir, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  type ScriptTurn,
  startScriptedAnthropicServer,
} from "../helpers/scripted_anthropic_server.ts";
import { startServe } from "../helpers/serve_process.ts";

const CLAUDE = claudeBinary();
if (CLAUDE === undefined) {
  console.log(`skipping the Claude Code telemetry test: ${missingClientReason("claude")}`);
}

/** Four main-loop turns: a text-and-tool answer (two transcript lines), a failing command, an edit, an answer. */
function script(project: string): ScriptTurn[] {
  return [
    {
      blocks: [
        { type: "text", text: "Let me look around." },
        { type: "tool_use", name: "Bash", input: { command: "ls", description: "list" } },
      ],
      usage: { input_tokens: 1200, output_tokens: 80, cache_creation_input_tokens: 3000 },
    },
    {
      blocks: [{
        type: "tool_use",
        name: "Bash",
        input: { command: "false", description: "fail" },
      }],
      usage: { input_tokens: 40, output_tokens: 25, cache_read_input_tokens: 4200 },
    },
    {
      blocks: [{
        type: "tool_use",
        name: "Write",
        input: { file_path: join(project, "notes.txt"), content: "hello\n" },
      }],
      usage: { input_tokens: 60, output_tokens: 140, cache_read_input_tokens: 4300 },
    },
    {
      blocks: [{ type: "text", text: "Done." }],
      usage: { input_tokens: 30, output_tokens: 9, cache_read_input_tokens: 4500 },
    },
  ];
}

async function runClaude(cwd: string, env: Record<string, string>, modelUrl: string, otlp: string) {
  const run = await new Deno.Command(CLAUDE!, {
    args: ["-p", "Look around, then write notes.txt", "--allowedTools", "Bash,Write"],
    cwd,
    env: {
      ...env,
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: "test-key",
      IS_SANDBOX: "1",
      DISABLE_AUTOUPDATER: "1",
      DENO_DIR: denoDir(),
      CLAUDE_CODE_ENABLE_TELEMETRY: "1",
      CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1",
      OTEL_LOGS_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_LOGS_EXPORT_INTERVAL: "500",
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
      OTEL_TRACES_EXPORT_INTERVAL: "500",
      OTEL_BSP_SCHEDULE_DELAY: "500",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(180_000),
  }).output();
  const decoder = new TextDecoder();
  assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
}

/** What the transcript says, read from its lines directly. */
interface TranscriptTruth {
  sessionId: string;
  toolUseIds: string[];
  requestIds: string[];
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

async function transcriptTruth(home: string): Promise<TranscriptTruth> {
  const projects = join(home, ".claude", "projects");
  const files: string[] = [];
  for await (const dir of Deno.readDir(projects)) {
    if (!dir.isDirectory) continue;
    for await (const file of Deno.readDir(join(projects, dir.name))) {
      if (file.isFile && file.name.endsWith(".jsonl")) {
        files.push(join(projects, dir.name, file.name));
      }
    }
  }
  assert.equal(files.length, 1, `one transcript: ${files.join(", ")}`);
  const tools = new Set<string>();
  // A call's usage: the largest figures over its lines (one line per content block).
  const calls = new Map<string, Record<string, number>>();
  const requestIds = new Set<string>();
  let sessionId = "";
  for (const line of (await Deno.readTextFile(files[0])).split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line);
    if (typeof record.sessionId === "string") sessionId = record.sessionId;
    if (record.type !== "assistant") continue;
    const message = record.message;
    for (const block of message.content ?? []) {
      if (block.type === "tool_use") tools.add(block.id);
    }
    if (message.usage === undefined || typeof record.requestId !== "string") continue;
    requestIds.add(record.requestId);
    const key = `${message.id}:${record.requestId}`;
    const known = calls.get(key) ?? {};
    for (const field of Object.keys(message.usage)) {
      const value = message.usage[field];
      if (typeof value === "number") known[field] = Math.max(known[field] ?? 0, value);
    }
    calls.set(key, known);
  }
  const sum = (field: string) => [...calls.values()].reduce((n, u) => n + (u[field] ?? 0), 0);
  assert.equal(calls.size, requestIds.size, "one message per request");
  return {
    sessionId,
    toolUseIds: [...tools].sort(),
    requestIds: [...requestIds].sort(),
    input: sum("input_tokens"),
    output: sum("output_tokens"),
    cacheRead: sum("cache_read_input_tokens"),
    cacheWrite: sum("cache_creation_input_tokens"),
  };
}

function openStore(home: AgentHome): DatabaseSync {
  return new DatabaseSync(resolvePaths(home.dataHome).database, { readOnly: true });
}

/** Waits until `ready` holds on the store (the exporter and the tailer run on their own time). */
async function waitFor(home: AgentHome, what: string, ready: (db: DatabaseSync) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const db = openStore(home);
    try {
      if (ready(db)) return;
    } finally {
      db.close();
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function count(db: DatabaseSync, sql: string, ...params: string[]): number {
  return Number((db.prepare(sql).get(...params) as { n: number }).n);
}

/** Vantage's figures equal the transcript's, each call once. */
function assertCountedOnce(db: DatabaseSync, truth: TranscriptTruth): void {
  const session = db.prepare(
    `SELECT agent, tool_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
     FROM sessions WHERE session_id = ?`,
  ).get(truth.sessionId) as Record<string, number | string>;
  assert.deepEqual({ ...session }, {
    agent: "claude_code",
    tool_calls: truth.toolUseIds.length,
    input_tokens: truth.input,
    output_tokens: truth.output,
    cache_read_tokens: truth.cacheRead,
    cache_write_tokens: truth.cacheWrite,
  });
  const usageCalls = count(
    db,
    "SELECT coalesce(sum(calls), 0) AS n FROM usage WHERE session_id = ?",
    truth.sessionId,
  );
  assert.equal(usageCalls, truth.requestIds.length, "model calls in usage");
  // Telemetry's rows: one per request and one per tool call, linked to the transcript's.
  const telemetryRequests = db.prepare(
    `SELECT request_id, usage_key, counted, duration_ms, ttft_ms FROM telemetry_model_calls
     WHERE session_id = ? AND query_source IS NOT 'generate_session_title'
       AND request_id IN (${truth.requestIds.map(() => "?").join(", ")}) ORDER BY request_id`,
  ).all(truth.sessionId, ...truth.requestIds);
  assert.deepEqual(telemetryRequests.map((r) => r.request_id), truth.requestIds);
  for (const row of telemetryRequests) {
    assert.equal(row.counted, 0, "the transcript counts it");
    assert.match(String(row.usage_key), new RegExp(`:${row.request_id}$`));
    assert.ok(Number(row.duration_ms) > 0, "latency from telemetry");
    assert.ok(Number(row.ttft_ms) >= 0, "time to first token from the llm_request span");
  }
  const telemetryTools = db.prepare(
    "SELECT tool_use_id, success, counted FROM telemetry_tool_calls WHERE session_id = ? ORDER BY tool_use_id",
  ).all(truth.sessionId);
  assert.deepEqual(telemetryTools.map((t) => t.tool_use_id), truth.toolUseIds);
  assert.ok(telemetryTools.every((t) => t.counted === 0));
  assert.equal(telemetryTools.filter((t) => t.success === 0).length, 1, "`false` failed");
  assert.equal(
    count(db, "SELECT count(*) AS n FROM usage WHERE usage_key LIKE 'otel:%'"),
    0,
    "no telemetry usage row left beside the transcript's",
  );
}

Deno.test({
  name: "Claude Code telemetry and transcript, tailed together, count each call once",
  ignore: CLAUDE === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "otel");
    await Deno.mkdir(project, { recursive: true });
    const server = await startServe(home);
    const model = startScriptedAnthropicServer(script(project));
    try {
      await runClaude(project, home.env, model.url, server.url);
      assert.equal(model.remaining(), 0, "every scripted turn was played");
      const truth = await transcriptTruth(home.home);
      assert.equal(truth.requestIds.length, 4);
      assert.equal(truth.toolUseIds.length, 3);
      await waitFor(home, "telemetry and transcript", (db) => {
        const calls = count(
          db,
          "SELECT count(*) AS n FROM telemetry_model_calls WHERE session_id = ? AND ttft_ms IS NOT NULL",
          truth.sessionId,
        );
        const tools = count(
          db,
          "SELECT count(*) AS n FROM telemetry_tool_calls WHERE session_id = ? AND success IS NOT NULL",
          truth.sessionId,
        );
        const usage = count(
          db,
          "SELECT count(*) AS n FROM usage WHERE session_id = ? AND usage_key NOT LIKE 'otel:%'",
          truth.sessionId,
        );
        return calls >= 4 && tools >= 3 && usage >= 4;
      });
      const db = openStore(home);
      try {
        assertCountedOnce(db, truth);
        const who = db.prepare(
          "SELECT service_version, user_id FROM telemetry_sessions WHERE session_id = ?",
        )
          .get(truth.sessionId);
        assert.ok(who !== undefined && typeof who.user_id === "string", "the user is kept");
        assert.ok(
          count(
            db,
            "SELECT count(*) AS n FROM telemetry_metric_points WHERE name = 'claude_code.token.usage'",
          ) > 0,
        );
      } finally {
        db.close();
      }
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});

Deno.test({
  name: "Claude Code telemetry alone counts the session; the transcript read later takes over",
  ignore: CLAUDE === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "otel-first");
    await Deno.mkdir(project, { recursive: true });
    const server = await startServe(home, ["--no-tail"]);
    const model = startScriptedAnthropicServer(script(project));
    try {
      await runClaude(project, home.env, model.url, server.url);
      const truth = await transcriptTruth(home.home);
      await waitFor(home, "telemetry", (db) =>
        count(
            db,
            "SELECT count(*) AS n FROM telemetry_model_calls WHERE session_id = ? AND ttft_ms IS NOT NULL",
            truth.sessionId,
          ) >= 4 &&
        count(
            db,
            "SELECT count(*) AS n FROM telemetry_tool_calls WHERE session_id = ? AND success IS NOT NULL",
            truth.sessionId,
          ) >= 3);
      const before = openStore(home);
      try {
        // No transcript read: telemetry's own figures are the session's, and they are the same.
        const session = before.prepare(
          `SELECT tool_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
           FROM sessions WHERE session_id = ?`,
        ).get(truth.sessionId) as Record<string, number>;
        assert.deepEqual({ ...session }, {
          tool_calls: truth.toolUseIds.length,
          input_tokens: truth.input,
          output_tokens: truth.output,
          cache_read_tokens: truth.cacheRead,
          cache_write_tokens: truth.cacheWrite,
        });
        assert.equal(count(before, "SELECT count(*) AS n FROM messages"), 0, "no transcript read");
      } finally {
        before.close();
      }
      assert.equal(await server.stop(), 0);
      const ingest = await runVantage(["ingest"], { env: home.env });
      assert.equal(ingest.code, 0, ingest.stderr);
      const after = openStore(home);
      try {
        assertCountedOnce(after, truth);
      } finally {
        after.close();
      }
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
