/**
 * End to end: `vantage install --adapter codex --otel` writes the `[otel]`
 * exporters into a `config.toml` that already names a model provider, and
 * the real Codex CLI, run offline against the scripted Responses server
 * with nothing else set, exports its logs, traces and metrics to `serve`,
 * which reads its model calls (with the scripted tokens) and its tool call;
 * with its rollout tailed beside, the session counts each call once.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { readTomlTable } from "../../src/install/toml_edit.ts";
import { codexBinary, missingClientReason } from "../helpers/agent_clients.ts";
import { type AgentHome, denoDir, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { startScriptedOpenAIServer } from "../helpers/scripted_openai_server.ts";
import { startServe } from "../helpers/serve_process.ts";

const CODEX = codexBinary();
if (CODEX === undefined) {
  console.log(`skipping the Codex install --otel test: ${missingClientReason("codex")}`);
}

function query<T>(home: AgentHome, sql: string): T[] {
  const db = new DatabaseSync(join(home.dataHome, "vantage.db"), { readOnly: true });
  try {
    return (db.prepare(sql).all() as T[]).map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

Deno.test({
  name: "install --otel alone makes the real Codex export its telemetry to serve",
  ignore: CODEX === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "codex-otel");
    await Deno.mkdir(project, { recursive: true });
    // The rollout folder exists before serve starts, so its transcript is tailed at once.
    await Deno.mkdir(join(home.home, ".codex", "sessions"), { recursive: true });
    const server = await startServe(home);
    const model = startScriptedOpenAIServer([
      {
        items: [{ type: "function_call", name: "exec_command", arguments: { cmd: "ls" } }],
        usage: { input_tokens: 1000, output_tokens: 20 },
      },
      {
        items: [{ type: "message", text: "Listed." }],
        usage: { input_tokens: 1100, output_tokens: 5 },
      },
    ]);
    try {
      const config = join(home.home, ".codex", "config.toml");
      await Deno.writeTextFile(
        config,
        `model = "gpt-5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n` +
          `base_url = "${model.url}"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n`,
      );
      const env = Object.fromEntries(
        Object.entries(home.env).filter(([name]) => !name.startsWith("OTEL_")),
      );
      const install = await runVantage(
        ["install", "--adapter", "codex", "--otel", "--no-hooks", "--no-warm"],
        { env: { ...env, VANTAGE_URL: server.url } },
      );
      assert.equal(install.code, 0, install.stderr);
      const otel = readTomlTable(await Deno.readTextFile(config), config, ["otel"]);
      assert.equal(
        (otel?.metrics_exporter as Record<string, Record<string, string>>)["otlp-http"].endpoint,
        `${server.url}/v1/metrics`,
      );

      const run = await new Deno.Command(CODEX!, {
        args: [
          "exec",
          "--skip-git-repo-check",
          "--dangerously-bypass-approvals-and-sandbox",
          "List the files",
        ],
        cwd: project,
        env: { ...env, FAKE_KEY: "test-key", DENO_DIR: denoDir() },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      const decoder = new TextDecoder();
      assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
      assert.equal(model.remaining(), 0, "every scripted turn was played");

      const deadline = Date.now() + 60_000;
      let calls: Array<{ input_tokens: number; output_tokens: number }> = [];
      let tools: Array<{ tool_name: string; success: number | null }> = [];
      let signals: Array<{ spans: number; logs: number; points: number }> = [];
      let sessions: Array<Record<string, number>> = [];
      while (Date.now() < deadline) {
        calls = query(
          home,
          `SELECT input_tokens, output_tokens FROM telemetry_model_calls WHERE agent = 'codex'
           ORDER BY input_tokens`,
        );
        tools = query(home, "SELECT tool_name, success FROM telemetry_tool_calls");
        signals = query(
          home,
          `SELECT (SELECT count(*) FROM telemetry_spans WHERE agent = 'codex') AS spans,
             (SELECT count(*) FROM telemetry_logs WHERE agent = 'codex') AS logs,
             (SELECT count(*) FROM telemetry_metric_points) AS points`,
        );
        sessions = query(
          home,
          `SELECT input_tokens, output_tokens, tool_calls,
             (SELECT count(*) FROM usage u WHERE u.session_id = s.session_id
               AND u.usage_key NOT LIKE 'otel:%') AS transcript_calls,
             (SELECT count(*) FROM usage u WHERE u.usage_key LIKE 'otel:%') AS telemetry_calls
           FROM sessions s WHERE agent = 'codex'`,
        );
        const main = calls.filter((c) => c.input_tokens === 1000 || c.input_tokens === 1100);
        const [got] = signals;
        const read = sessions.length === 1 && sessions[0].transcript_calls >= 2;
        if (main.length >= 2 && tools.length >= 1 && got.spans > 0 && got.points > 0 && read) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      // Both scripted calls, with their tokens (a side request may add one of its own).
      assert.deepEqual(
        calls.filter((c) => c.input_tokens === 1000 || c.input_tokens === 1100),
        [{ input_tokens: 1000, output_tokens: 20 }, { input_tokens: 1100, output_tokens: 5 }],
      );
      assert.deepEqual(tools, [{ tool_name: "exec_command", success: 1 }]);
      const [got] = signals;
      assert.ok(got.logs > 0 && got.spans > 0 && got.points > 0, JSON.stringify(got));
      // Telemetry and rollout name the same session; the rollout counts, each call once.
      assert.deepEqual(sessions, [{
        input_tokens: 2100,
        output_tokens: 25,
        tool_calls: 1,
        transcript_calls: 2,
        telemetry_calls: 0,
      }]);
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
