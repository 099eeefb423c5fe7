/**
 * The real Claude Code client, offline against a scripted model, with
 * Vantage installed: the scripted session writes a file, the file is changed
 * underneath it, a build fails three times, and the agent then edits the
 * file. What Claude Code sends the model next carries a <vantage-context>
 * block naming those anomalies.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeBinary, missingClientReason } from "../helpers/agent_clients.ts";
import { denoDir, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  type ScriptTurn,
  startScriptedAnthropicServer,
} from "../helpers/scripted_anthropic_server.ts";
import { startServe } from "../helpers/serve_process.ts";

const CLAUDE = claudeBinary();
if (CLAUDE === undefined) {
  console.log(`skipping the Claude Code context test: ${missingClientReason("claude")}`);
}

/** Runs one `claude -p` session in `cwd` against the scripted model, with Vantage's server. */
async function runClaude(
  prompt: string,
  allowedTools: string,
  cwd: string,
  env: Record<string, string>,
  modelUrl: string,
  serverUrl: string,
): Promise<void> {
  const run = await new Deno.Command(CLAUDE!, {
    args: ["-p", prompt, "--allowedTools", allowedTools],
    cwd,
    env: {
      ...env,
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: "test-key",
      IS_SANDBOX: "1",
      DISABLE_AUTOUPDATER: "1",
      // Connect MCP servers before the first model request (recent versions may connect them in
      // the background, so on a loaded machine the scripted first turn could find no tools).
      MCP_CONNECTION_NONBLOCKING: "false",
      MCP_TIMEOUT: "60000",
      VANTAGE_URL: serverUrl,
      DENO_DIR: denoDir(),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(180_000),
  }).output();
  const decoder = new TextDecoder();
  assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
}

function bodyText(body: unknown): string {
  return JSON.stringify(body ?? "");
}

Deno.test({
  name: "Claude Code's next model request carries a <vantage-context> block naming the anomalies",
  ignore: CLAUDE === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "app");
    await Deno.mkdir(project, { recursive: true });
    const file = join(project, "app.txt");
    const env = { ...home.env, VANTAGE_ROOTS: project };
    const install = await runVantage(["install", "--adapter", "claude-code"], { env });
    assert.equal(install.code, 0, install.stderr);
    const server = await startServe({ ...home, env }, [], [project]);

    let changedAt = 0;
    const turns: ScriptTurn[] = [
      {
        blocks: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "v1\n" } }],
      },
      {
        blocks: [{
          type: "tool_use",
          name: "Bash",
          input: { command: "npm run build", description: "build" },
        }],
      },
      {
        blocks: [{
          type: "tool_use",
          name: "Bash",
          input: { command: "npm run build", description: "build" },
        }],
      },
      {
        blocks: [{
          type: "tool_use",
          name: "Bash",
          input: { command: "npm run build", description: "build" },
        }],
      },
      {
        blocks: [{
          type: "tool_use",
          name: "Edit",
          input: { file_path: file, old_string: "v1", new_string: "v2" },
        }],
      },
      { blocks: [{ type: "text", text: "Done." }] },
    ];
    const model = startScriptedAnthropicServer(turns, {
      beforeTurn: async (index) => {
        if (index !== 1) return;
        // A change within a few seconds of the agent's own write is attributed to the agent, so
        // "someone else" comes a little later, as a person would.
        await new Promise((resolve) => setTimeout(resolve, 5500));
        // Someone else changes the file the agent just wrote. Its mtime is put back so Claude
        // Code's own guard does not notice; only Vantage's watcher does.
        const stat = await Deno.stat(file);
        await Deno.writeTextFile(file, "v1\nchanged by someone else\n");
        await Deno.utime(file, stat.atime ?? new Date(), stat.mtime ?? new Date());
        changedAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 1500)); // the watcher's debounce
      },
    });
    try {
      await runClaude(
        "Build the app and update app.txt",
        "Bash,Read,Edit,Write",
        project,
        env,
        model.url,
        server.url,
      );
      assert.ok(changedAt > 0, "the file was changed under the agent");
      const main = model.requests.filter((r) => r.main);
      assert.equal(main.length, turns.length, "every scripted turn was played");

      // After the third failed build, the next request names repeated_failed_build.
      const afterThirdFailure = bodyText(main[4].body);
      assert.match(afterThirdFailure, /<vantage-context>/);
      assert.match(afterThirdFailure, /repeated_failed_build/);
      // After the edit of the file changed underneath, the next request names stale_file_view.
      const afterEdit = bodyText(main[5].body);
      assert.match(afterEdit, /<vantage-context>/);
      assert.match(afterEdit, /stale_file_view/);
      assert.match(afterEdit, /app\.txt/);

      // The same anomalies are in the store, with the session Claude Code reported.
      const anomalies = await runVantage([
        "call",
        "agent.exec_query",
        JSON.stringify({
          sql: "SELECT kind, session_id FROM anomalies ORDER BY kind",
        }),
      ], { env });
      assert.equal(anomalies.code, 0, anomalies.stderr);
      const kinds = (JSON.parse(anomalies.stdout).rows as string[][]).map((r) => r[0]);
      assert.ok(kinds.includes("repeated_failed_build"), kinds.join(","));
      assert.ok(kinds.includes("stale_file_view"), kinds.join(","));
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});

