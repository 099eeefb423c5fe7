/**
 * End to end: `vantage install --adapter claude-code --otel` into a fresh
 * home, then the real Claude Code client runs a session against the
 * scripted model server with nothing but what the install wrote (no OTEL_*
 * or telemetry variable in its environment). `serve` stores its telemetry:
 * one model call per request of the transcript with its tokens and latency,
 * one tool call per tool use with its outcome, and its metrics.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { getJsonValue } from "../../src/install/json_edit.ts";
import { claudeBinary, missingClientReason } from "../helpers/agent_clients.ts";
import { type AgentHome, denoDir, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { startScriptedAnthropicServer } from "../helpers/scripted_anthropic_server.ts";
import { startServe } from "../helpers/serve_process.ts";

const CLAUDE = claudeBinary();
if (CLAUDE === undefined) {
  console.log(`skipping the install --otel end-to-end test: ${missingClientReason("claude")}`);
}

/** Variables that would turn telemetry on by hand: none may reach the client. */
const TELEMETRY_VARIABLE = /^(OTEL_|CLAUDE_CODE_ENABLE_TELEMETRY$|CLAUDE_CODE_ENHANCED_TELEMETRY)/;

function withoutTelemetryVariables(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !TELEMETRY_VARIABLE.test(name)));
}

/** What the transcript says: its session, request ids, tool uses and token totals. */
async function transcriptTruth(home: string) {
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
  assert.equal(files.length, 1, files.join(", "));
  let sessionId = "";
  const tools = new Set<string>();
  const calls = new Map<string, { input: number; output: number }>();
  for (const line of (await Deno.readTextFile(files[0])).split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line);
    if (typeof record.sessionId === "string") sessionId = record.sessionId;
    if (record.type !== "assistant" || typeof record.requestId !== "string") continue;
    for (const block of record.message.content ?? []) {
      if (block.type === "tool_use") tools.add(block.id);
    }
    const usage = record.message.usage ?? {};
    const known = calls.get(record.requestId) ?? { input: 0, output: 0 };
    calls.set(record.requestId, {
      input: Math.max(known.input, usage.input_tokens ?? 0),
      output: Math.max(known.output, usage.output_tokens ?? 0),
    });
  }
  const sum = (field: "input" | "output") =>
    [...calls.values()].reduce((total, call) => total + call[field], 0);
  return {
    sessionId,
    requestIds: [...calls.keys()].sort(),
    toolUseIds: [...tools].sort(),
    input: sum("input"),
    output: sum("output"),
  };
}

function query<T>(home: AgentHome, sql: string, ...params: string[]): T[] {
  const db = new DatabaseSync(resolvePaths(home.dataHome).database, { readOnly: true });
  try {
    return (db.prepare(sql).all(...params) as T[]).map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

Deno.test({
  name: "install --otel alone makes the real Claude Code export its telemetry to serve",
  ignore: CLAUDE === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "otel-install");
    await Deno.mkdir(project, { recursive: true });
    const server = await startServe(home);
    const model = startScriptedAnthropicServer([
      {
        blocks: [{ type: "tool_use", name: "Bash", input: { command: "ls", description: "list" } }],
        usage: { input_tokens: 900, output_tokens: 40, cache_creation_input_tokens: 2000 },
      },
      {
        blocks: [{ type: "tool_use", name: "Bash", input: { command: "false", description: "x" } }],
        usage: { input_tokens: 30, output_tokens: 20, cache_read_input_tokens: 2900 },
      },
      {
        blocks: [{ type: "text", text: "Listed; `false` failed as it should." }],
        usage: { input_tokens: 25, output_tokens: 12, cache_read_input_tokens: 2950 },
      },
    ]);
    try {
      const env = withoutTelemetryVariables(home.env);
      // Where serve listens is all the install is told; the hooks stay out of this test.
      const install = await runVantage(
        ["install", "--adapter", "claude-code", "--otel", "--no-hooks", "--no-warm"],
        { env: { ...env, VANTAGE_URL: server.url } },
      );
      assert.equal(install.code, 0, install.stderr);
      const settings = join(home.home, ".claude", "settings.json");
      assert.equal(
        getJsonValue(
          await Deno.readTextFile(settings),
          "json",
          ["env", "OTEL_EXPORTER_OTLP_ENDPOINT"],
          settings,
        ),
        server.url,
      );

      const run = await new Deno.Command(CLAUDE!, {
        args: ["-p", "List the files, then run false", "--allowedTools", "Bash"],
        cwd: project,
        env: {
          ...env,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: "test-key",
          IS_SANDBOX: "1",
          DISABLE_AUTOUPDATER: "1",
          DENO_DIR: denoDir(),
        },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      const decoder = new TextDecoder();
      assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
      assert.equal(model.remaining(), 0, "every scripted turn was played");
      const truth = await transcriptTruth(home.home);
      assert.equal(truth.requestIds.length, 3);
      assert.equal(truth.toolUseIds.length, 2);

      // The exporter sends on its own schedule (and when the client exits): wait for all of it.
      const deadline = Date.now() + 60_000;
      let calls: Array<{ request_id: string; input_tokens: number; output_tokens: number }> = [];
      let tools: Array<{ tool_use_id: string; success: number | null }> = [];
      let points = 0;
      while (Date.now() < deadline) {
        calls = query(
          home,
          `SELECT request_id, input_tokens, output_tokens, duration_ms FROM telemetry_model_calls
           WHERE session_id = ? AND outside_transcript IS NULL ORDER BY request_id`,
          truth.sessionId,
        );
        tools = query(
          home,
          `SELECT tool_use_id, success FROM telemetry_tool_calls WHERE session_id = ?
           ORDER BY tool_use_id`,
          truth.sessionId,
        );
        points = query<{ n: number }>(
          home,
          "SELECT count(*) AS n FROM telemetry_metric_points WHERE name = 'claude_code.token.usage'",
        )[0].n;
        if (
          calls.length >= 3 && tools.every((t) => t.success !== null) && tools.length >= 2 &&
          points > 0
        ) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.deepEqual(calls.map((c) => c.request_id), truth.requestIds, "one row per request");
      assert.equal(calls.reduce((n, c) => n + c.input_tokens, 0), truth.input);
      assert.equal(calls.reduce((n, c) => n + c.output_tokens, 0), truth.output);
      assert.deepEqual(tools.map((t) => t.tool_use_id), truth.toolUseIds);
      assert.deepEqual(tools.map((t) => t.success), [1, 0], "`false` failed");
      assert.ok(points > 0, "metrics arrived");
      const spans = query<{ n: number }>(
        home,
        "SELECT count(*) AS n FROM telemetry_spans WHERE session_id = ?",
        truth.sessionId,
      )[0].n;
      assert.ok(spans > 0, "traces arrived (OTEL_TRACES_EXPORTER and the enhanced beta)");
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
