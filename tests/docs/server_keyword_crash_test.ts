/**
 * The real `vantage serve` on PostgreSQL killed with SIGKILL in the middle of a large `docs.add`
 * over HTTP, between a document's commit and its keyword row (the test holds the keyword
 * table's write lock from another session, so the row waits, and kills the server then): the
 * committed document is queued for the index (its write queued the change in its own
 * transaction), and once the queue's wait is over the next add on a restarted server catches
 * the index up — `docs.verify` then finds no document missing from it.
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
    const locker = postgres(store, { max: 1, onnotice: () => {} });
    const started = Date.now();
    const deadline = () => started + 120_000;
    // Resolved to give the keyword table's lock back (in the end too, should the test fail).
    const release = Promise.withResolvers<void>();
    const one = async (sql: string) => Number((await db.unsafe(sql))[0].n);
    let server = await startServe(home, ["--no-tail"], [folder]);
    try {
      const adding = callOp(server, token, "docs.add", { path: folder }).catch((error) => error);
      while (await one("SELECT count(*) AS n FROM docs_documents") < KILL_AFTER) {
        assert.ok(Date.now() < deadline(), `the add stored too little: ${server.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The keyword index's table locked against writes from another session: the server's
      // next document commits, and its keyword row waits. Killed then, it dies between the two,
      // the moment an unqueued write would lose the row for good.
      const locked = Promise.withResolvers<void>();
      let lockerPid = 0;
      const holding = locker.begin(async (tx) => {
        await tx.unsafe("LOCK TABLE docs_search IN EXCLUSIVE MODE");
        lockerPid = Number((await tx.unsafe("SELECT pg_backend_pid() AS pid"))[0].pid);
        locked.resolve();
        await release.promise;
      });
      await locked.promise;
      const waiting = `SELECT count(*) AS n FROM docs_documents d
        WHERE d.is_latest = 1 AND d.is_text = 1
        AND NOT EXISTS (SELECT 1 FROM docs_search s WHERE s.document_id = d.id)`;
      while (await one(waiting) === 0) {
        assert.ok(Date.now() < deadline(), `no write committed: ${server.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await server.stop("SIGKILL");
      const killedAt = Date.now();
      assert.ok((await adding) instanceof Error, "the add was cut off");
      // Committed and not indexed, yet nothing is lost: each such document is queued.
      assert.ok(await one(waiting) >= 1);
      const unqueued = `${waiting}
        AND NOT EXISTS (SELECT 1 FROM docs_index_queue q WHERE q.document_id = d.id)`;
      assert.equal(await one(unqueued), 0);
      // The dead server's sessions ended, as the server ends them once it notices their client
      // is gone: the keyword row it was waiting to write is never written.
      const [own] = await db.unsafe("SELECT pg_backend_pid() AS pid");
      await db.unsafe(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> $1 AND pid <> $2`,
        [own.pid, lockerPid],
      );
      release.resolve();
      await holding;
      const stored = await one("SELECT count(*) AS n FROM docs_documents");
      assert.ok(stored > KILL_AFTER && stored < FILES, `stored ${stored}`);
      assert.ok(await one(waiting) >= 1);
      assert.equal(await one(unqueued), 0);

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
      release.resolve();
      await server.stop();
      await db.end();
      await locker.end();
      await Deno.remove(folder, { recursive: true });
    }
  },
});
