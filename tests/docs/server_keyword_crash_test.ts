/**
 * The real `vantage serve` on PostgreSQL killed with SIGKILL in the middle of a large `docs.add`
 * over HTTP: whatever moment the kill lands on, every latest text document it stored is in the
 * keyword index or queued for it (the write queues its change in its own transaction), and once
 * the queue's wait is over the next add on a restarted server catches the index up —
 * `docs.verify` then finds no document missing from it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import postgres from "postgres";
import { ABANDONED_AFTER_MS } from "../../src/docs/doc_index.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";

const FILES = 800;
/** Documents stored before the kill: well into the add, well before its end. */
const KILL_AFTER = 150;

async function callOp(
  server: ServeProcess,
  token: string,
  id: string,
  args: Record<string, unknown>,
) {
  const response = await fetch(`${server.url}/api/ops/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test({
  name: "serve on PostgreSQL killed mid-add: its keyword changes are queued, then caught up",
  ignore: skipWithoutPostgres("the keyword index crash test"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const store = `${await sharedPostgresCluster()
      .createDatabase()}?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`;
    home.env.VANTAGE_STORE = store;
    const user = await runVantage(["team", "add-user", "ada"], { env: home.env });
    assert.equal(user.code, 0, user.stderr);
    const token = user.stdout.trim();
    const folder = await Deno.makeTempDir({ prefix: "vantage-crash-add-" });
    for (let i = 0; i < FILES; i++) {
      await Deno.writeTextFile(
        join(folder, `note-${String(i).padStart(4, "0")}.md`),
        `# Note ${i}\n\nLantern log entry ${i}: the harbour light was checked.\n`,
      );
    }
    const db = postgres(store, { max: 1, onnotice: () => {} });
    const one = async (sql: string) => Number((await db.unsafe(sql))[0].n);
    let server = await startServe(home, ["--no-tail"], [folder]);
    try {
      const adding = callOp(server, token, "docs.add", { path: folder }).catch((error) => error);
      // Killed once enough is stored, at a moment a committed write's queued change is visible
      // (its writer is between the commit and its keyword rows), or regardless a little later.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const [now] = await db.unsafe(
          `SELECT (SELECT count(*) FROM docs_documents) AS stored,
             (SELECT count(*) FROM docs_index_queue) AS queued`,
        );
        const stored = Number(now.stored);
        if (stored >= KILL_AFTER && (Number(now.queued) > 0 || stored >= 2 * KILL_AFTER)) break;
        assert.ok(Date.now() < deadline, `the add stored too little: ${server.stderr()}`);
      }
      await server.stop("SIGKILL");
      const killedAt = Date.now();
      assert.ok((await adding) instanceof Error, "the add was cut off");
      const stored = await one("SELECT count(*) AS n FROM docs_documents");
      assert.ok(stored >= KILL_AFTER && stored < FILES, `stored ${stored}`);

      // Whatever the kill interrupted: no stored text document is both unindexed and unqueued.
      const lost = await one(
        `SELECT count(*) AS n FROM docs_documents d WHERE d.is_latest = 1 AND d.is_text = 1
         AND NOT EXISTS (SELECT 1 FROM docs_search s WHERE s.document_id = d.id)
         AND NOT EXISTS (SELECT 1 FROM docs_index_queue q WHERE q.document_id = d.id)`,
      );
      assert.equal(lost, 0);

      // A restarted server: once the queue's wait is over, its next add catches up first.
      server = await startServe(home, ["--no-tail"], [folder]);
      const wait = killedAt + ABANDONED_AFTER_MS + 500 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const added = await callOp(server, token, "docs.add", {
        content: "Lantern maintenance schedule.",
        name: "schedule.md",
      });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.equal(await one("SELECT count(*) AS n FROM docs_index_queue"), 0);
      const verified = await callOp(server, token, "docs.verify", { chunks: false });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      const index = verified.body.result.index;
      assert.equal(index.missing, 0, JSON.stringify(index));
      assert.equal(index.extra, 0, JSON.stringify(index));
      assert.equal(index.expected, stored + 1);
      assert.equal(index.indexed, stored + 1);
    } finally {
      await server.stop();
      await db.end();
      await Deno.remove(folder, { recursive: true });
    }
  },
});
