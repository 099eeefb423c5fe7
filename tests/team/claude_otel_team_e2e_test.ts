/**
 * The real Claude Code client exporting its OpenTelemetry (logs, metrics and
 * traces, binary protobuf) to a team server on PostgreSQL with a person's
 * token, as `OTEL_EXPORTER_OTLP_HEADERS` carries it, its model the scripted
 * server. On the team server the session is that person's, from the host the
 * export names, and its tool calls, model calls and token totals equal what
 * the transcript gives (read here from the JSONL itself); once the person's
 * laptop reads the transcript and `vantage sync` pushes it, every call is
 * still counted once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import postgres from "postgres";
import { claudeBinary, missingClientReason } from "../helpers/agent_clients.ts";
import { denoDir, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import {
  type ScriptTurn,
  startScriptedAnthropicServer,
} from "../helpers/scripted_anthropic_server.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";

const CLAUDE = claudeBinary();
if (CLAUDE === undefined) {
  console.log(`skipping the Claude Code team telemetry test: ${missingClientReason("claude")}`);
}
const ignore = CLAUDE === undefined ||
  skipWithoutPostgres("the Claude Code telemetry test on a team server");

/** Three turns: a command, a failing command, an answer. */
const SCRIPT: ScriptTurn[] = [
  {
    blocks: [{ type: "tool_use", name: "Bash", input: { command: "ls", description: "list" } }],
    usage: { input_tokens: 1200, output_tokens: 80, cache_creation_input_tokens: 3000 },
  },
  {
    blocks: [{ type: "tool_use", name: "Bash", input: { command: "false", description: "fail" } }],
    usage: { input_tokens: 40, output_tokens: 25, cache_read_input_tokens: 4200 },
  },
  {
    blocks: [{ type: "text", text: "Done." }],
    usage: { input_tokens: 30, output_tokens: 9, cache_read_input_tokens: 4500 },
  },
];

/** What the transcript says, read from its lines directly. */
interface Truth {
  sessionId: string;
  path: string;
  tools: number;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

async function transcriptTruth(home: string): Promise<Truth> {
  const projects = join(home, ".claude", "projects");
  const files: string[] = [];
  for await (const dir of Deno.readDir(projects)) {
    for await (const file of Deno.readDir(join(projects, dir.name))) {
      if (file.name.endsWith(".jsonl")) files.push(join(projects, dir.name, file.name));
    }
  }
  assert.equal(files.length, 1, `one transcript: ${files.join(", ")}`);
  const tools = new Set<string>();
  const calls = new Map<string, Record<string, number>>();
  let sessionId = "";
  for (const line of (await Deno.readTextFile(files[0])).split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line);
    if (typeof record.sessionId === "string") sessionId = record.sessionId;
    if (record.type !== "assistant") continue;
    for (const block of record.message.content ?? []) {
      if (block.type === "tool_use") tools.add(block.id);
    }
    const usage = record.message.usage;
    if (usage === undefined || typeof record.requestId !== "string") continue;
    // A call's usage: the largest figures over its lines (one line per content block).
    const key = `${record.message.id}:${record.requestId}`;
    const known = calls.get(key) ?? {};
    for (const [field, value] of Object.entries(usage)) {
      if (typeof value === "number") known[field] = Math.max(known[field] ?? 0, value);
    }
    calls.set(key, known);
  }
  const sum = (field: string) => [...calls.values()].reduce((n, u) => n + (u[field] ?? 0), 0);
  return {
    sessionId,
    path: files[0],
    tools: tools.size,
    calls: calls.size,
    input_tokens: sum("input_tokens"),
    output_tokens: sum("output_tokens"),
    cache_read_tokens: sum("cache_read_input_tokens"),
    cache_write_tokens: sum("cache_creation_input_tokens"),
  };
}

/** PostgreSQL's bigint and numeric as numbers. */
const AS_NUMBERS = { bigint: { to: 20, from: [20, 1700], serialize: String, parse: Number } };

