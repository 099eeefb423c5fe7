/**
 * The real OpenClaw (2026.9.6) runs a whole agent turn offline, `openclaw agent --local`, with
 * a custom OpenAI-compatible provider pointed at a scripted Responses API server. OpenClaw keeps
 * the session in its SQLite store (`agents/main/agent/openclaw-agent.sqlite`, WAL mode), not in
 * JSONL; `serve`, running all along, follows the store as OpenClaw writes it and stores the
 * session: messages, tool calls (a command that exited non-zero as an error), tokens and
 * OpenClaw's own cost, the compressed entry of a large tool result included.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { missingClientReason, openclawBinary, openclawNode } from "../../helpers/agent_clients.ts";
import { makeAgentHome } from "../../helpers/agent_home.ts";
import { startScriptedOpenAIServer } from "../../helpers/scripted_openai_server.ts";
import { startServe } from "../../helpers/serve_process.ts";

const OPENCLAW = openclawBinary();
const NODE = openclawNode();
if (OPENCLAW === undefined) {
  console.log(`skipping the OpenClaw session test: ${missingClientReason("openclaw")}`);
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
  cost_usd: number;
}

function query<T>(dataHome: string, sql: string, ...params: string[]): T[] {
  const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
  try {
    return (db.prepare(sql).all(...params) as T[]).map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

Deno.test({
  name: "a real OpenClaw session in its SQLite store lands in Vantage's store, counted right",
  ignore: OPENCLAW === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "notes");
    await Deno.mkdir(project, { recursive: true });
    // The folder the tailer watches; OpenClaw makes its store inside on the first run.
    await Deno.mkdir(join(home.home, ".openclaw", "agents"), { recursive: true });
    const server = await startServe(home);
    const model = startScriptedOpenAIServer([
      {
        items: [{ type: "function_call", name: "exec", arguments: { command: "ls missing-dir" } }],
        usage: { input_tokens: 8000, cached_input_tokens: 0, output_tokens: 30 },
      },
      {
        // Over 1 KiB of output: OpenClaw stores that entry zstd-compressed.
        items: [{ type: "function_call", name: "exec", arguments: { command: "seq 1 300" } }],
        usage: { input_tokens: 8100, cached_input_tokens: 7900, output_tokens: 20 },
      },
      {
        items: [{ type: "message", text: "missing-dir is not there; counted to 300." }],
        usage: { input_tokens: 9200, cached_input_tokens: 8000, output_tokens: 12 },
      },
    ]);
    await Deno.writeTextFile(
      join(home.home, ".openclaw", "openclaw.json"),
      JSON.stringify({
        models: {
          mode: "replace",
          providers: {
            fake: {
              baseUrl: model.url,
              apiKey: "test-key",
              api: "openai-responses",
              models: [{
                id: "gpt-5",
                name: "gpt-5",
                cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
              }],
            },
          },
        },
        agents: { defaults: { model: "fake/gpt-5", workspace: project } },
      }),
    );
    try {
      const run = await new Deno.Command(NODE!, {
        args: [OPENCLAW!, "agent", "--local", "--agent", "main", "-m", "Look for missing-dir"],
        cwd: project,
        env: { ...home.env, PATH: `${dirname(NODE!)}:${Deno.env.get("PATH") ?? ""}` },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(240_000),
      }).output();
      const decoder = new TextDecoder();
      assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
      assert.equal(model.requests.filter((r) => r.main).length, 3, "every scripted turn played");
      const store = join(
        home.home,
        ".openclaw",
        "agents",
        "main",
        "agent",
        "openclaw-agent.sqlite",
      );
      assert.ok(Deno.statSync(store).isFile);
      // OpenClaw 2026.9 wrote no JSONL transcript: the store is the only record of the session.
      assert.throws(() =>
        Deno.statSync(join(home.home, ".openclaw", "agents", "main", "sessions"))
      );

      const deadline = Date.now() + 30_000;
      let rows: SessionRow[] = [];
      while (Date.now() < deadline) {
        rows = query<SessionRow>(
          home.dataHome,
          `SELECT session_id, cwd, model, message_count, tool_calls, input_tokens, output_tokens,
             cache_read_tokens, cost_usd FROM sessions WHERE agent = 'openclaw'`,
        );
        if (rows.length === 1 && rows[0].output_tokens === 62 && rows[0].message_count === 6) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(rows.length, 1, "one OpenClaw session stored");
      const session = rows[0];
      // user, two exec calls and their results, the answer. OpenClaw reports fresh input apart
      // from cache reads: 8000/0, 200/7900, 1200/8000.
      assert.deepEqual({ ...session, session_id: "", cost_usd: 0 }, {
        session_id: "",
        cwd: project,
        model: "gpt-5",
        message_count: 6,
        tool_calls: 2,
        input_tokens: 9400,
        output_tokens: 62,
        cache_read_tokens: 15900,
        cost_usd: 0,
      });
      // gpt-5 at 1.25 / 10 / 0.125 USD per million, the same for OpenClaw and Vantage's table.
      const expectedCost = (9400 * 1.25 + 62 * 10 + 15900 * 0.125) / 1e6;
      assert.ok(Math.abs(session.cost_usd - expectedCost) < 1e-9, `${session.cost_usd}`);

      const results = query<{ text: string; is_error: number | null }>(
        home.dataHome,
        `SELECT text, is_error FROM messages
         WHERE agent = 'openclaw' AND message_type = 'tool_result' ORDER BY ts, id`,
      );
      // `ls missing-dir` exited 2 (OpenClaw: isError false, details.exitCode 2).
      assert.deepEqual(results.map((r) => r.is_error ?? 0), [1, 0]);
      assert.match(results[0].text, /No such file or directory/);
      // The compressed entry was decoded: all 300 lines.
      assert.equal(results[1].text.split("\n").length, 300);

      // Read from the store, session by session, to its last entry.
      const raw = new DatabaseSync(store, { readOnly: true });
      const last = raw.prepare(
        "SELECT max(seq) AS seq, sum(event_zstd IS NOT NULL) AS compressed FROM transcript_events WHERE session_id = ?",
      ).get(session.session_id) as { seq: number; compressed: number };
      raw.close();
      assert.equal(last.compressed, 1);
      const cursor = query<{ byte_offset: number }>(
        home.dataHome,
        "SELECT byte_offset FROM transcript_files WHERE path = ?",
        `${store}#${session.session_id}`,
      );
      assert.deepEqual(cursor, [{ byte_offset: last.seq + 1 }]);
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
