/**
 * `vantage ingest` over real transcript files of every agent: exact counts
 * of sessions, messages, tool calls and de-duplicated tokens in the store.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";

interface Totals {
  agent: string;
  messages: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

// Hand-checked against the fixture files (see tests/fixtures/transcripts/README.md).
const EXPECTED: Record<
  string,
  Omit<Totals, "agent"> & { usage: number; byType: Record<string, number> }
> = {
  claude_code: {
    // Two sessions, each main transcript plus its sub-agents' files (one, then three), the
    // parents' counts including their sub-agents'.
    messages: 16 + 36,
    tool_calls: 5 + 9,
    usage: 7 + 13,
    input_tokens: 1315 + 1850 + 68,
    output_tokens: 180 + 24 + 2027,
    cache_read_tokens: 12900 + 49980,
    cache_write_tokens: 3360 + 20350,
    reasoning_tokens: 0,
    byType: {
      user: 8,
      thinking: 1,
      assistant: 10,
      tool_use: 14,
      tool_result: 14,
      api_error: 2,
      compaction: 1,
      system: 2,
    },
  },
  codex: {
    messages: 9,
    tool_calls: 2,
    usage: 3,
    input_tokens: 1400,
    output_tokens: 82,
    cache_read_tokens: 1900,
    cache_write_tokens: 0,
    reasoning_tokens: 16,
    byType: { system: 2, user: 1, thinking: 1, tool_use: 2, tool_result: 2, assistant: 1 },
  },
  copilot_cli: {
    messages: 11,
    tool_calls: 4,
    usage: 5,
    input_tokens: 10000,
    output_tokens: 172,
    cache_read_tokens: 36400,
    cache_write_tokens: 0,
    reasoning_tokens: 20,
    byType: { user: 1, thinking: 1, assistant: 1, tool_use: 4, tool_result: 4 },
  },
  // The same session twice: the SQLite store and the JSONL form of its entries. Stored once.
  openclaw: {
    messages: 11,
    tool_calls: 4,
    usage: 5,
    input_tokens: 14400,
    output_tokens: 135,
    cache_read_tokens: 48400,
    cache_write_tokens: 0,
    reasoning_tokens: 14,
    byType: { user: 1, thinking: 1, assistant: 1, tool_use: 4, tool_result: 4 },
  },
};

/** Sums over top-level sessions: a sub-agent's counts are already in its parent's. */
function totals(db: DatabaseSync): Map<string, Totals> {
  const rows = db.prepare(`
    SELECT agent, sum(message_count) AS messages, sum(tool_calls) AS tool_calls,
      sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
      sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
      sum(reasoning_tokens) AS reasoning_tokens
    FROM sessions WHERE is_subagent = 0 GROUP BY agent`).all() as unknown as Totals[];
  return new Map(rows.map((row) => [row.agent, row]));
}

Deno.test("ingest stores every agent's transcripts with exact counts, and a rerun adds nothing", async () => {
  const home = await makeAgentHome();
  try {
    const run = await runVantage(["ingest", "--json"], { env: home.env });
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    // Claude's two sessions and their four sub-agent files, Codex, Copilot, OpenClaw's store and JSONL.
    assert.equal(report.files, 6 + 1 + 1 + 2);
    assert.equal(report.messages, 52 + 9 + 11 + 11);
    // Tool calls seen while reading: OpenClaw's four are read twice, stored once.
    assert.equal(report.tool_calls, 14 + 2 + 4 + 4 * 2);
    assert.equal(report.skipped_lines, 0);

    const db = new DatabaseSync(`${home.dataHome}/vantage.db`, { readOnly: true });
    try {
      const byAgent = totals(db);
      for (const [agent, expected] of Object.entries(EXPECTED)) {
        const actual = byAgent.get(agent);
        assert.ok(actual !== undefined, agent);
        const { usage: _usage, byType, ...sums } = expected;
        assert.deepEqual({ ...actual, agent: undefined }, { ...sums, agent: undefined }, agent);
        const types = db.prepare(
          "SELECT message_type, count(*) AS n FROM messages WHERE agent = ? GROUP BY message_type",
        ).all(agent) as Array<{ message_type: string; n: number }>;
        assert.deepEqual(
          Object.fromEntries(types.map((t) => [t.message_type, t.n])),
          byType,
          agent,
        );
        const usage = db.prepare("SELECT count(*) AS n FROM usage WHERE agent = ?").get(agent) as {
          n: number;
        };
        assert.equal(usage.n, expected.usage, agent);
      }
      // cwd comes from the records, never from the encoded folder name.
      const claude = db.prepare(
        "SELECT cwd FROM sessions WHERE session_id = '843adfa2-d81e-4a0f-a04c-dee7a420fb51'",
      ).get() as { cwd: string };
      assert.equal(claude.cwd, "/home/fixture/project");
    } finally {
      db.close();
    }

    const again = await runVantage(["ingest", "--json"], { env: home.env });
    const second = JSON.parse(again.stdout);
    assert.equal(second.files, 0);
    assert.equal(second.messages, 0);
  } finally {
    await home.cleanup();
  }
});

Deno.test("ingest refuses unknown agents and bad --since values clearly", async () => {
  const home = await makeAgentHome({ fixtures: false });
  try {
    const agent = await runVantage(["ingest", "--agent", "vim"], { env: home.env });
    assert.equal(agent.code, 2);
    assert.match(agent.stderr, /unknown agent 'vim'/);
    const since = await runVantage(["ingest", "--since", "yesterday-ish"], { env: home.env });
    assert.equal(since.code, 2);
    assert.match(since.stderr, /--since must look like/);
    const filtered = await runVantage(["ingest", "--agent", "codex", "--since", "1d", "--json"], {
      env: home.env,
    });
    assert.equal(filtered.code, 0, filtered.stderr);
  } finally {
    await home.cleanup();
  }
});