async function read(url: string, sessionId: string) {
  const db = postgres(url, { max: 1, onnotice: () => {}, types: AS_NUMBERS });
  try {
    const [session] = await db.unsafe(
      `SELECT person, host, tool_calls, input_tokens, output_tokens, cache_read_tokens,
         cache_write_tokens FROM sessions WHERE session_id = $1`,
      [sessionId],
    );
    const [counts] = await db.unsafe(
      `SELECT
         (SELECT count(*) FROM telemetry_model_calls WHERE session_id = $1
            AND ttft_ms IS NOT NULL AND query_source IS DISTINCT FROM 'generate_session_title')
           AS timed_calls,
         (SELECT count(*) FROM telemetry_model_calls WHERE session_id = $1 AND counted = 1)
           AS counted_calls,
         (SELECT count(*) FROM telemetry_tool_calls WHERE session_id = $1 AND success IS NOT NULL)
           AS tools,
         (SELECT count(*) FROM telemetry_tool_calls WHERE session_id = $1 AND success = 0)
           AS failed_tools,
         (SELECT coalesce(sum(calls), 0) FROM usage WHERE session_id = $1) AS usage_calls,
         (SELECT count(*) FROM usage WHERE session_id = $1 AND usage_key LIKE 'otel:%')
           AS from_telemetry,
         (SELECT count(*) FROM messages WHERE session_id = $1) AS messages`,
      [sessionId],
    );
    return { session: session === undefined ? undefined : { ...session }, counts: { ...counts } };
  } finally {
    await db.end();
  }
}

/** The session's figures as the transcript gives them. */
function figures(truth: Truth) {
  return {
    tool_calls: truth.tools,
    input_tokens: truth.input_tokens,
    output_tokens: truth.output_tokens,
    cache_read_tokens: truth.cache_read_tokens,
    cache_write_tokens: truth.cache_write_tokens,
  };
}

Deno.test({
  name: "Claude Code's telemetry to a team server on PostgreSQL: the person's, counted once " +
    "beside the transcript they sync",
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = `${await sharedPostgresCluster()
      .createDatabase()}?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`;
    const serverHome = await makeAgentHome({ fixtures: false });
    serverHome.env.VANTAGE_STORE = url;
    const laptop = await makeAgentHome({ fixtures: false });
    const project = join(laptop.home, "work", "team-otel");
    await Deno.mkdir(project, { recursive: true });
    const model = startScriptedAnthropicServer(SCRIPT);
    let server: ServeProcess | undefined;
    try {
      const added = await runVantage(["team", "add-user", "ada"], { env: serverHome.env });
      assert.equal(added.code, 0, added.stderr);
      const token = added.stdout.trim();
      server = await startServe(serverHome, ["--no-tail"]);
      const run = await new Deno.Command(CLAUDE!, {
        args: ["-p", "Look around", "--allowedTools", "Bash"],
        cwd: project,
        env: {
          ...laptop.env,
          ANTHROPIC_BASE_URL: model.url,
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
          OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
          // Who sends, as a person sets it up on their laptop.
          OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${token},X-Vantage-Host=ada-laptop`,
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
      assert.equal(model.remaining(), 0, "every scripted turn was played");
      const truth = await transcriptTruth(laptop.home);
      assert.equal(truth.calls, 3);
      assert.equal(truth.tools, 2);

      // The exporter sends on its own time: wait for every call and tool with its outcome.
      const deadline = Date.now() + 60_000;
      let seen = await read(url, truth.sessionId);
      while (
        Date.now() < deadline &&
        (Number(seen.counts.timed_calls) < truth.calls || Number(seen.counts.tools) < truth.tools)
      ) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        seen = await read(url, truth.sessionId);
      }
      assert.equal(seen.counts.timed_calls, truth.calls, server.stderr());
      assert.equal(seen.counts.tools, truth.tools);
      assert.equal(seen.counts.failed_tools, 1, "`false` failed");
      // Telemetry alone: its figures are the transcript's, and the session is ada's.
      assert.deepEqual(seen.session, { person: "ada", host: "ada-laptop", ...figures(truth) });
      assert.equal(seen.counts.usage_calls, truth.calls);
      assert.equal(seen.counts.messages, 0, "no transcript on the team server yet");

      // Ada's laptop reads the transcript and pushes it: the transcript takes over.
      const ingest = await runVantage(["ingest"], { env: laptop.env });
      assert.equal(ingest.code, 0, ingest.stderr);
      const sync = await runVantage(["sync", "--json"], {
        env: {
          ...laptop.env,
          VANTAGE_TEAM_URL: server.url,
          VANTAGE_TEAM_TOKEN: token,
          VANTAGE_HOSTNAME: "ada-laptop",
        },
      });
      assert.equal(sync.code, 0, sync.stderr);
      assert.equal(JSON.parse(sync.stdout).refused.records, 0, sync.stdout);
      const after = await read(url, truth.sessionId);
      assert.deepEqual(after.session, { person: "ada", host: "ada-laptop", ...figures(truth) });
      assert.equal(after.counts.usage_calls, truth.calls, "each call counted once");
      assert.equal(after.counts.from_telemetry, 0, "telemetry's counts withdrawn");
      assert.equal(after.counts.counted_calls, 0);
      assert.ok(Number(after.counts.messages) > 0, "the transcript is there now");
    } finally {
      await model.close();
      if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
      await laptop.cleanup();
      await serverHome.cleanup();
    }
  },
});
