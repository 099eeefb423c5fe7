/**
 * A runaway SQL query against the real `vantage serve` (shipped permissions,
 * real port) and the real `vantage mcp-serve`: it answers `timeout` (504 over
 * HTTP) at its time limit, a query sent beside it is answered with the right
 * rows, and afterwards no query process is left burning CPU — measured from
 * /proc, not assumed.
 */
import assert from "node:assert/strict";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";
import { processTree, readStat, TICKS_PER_SECOND, treeUsage } from "../helpers/process_tree.ts";
import { startServe } from "../helpers/serve_process.ts";

const LIMIT_MS = 3000;
const RUNAWAY =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c";
const SQUARES =
  "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < 4) SELECT x, x*x AS sq FROM n";
const SQUARE_ROWS = [[1, 1], [2, 4], [3, 9], [4, 16]];

/** The parts of an answer the tests read. */
interface Answer {
  status: number;
  body: {
    rows?: unknown[][];
    truncated?: boolean;
    result?: { rows: unknown[][] };
    error?: { kind: string; message: string };
  };
  ms: number;
}

async function post(url: string, body: unknown): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), ms: performance.now() - started };
}

/** A process that no longer runs: gone, or a zombie its parent has yet to reap. */
function stopped(pid: number): boolean {
  const stat = readStat(pid);
  return stat === undefined || stat.state === "Z";
}

Deno.test("serve: a runaway query is killed at its limit, its neighbour answered, the CPU idle again", async (t) => {
  const home = await makeAgentHome({ fixtures: false });
  const server = await startServe({
    ...home,
    env: { ...home.env, VANTAGE_QUERY_TIMEOUT_MS: String(LIMIT_MS) },
  });
  const serveId = server.child.pid;
  const seen = new Set<number>();
  try {
    await t.step("a first query starts the warm query process", async () => {
      const answer = await post(`${server.url}/api/query`, { sql: SQUARES });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body.rows, SQUARE_ROWS);
      const children = processTree(serveId).filter((stat) => stat.pid !== serveId);
      assert.ok(children.length >= 1, "a query process runs below serve");
      for (const child of children) seen.add(child.pid);
    });

    let spinning = 0;
    await t.step(
      "a runaway query answers 504 timeout; one sent beside it gets its rows",
      async () => {
        const runaway = post(`${server.url}/api/query`, { sql: RUNAWAY });
        const beside = post(`${server.url}/api/query`, { sql: SQUARES, row_limit: 2 });
        const sideAnswer = await beside;
        assert.equal(sideAnswer.status, 200, JSON.stringify(sideAnswer.body));
        assert.deepEqual(sideAnswer.body.rows, SQUARE_ROWS.slice(0, 2));
        assert.equal(sideAnswer.body.truncated, true);

        // While the runaway query runs, one process below serve burns a core: the measure sees it.
        const during = await treeUsage(serveId, 1000);
        for (const stat of during.after) seen.add(stat.pid);
        const [hot, used] = [...during.byPid].sort((a, b) => b[1] - a[1])[0];
        assert.notEqual(hot, serveId, "the query runs outside the server process");
        assert.ok(
          used >= 0.1 * TICKS_PER_SECOND,
          `the runaway process used only ${used} ticks in 1 s`,
        );
        spinning = hot;

        // A query sent while the other spins is answered too.
        const meanwhile = await post(`${server.url}/api/query`, {
          sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'sessions'",
        });
        assert.equal(meanwhile.status, 200, JSON.stringify(meanwhile.body));
        assert.deepEqual(meanwhile.body.rows, [["sessions"]]);

        const answer = await runaway;
        assert.equal(answer.status, 504, JSON.stringify(answer.body));
        assert.equal(answer.body.error?.kind, "timeout");
        assert.match(
          answer.body.error?.message ?? "",
          new RegExp(`within ${LIMIT_MS} ms and was stopped`),
        );
        assert.ok(answer.ms >= LIMIT_MS - 50, `answered after ${answer.ms} ms, before the limit`);
        assert.ok(answer.ms < LIMIT_MS + 5000, `answered after ${answer.ms} ms`);
      },
    );

    await t.step("afterwards the spinning process is gone and the tree is idle", async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(stopped(spinning), `query process ${spinning} still runs`);
      const after = await treeUsage(serveId, 1500);
      const usage = JSON.stringify([...after.byPid]);
      // The idle query processes do nothing; serve itself may do a little of its own work.
      const children = after.total - (after.byPid.get(serveId) ?? 0);
      assert.ok(children <= 3, `the query processes used ${children} ticks in 1.5 s: ${usage}`);
      assert.ok(
        after.total <= 0.1 * TICKS_PER_SECOND,
        `serve and its children used ${after.total} ticks in 1.5 s: ${usage}`,
      );
      for (const stat of after.after) seen.add(stat.pid);
    });

    await t.step("agent.exec_query through the executor answers 504 timeout too", async () => {
      const answer = await post(`${server.url}/api/ops/agent.exec_query`, { sql: RUNAWAY });
      assert.equal(answer.status, 504, JSON.stringify(answer.body));
      assert.equal(answer.body.error?.kind, "timeout");
      assert.ok(answer.ms < LIMIT_MS + 5000, `answered after ${answer.ms} ms`);
      const next = await post(`${server.url}/api/ops/agent.exec_query`, { sql: SQUARES });
      assert.equal(next.status, 200, JSON.stringify(next.body));
      assert.deepEqual(next.body.result?.rows, SQUARE_ROWS);
      for (const stat of processTree(serveId)) seen.add(stat.pid);
    });

    await t.step("a graceful stop leaves no query process behind", async () => {
      assert.equal(await server.stop(), 0);
      seen.delete(serveId);
      assert.ok(seen.size >= 2, "the test saw the query processes it means to check");
      for (const pid of seen) assert.ok(stopped(pid), `query process ${pid} outlived serve`);
    });
  } finally {
    await server.stop();
    await home.cleanup();
  }
});

Deno.test("mcp-serve: exec_query past its limit is a timeout error, and the next query runs", async () => {
  const session = await connectStdio(["--surface", "full"], {
    env: { VANTAGE_QUERY_TIMEOUT_MS: "1500" },
  });
  try {
    const started = performance.now();
    const runaway = await session.client.callTool({
      name: "exec_query",
      arguments: { sql: RUNAWAY },
    });
    const ms = performance.now() - started;
    assert.equal(runaway.isError, true);
    const error = textJson(runaway).error as { kind: string; message: string };
    assert.equal(error.kind, "timeout", JSON.stringify(error));
    assert.match(error.message, /within 1500 ms and was stopped/);
    assert.ok(ms >= 1450 && ms < 1500 + 5000, `answered after ${ms} ms`);
    const next = await session.client.callTool({ name: "exec_query", arguments: { sql: SQUARES } });
    assert.notEqual(next.isError, true, JSON.stringify(next));
    const grid = (next.structuredContent ?? textJson(next)) as { rows: unknown[][] };
    assert.deepEqual(grid.rows, SQUARE_ROWS);
  } finally {
    await session.close();
  }
});