Deno.test({
  name:
    "Claude Code calls Vantage's MCP search and execute; hooks and transcript land in the store",
  ignore: CLAUDE === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "tools");
    await Deno.mkdir(project, { recursive: true });
    const env = { ...home.env, VANTAGE_ROOTS: project };
    const install = await runVantage(["install", "--adapter", "claude-code"], { env });
    assert.equal(install.code, 0, install.stderr);
    const server = await startServe({ ...home, env }, [], [project]);
    const model = startScriptedAnthropicServer([
      {
        blocks: [{
          type: "tool_use",
          name: "mcp__vantage__search",
          input: { query: "what other agents did" },
        }],
      },
      {
        blocks: [{
          type: "tool_use",
          name: "mcp__vantage__execute",
          input: { operation_id: "agent.get_session_state", arguments: {} },
        }],
      },
      { blocks: [{ type: "text", text: "All set." }] },
    ]);
    try {
      await runClaude(
        "What do you know about this project?",
        "mcp__vantage",
        project,
        env,
        model.url,
        server.url,
      );
      const main = model.requests.filter((r) => r.main);
      assert.equal(main.length, 3);
      // The search result Vantage returned reached the model as the tool result.
      const afterSearch = bodyText(main[1].body);
      assert.match(afterSearch, /agent\.get_peer_sessions/);
      // The execute result: this very session's state, found from the project folder.
      const afterExecute = bodyText(main[2].body);
      assert.match(afterExecute, /agent\.get_session_state/);
      assert.match(afterExecute, /claude_code/);

      // Hooks fired with the session id and cwd Claude Code reported; the transcript was tailed.
      const deadline = Date.now() + 15_000;
      let rows: string[][] = [];
      while (Date.now() < deadline) {
        const query = await runVantage([
          "call",
          "agent.exec_query",
          JSON.stringify({
            sql:
              "SELECT s.session_id, s.cwd, s.event_count, s.message_count FROM sessions s WHERE s.agent = 'claude_code'",
          }),
        ], { env });
        rows = JSON.parse(query.stdout).rows;
        if (rows.length === 1 && Number(rows[0][3]) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(rows.length, 1);
      const [sessionId, cwd, events, messages] = rows[0];
      assert.equal(cwd, project);
      assert.ok(Number(events) >= 4, `hook events stored: ${events}`);
      assert.ok(Number(messages) >= 4, `transcript messages stored: ${messages}`);
      assert.match(afterExecute, new RegExp(String(sessionId).slice(0, 8)));
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
