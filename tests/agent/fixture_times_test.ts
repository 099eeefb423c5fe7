/**
 * Every session of every fixture corpus (the recorded transcripts of all four agents, and the
 * usage-parity corpus with its snapshot lines first, resumed sessions and sub-agents) starts in
 * this century or says its start is unknown, and no duration is negative: what the dashboard
 * and `list_sessions` show after a backfill.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { copy } from "../helpers/copy_tree.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";

const CORPUS = new URL("../fixtures/usage_parity/", import.meta.url).pathname;
const YEAR_2000 = Date.UTC(2000, 0, 1);

interface Row {
  session_id: string;
  agent: string;
  started_at: number;
  last_activity_at: number;
}

async function backfilledSessions(withParityCorpus: boolean): Promise<Row[]> {
  const home = await makeAgentHome({ fixtures: !withParityCorpus });
  try {
    if (withParityCorpus) {
      await copy(`${CORPUS}claude`, `${home.home}/.claude`, () => true);
      await copy(`${CORPUS}codex`, `${home.home}/.codex`, () => true);
    }
    const run = await runVantage(["ingest", "--json"], { env: home.env });
    assert.equal(run.code, 0, run.stderr);
    const db = new DatabaseSync(`${home.dataHome}/vantage.db`, { readOnly: true });
    try {
      return db.prepare(
        "SELECT session_id, agent, started_at, last_activity_at FROM sessions ORDER BY session_id",
      ).all() as unknown as Row[];
    } finally {
      db.close();
    }
  } finally {
    await home.cleanup();
  }
}

function assertTimes(rows: Row[], agents: number): void {
  assert.ok(rows.length > 0);
  assert.equal(new Set(rows.map((r) => r.agent)).size, agents);
  for (const row of rows) {
    const where = `${row.agent} ${row.session_id}`;
    // 0 is "unknown" (shown as such); any other start is a real time in this century.
    if (row.started_at !== 0) {
      assert.ok(row.started_at >= YEAR_2000, `${where} starts ${new Date(row.started_at)}`);
      assert.ok(row.last_activity_at >= row.started_at, `${where} ends before it starts`);
    }
  }
}

Deno.test("recorded fixtures of all four agents: no start before 2000, no negative duration", async () => {
  const rows = await backfilledSessions(false);
  assertTimes(rows, 4);
  // Every recorded session has a time somewhere in it.
  assert.deepEqual(rows.filter((r) => r.started_at === 0).map((r) => r.session_id), []);
});

Deno.test("usage-parity corpus (snapshot lines first, resumes, sub-agents): the same", async () => {
  const rows = await backfilledSessions(true);
  assertTimes(rows, 2);
  assert.deepEqual(rows.filter((r) => r.started_at === 0).map((r) => r.session_id), []);
});
