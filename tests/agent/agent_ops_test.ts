/**
 * The ten `agent` operations over real stdio MCP (the `full` surface keeps
 * TMA1's tool names), on a store filled from real transcripts and hooks.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { connectStdio, type StdioSession, textJson } from "../helpers/mcp_stdio.ts";

const CLAUDE = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";
const WEBAPP = "5f3c9e2a-7b41-4d8e-9a10-3c2b8e6d4f71";
const CODEX = "01a22dbd-a9bf-7572-b5d3-c10ec2a7c6c9";
const PROJECT = "/home/fixture/project";

async function setup(caller = "claude_code"): Promise<{ home: AgentHome; session: StdioSession }> {
  const home = await makeAgentHome();
  const ingest = await runVantage(["ingest"], { env: home.env });
  assert.equal(ingest.code, 0, ingest.stderr);
  const cwd = await Deno.makeTempDir({ dir: home.home });
  const session = await connectStdio(["--surface", "full"], {
    home: home.dataHome,
    env: { HOME: home.home, DENO_DIR: home.env.DENO_DIR, VANTAGE_MCP_CALLER: caller },
    cwd,
  });
  return { home, session };
}

async function call(session: StdioSession, name: string, args: Record<string, unknown>) {
  const result = await session.client.callTool({ name, arguments: args });
  return {
    result,
    body: (result.structuredContent ?? textJson(result)) as Record<string, unknown>,
  };
}

Deno.test("agent operations over the full MCP surface, on real transcripts", async (t) => {
  const { home, session } = await setup();
  try {
    await t.step("the ten tools keep TMA1's names", async () => {
      const { tools } = await session.client.listTools();
      const names = tools.map((tool) => tool.name);
      for (
        const name of [
          "get_context_bundle",
          "get_session_state",
          "get_anomalies",
          "get_build_status",
          "get_external_changes",
          "get_project_state",
          "get_peer_sessions",
          "search_sessions",
          "get_session_transcript",
          "exec_query",
        ]
      ) assert.ok(names.includes(name), name);
    });

    await t.step("get_peer_sessions fans out over every agent but the caller", async () => {
      const { body } = await call(session, "get_peer_sessions", {
        project: PROJECT,
        since_min: 525_600,
      });
      const sessions = body.sessions as Array<
        { agent_source: string; session_id: string; messages?: unknown[] }
      >;
      assert.equal(body.agent_filter, "");
      // The recorded Codex, Copilot CLI and OpenClaw sessions ran in the same folder, most
      // recent first.
      assert.deepEqual(sessions.map((s) => s.agent_source), ["openclaw", "copilot_cli", "codex"]);
      const codex = sessions.find((s) => s.agent_source === "codex");
      assert.equal(codex?.session_id, CODEX);
      assert.equal(codex?.messages?.length, 3); // preview = 3 messages
      assert.equal(
        (body.most_recent_session as { session_id: string }).session_id,
        sessions[0].session_id,
      );

      const self = await call(session, "get_peer_sessions", {
        agent_source: "me",
        project: PROJECT,
        since_min: 525_600,
        detail: "summary",
      });
      const own = self.body.sessions as Array<
        { session_id: string; is_latest_for_cwd?: boolean; messages?: unknown }
      >;
      assert.equal(self.body.agent_filter, "self");
      assert.equal(own[0].session_id, CLAUDE);
      assert.equal(own[0].messages, undefined);

      const alias = await call(session, "get_peer_sessions", {
        agent_source: "copilot",
        project: "project",
        since_min: 525_600,
      });
      assert.equal((alias.body.sessions as unknown[]).length, 1);

      const none = await call(session, "get_peer_sessions", { project: "/nowhere", since_min: 60 });
      assert.equal(none.body.count, 0);
      assert.match(none.body.note as string, /no peer sessions/);

      const bad = await call(session, "get_peer_sessions", { agent_source: "vim" });
      assert.equal(bad.result.isError, true);
      assert.match(JSON.stringify(bad.body), /unknown agent_source 'vim'/);
    });

    await t.step("search_sessions: term pass, then case-folded substring pass", async () => {
      const term = await call(session, "search_sessions", {
        query: "hello",
        project: "*",
        since_min: 525_600,
      });
      assert.equal(term.body.match_mode, "term");
      const hits = term.body.sessions as Array<
        { session_id: string; hit_count: number; snippets: Array<{ text: string }> }
      >;
      assert.ok(hits.length >= 1);
      assert.ok(hits[0].snippets[0].text.toLowerCase().includes("hello"));
      // "ello.tx" is inside a word: only the substring pass finds it.
      const sub = await call(session, "search_sessions", {
        query: "ELLO.TX",
        project: "*",
        since_min: 525_600,
      });
      assert.equal(sub.body.match_mode, "substring");
      assert.ok((sub.body.sessions as unknown[]).length >= 1);
      const scoped = await call(session, "search_sessions", {
        query: "hello",
        project: "/home/fixture/project",
        since_min: 525_600,
      });
      const inProject = scoped.body.sessions as Array<{ cwd: string }>;
      assert.ok(inProject.length >= 1);
      assert.ok(inProject.every((s) => s.cwd === "/home/fixture/project"));
      const elsewhere = await call(session, "search_sessions", {
        query: "hello",
        project: "/home/fixture/elsewhere",
        since_min: 525_600,
      });
      assert.equal(elsewhere.body.count, 0);
      const nothing = await call(session, "search_sessions", {
        query: "zzqqxx",
        project: "*",
        since_min: 525_600,
      });
      assert.equal(nothing.body.count, 0);
      assert.match(nothing.body.note as string, /nothing matched/);
    });

    await t.step(
      "get_session_transcript: exact id, prefix, ambiguous prefix, paging, filters",
      async () => {
        const full = await call(session, "get_session_transcript", {
          session_id: CLAUDE,
          message_limit: 5,
        });
        assert.equal(full.body.session_id, CLAUDE);
        assert.equal((full.body.messages as unknown[]).length, 5);
        assert.equal(full.body.has_more, true);
        assert.equal(full.body.next_offset, 5);
        const older = await call(session, "get_session_transcript", {
          session_id: CLAUDE,
          message_limit: 200,
          offset: 5,
        });
        // The parent's own 12: its sub-agent's 4 are in the sub-agent's own session.
        assert.equal((older.body.messages as unknown[]).length, 12 - 5);
        assert.equal(older.body.has_more, false);
        const prefix = await call(session, "get_session_transcript", {
          session_id: CODEX.slice(0, 8),
        });
        assert.equal(prefix.body.session_id, CODEX);
        // The parent id is a prefix of its sub-agent session's id: exact match wins, and a
        // prefix of the parent's id names the parent alone.
        const exact = await call(session, "get_session_transcript", { session_id: CLAUDE });
        assert.equal(exact.body.candidates, undefined);
        const parentPrefix = await call(session, "get_session_transcript", {
          session_id: CLAUDE.slice(0, 10),
        });
        assert.equal(parentPrefix.body.session_id, CLAUDE);
        // Two sub-agents of one session share a prefix past their parent's id.
        const ambiguous = await call(session, "get_session_transcript", {
          session_id: `${WEBAPP}/agent-a`,
        });
        assert.equal((ambiguous.body.candidates as unknown[]).length, 2);
        assert.match(ambiguous.body.note as string, /matches 2 sessions/);
        const child = await call(session, "get_session_transcript", {
          session_id: `${WEBAPP}/agent-b`,
          message_limit: 200,
        });
        assert.equal(child.body.session_id, `${WEBAPP}/agent-b27d9e4`);
        assert.equal((child.body.messages as unknown[]).length, 6);
        const tools = await call(session, "get_session_transcript", {
          session_id: CLAUDE,
          message_type: "tool_use",
        });
        assert.ok(
          (tools.body.messages as Array<{ message_type: string }>).every((m) =>
            m.message_type === "tool_use"
          ),
        );
        const cut = await call(session, "get_session_transcript", {
          session_id: CODEX,
          content_chars: 100,
          message_limit: 200,
        });
        for (const m of cut.body.messages as Array<{ text: string; truncated?: boolean }>) {
          assert.ok([...m.text].length <= 101);
        }
      },
    );

    await t.step("get_session_state and get_context_bundle for a session", async () => {
      const state = await call(session, "get_session_state", { session_id: CLAUDE, verbose: true });
      assert.equal(state.body.agent_source, "claude_code");
      assert.equal(state.body.tool_calls, 5);
      assert.equal((state.body.tokens as { output: number }).output, 204);
      assert.ok(Array.isArray(state.body.actions));
      const bundle = await call(session, "get_context_bundle", { session_id: CODEX });
      assert.equal((bundle.body.session as { session_id: string }).session_id, CODEX);
      assert.equal((bundle.body.build as { status: string }).status, "unknown");
      const missing = await call(session, "get_session_state", { session_id: "no-such-session" });
      assert.equal(missing.result.isError, true);
    });

    await t.step("empty perception tables give correct empty answers", async () => {
      const anomalies = await call(session, "get_anomalies", { session_id: CLAUDE });
      assert.equal(anomalies.body.count, 0);
      const build = await call(session, "get_build_status", {});
      assert.equal(build.body.status, "unknown");
      assert.equal(build.body.stale, false);
      const changes = await call(session, "get_external_changes", { since_min: 60 });
      assert.equal(changes.body.count, 0);
      const project = await call(session, "get_project_state", {});
      assert.equal(project.body.indexed, false);
    });

    await t.step("exec_query: one SELECT, capped, and no statement can write", async () => {
      const ok = await call(session, "exec_query", {
        sql: "SELECT agent, count(*) AS n FROM sessions GROUP BY agent ORDER BY agent",
      });
      assert.deepEqual(ok.body.columns, ["agent", "n"]);
      assert.equal(ok.body.row_count, 4);
      const capped = await call(session, "exec_query", {
        sql: "SELECT text FROM messages",
        row_limit: 3,
        cell_chars: 100,
      });
      assert.equal(capped.body.row_count, 3);
      assert.equal(capped.body.truncated, true);
      for (
        const sql of [
          "DELETE FROM sessions",
          "SELECT 1; DELETE FROM sessions",
          "WITH x AS (SELECT 1) DELETE FROM sessions",
          "WITH x AS (SELECT 1) DELETE FROM sessions RETURNING session_id",
          "DELETE FROM sessions RETURNING session_id",
          "UPDATE sessions SET agent = 'x'",
          "PRAGMA query_only = 0",
          "ATTACH DATABASE '/tmp/x.db' AS x",
        ]
      ) {
        const refused = await call(session, "exec_query", { sql });
        assert.equal(refused.result.isError, true, sql);
      }
      const db = new DatabaseSync(`${home.dataHome}/vantage.db`, { readOnly: true });
      // Five sessions and the four sub-agent runs of the two Claude Code ones.
      assert.equal((db.prepare("SELECT count(*) AS n FROM sessions").get() as { n: number }).n, 9);
      db.close();
    });
  } finally {
    await session.close();
    await home.cleanup();
  }
});
