/**
 * The real GitHub Copilot CLI runs a whole session offline: its bring-your-own-provider settings
 * (`COPILOT_OFFLINE`, `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_WIRE_API=responses`) point
 * it at a scripted Responses API server, so no GitHub sign-in is needed. With Vantage installed
 * and `serve` running, the session's hooks and its `events.jsonl` land in the store: messages,
 * tool calls, tokens, and commands that exited non-zero (which Copilot reports as successes)
 * as failures, so a build failing three times reaches the model as `repeated_failed_build`.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { copilotBinary, missingClientReason } from "../../helpers/agent_clients.ts";
import { denoDir, makeAgentHome } from "../../helpers/agent_home.ts";
import { runVantage } from "../../helpers/cli.ts";
import { startScriptedOpenAIServer } from "../../helpers/scripted_openai_server.ts";
import { startServe } from "../../helpers/serve_process.ts";

const COPILOT = copilotBinary();
if (COPILOT === undefined) {
  console.log(`skipping the Copilot CLI session test: ${missingClientReason("copilot")}`);
}

interface SessionRow {
  session_id: string;
  cwd: string;
  model: string;
  message_count: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  event_count: number;
}

function query<T>(dataHome: string, sql: string): T[] {
  const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
  try {
    return (db.prepare(sql).all() as T[]).map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

Deno.test({
  name: "a real Copilot CLI session lands in the store, counted right, and its failures count",
  ignore: COPILOT === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "site");
    await Deno.mkdir(project, { recursive: true });
    const env = { ...home.env, VANTAGE_ROOTS: project };
    const install = await runVantage(["install", "--adapter", "copilot-cli"], { env });
    assert.equal(install.code, 0, install.stderr);
    const server = await startServe({ ...home, env }, [], [project]);
    const build = {
      type: "function_call" as const,
      name: "bash",
      arguments: { command: "make build-zeta", description: "Build" },
    };
    const model = startScriptedOpenAIServer([
      {
        items: [{
          type: "function_call",
          name: "bash",
          arguments: { command: "echo hi > a.txt && cat a.txt", description: "Write a.txt" },
        }],
        usage: { input_tokens: 5000, cached_input_tokens: 0, output_tokens: 40 },
      },
      {
        items: [build],
        usage: { input_tokens: 5200, cached_input_tokens: 4800, output_tokens: 20 },
      },
      {
        items: [build],
        usage: { input_tokens: 5300, cached_input_tokens: 5100, output_tokens: 20 },
      },
      {
        items: [build],
        usage: { input_tokens: 5400, cached_input_tokens: 5200, output_tokens: 20 },
      },
      {
        items: [{ type: "message", text: "a.txt says hi; the zeta target does not exist." }],
        usage: { input_tokens: 5500, cached_input_tokens: 5300, output_tokens: 10 },
      },
    ]);
    try {
      const run = await new Deno.Command(COPILOT!, {
        args: ["-p", "Write a.txt and build the zeta target", "--allow-all-tools"],
        cwd: project,
        env: {
          ...env,
          COPILOT_OFFLINE: "true",
          COPILOT_PROVIDER_BASE_URL: model.url,
          COPILOT_PROVIDER_API_KEY: "test-key",
          COPILOT_PROVIDER_WIRE_API: "responses",
          COPILOT_MODEL: "gpt-5",
          COPILOT_AUTO_UPDATE: "false",
          VANTAGE_URL: server.url,
          DENO_DIR: denoDir(),
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      const decoder = new TextDecoder();
      assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
      const main = model.requests.filter((r) => r.main);
      assert.equal(main.length, 5, "every scripted turn played");
      // Copilot reported each `make` that exited 2 as `resultType: "success"`; Vantage counted
      // them as failures, and its answer to the third one's hook reached the model.
      assert.doesNotMatch(JSON.stringify(main[3].body), /repeated_failed_build/);
      assert.match(JSON.stringify(main[4].body), /<vantage-context>/);
      assert.match(
        JSON.stringify(main[4].body),
        /repeated_failed_build: `make build-zeta` failed 3 times/,
      );

      // The tailer reads events.jsonl as it grows; wait for the last usage record.
      const deadline = Date.now() + 20_000;
      let rows: SessionRow[] = [];
      while (Date.now() < deadline) {
        rows = query<SessionRow>(
          home.dataHome,
          `SELECT session_id, cwd, model, message_count, tool_calls, input_tokens, output_tokens,
             cache_read_tokens, event_count FROM sessions WHERE agent = 'copilot_cli'`,
        );
        if (rows.length === 1 && rows[0].output_tokens === 110 && rows[0].message_count === 10) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(rows.length, 1);
      const session = rows[0];
      const folders = [...Deno.readDirSync(join(home.home, ".copilot", "session-state"))]
        .filter((entry) => entry.isDirectory && !entry.name.startsWith("."))
        .map((entry) => entry.name);
      assert.deepEqual(folders, [session.session_id]);
      // user, four tool calls and their results, the final answer; fresh input apart from cache.
      assert.deepEqual({ ...session, session_id: "", event_count: 0 }, {
        session_id: "",
        cwd: project,
        model: "gpt-5",
        message_count: 10,
        tool_calls: 4,
        input_tokens: 5000 + 400 + 200 + 200 + 200,
        output_tokens: 110,
        cache_read_tokens: 4800 + 5100 + 5200 + 5300,
        event_count: 0,
      });
      assert.ok(session.event_count >= 12, `hook events: ${session.event_count}`);

      // The hooks: each `make` exited 2 and Copilot said "success"; Vantage says failure.
      const posts = query<{ event_type: string; command: string; success: number; error: string }>(
        home.dataHome,
        `SELECT event_type, command, success, error FROM events
         WHERE agent = 'copilot_cli' AND event_type LIKE 'PostToolUse%' ORDER BY id`,
      );
      assert.deepEqual(posts.map((p) => [p.event_type, p.command, p.success]), [
        ["PostToolUse", "echo hi > a.txt && cat a.txt", 1],
        ["PostToolUseFailure", "make build-zeta", 0],
        ["PostToolUseFailure", "make build-zeta", 0],
        ["PostToolUseFailure", "make build-zeta", 0],
      ]);
      assert.match(posts[1].error, /^Exit code 2\nmake: \*\*\* No rule to make target/);
      // The transcript says so too.
      const results = query<{ is_error: number | null }>(
        home.dataHome,
        `SELECT is_error FROM messages
         WHERE agent = 'copilot_cli' AND message_type = 'tool_result' ORDER BY id`,
      );
      assert.deepEqual(results.map((r) => r.is_error ?? 0), [0, 1, 1, 1]);
      const kinds = query<{ kind: string }>(home.dataHome, "SELECT kind FROM anomalies")
        .map((r) => r.kind);
      assert.ok(kinds.includes("repeated_failed_build"), kinds.join(","));
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
