/**
 * `vantage sync` to a team server on PostgreSQL, with real processes: a real `serve` on a
 * PostgreSQL store, a person's token from the real `vantage team add-user`, and the real
 * `vantage sync --to` pushing a laptop's store (the transcript fixtures, their hook events and
 * two documents). The team's database then holds exactly the laptop's history, attributed to
 * the token's person and host, and each of its documents once, as `ada@ada-laptop:<path>`, hers,
 * with its tags, metadata and collections and the same bytes (read back through the store); a
 * second run sends nothing; a run from the start sends it all again and stores nothing twice.
 *
 * Then the team moves its server: the store on PostgreSQL, the server stopped, is pushed with
 * `runSync` (its documents' bytes read through the store) to another team server (one on
 * SQLite, in this process), which then holds exactly the same history and documents, as the new
 * token's person from the pushing host; a second push sends nothing, and the real
 * `vantage sync --store` (run in the server's data home, which holds no history of its own)
 * sends it all again from PostgreSQL, storing nothing twice.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";
import { historyQueries, localStore, rows, startInProcessTeam } from "./team_fixture.ts";
import {
  type HeldDocument,
  heldDocuments,
  laptopDocuments,
  teamDocuments,
} from "./held_documents.ts";
import { documentBytes, readContentFrom } from "../../src/docs/mod.ts";
import { DATABASE, STORE } from "../../src/ops/service_keys.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import { runSync, TeamServer } from "../../src/sync/mod.ts";

const ignore = skipWithoutPostgres("vantage sync to a team server on PostgreSQL");

/** PostgreSQL's bigint and numeric as numbers, as SQLite answers them. */
const AS_NUMBERS = {
  bigint: { to: 20, from: [20, 1700], serialize: String, parse: Number },
};

Deno.test({
  name:
    "vantage sync pushes a laptop's history to a team serve on PostgreSQL once, as the token's person",
  ignore,
  async fn() {
    const store = `${await sharedPostgresCluster()
      .createDatabase()}?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`;
    const serverHome = await makeAgentHome({ fixtures: false });
    serverHome.env.VANTAGE_STORE = store;
    const local = await localStore();
    const laptopDocs = await laptopDocuments(local.services, "ada", "ada-laptop");
    local.services.close();
    assert.equal(laptopDocs.length, 2);
    const pg = postgres(store, { max: 1, onnotice: () => {}, types: AS_NUMBERS });
    let server: ServeProcess | undefined;
    try {
      const added = await runVantage(["team", "add-user", "ada"], { env: serverHome.env });
      assert.equal(added.code, 0, added.stderr);
      server = await startServe(serverHome);
      const env = {
        ...local.home.env,
        VANTAGE_TEAM_TOKEN: added.stdout.trim(),
        VANTAGE_HOSTNAME: "ada-laptop",
      };
      const sync = async (...args: string[]) => {
        const run = await runVantage(["sync", "--to", server!.url, "--json", ...args], { env });
        assert.equal(run.code, 0, run.stderr);
        return JSON.parse(run.stdout);
      };
      const local_ = (sql: string) => rows<Record<string, unknown>>(local.home.dataHome, sql);
      const team = async (sql: string) => [...await pg.unsafe(sql)].map((row) => ({ ...row }));
      const assertSame = async () => {
        const sqlite = historyQueries("sqlite");
        for (const [table, sql] of Object.entries(historyQueries("postgres"))) {
          const here = local_(sqlite[table]);
          assert.ok(here.length > 0 || table === "outcomes", `the laptop has ${table}`);
          assert.deepEqual(await team(sql), here, `${table} on the team server`);
        }
        const owners = await team(
          "SELECT DISTINCT person, host FROM sessions UNION SELECT DISTINCT person, host FROM events",
        );
        assert.deepEqual(owners, [{ person: "ada", host: "ada-laptop" }]);
      };

      const first = await sync();
      assert.equal(first.person, "ada");
      assert.equal(first.stored.messages, local_("SELECT id FROM messages").length);
      assert.equal(first.stored.events, local_("SELECT id FROM events").length);
      assert.equal(first.refused.records, 0);
      // Every document once, hers, with what was attached to it and the same bytes.
      assert.deepEqual(first.documents, { sent: 2, added: 2, updated: 0, unchanged: 0 });
      await assertSame();
      assert.deepEqual(await teamDocuments(store), laptopDocs);

      const again = await sync();
      assert.equal(again.batches, 0);
      assert.deepEqual(again.stored, { events: 0, messages: 0, usage: 0, sessions_created: 0 });
      assert.deepEqual(again.documents, { sent: 0, added: 0, updated: 0, unchanged: 0 });

      // Everything sent again: the same keys, nothing stored twice.
      const all = await sync("--from-start");
      assert.ok(all.batches >= first.batches, `${all.batches} batches, first ${first.batches}`);
      assert.deepEqual(all.stored, { events: 0, messages: 0, usage: 0, sessions_created: 0 });
      assert.deepEqual(all.documents, { sent: 2, added: 0, updated: 0, unchanged: 2 });
      await assertSame();
      assert.deepEqual(await teamDocuments(store), laptopDocs);

      const text = await runVantage(["sync", "--to", server.url], { env });
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /documents: 0 sent, 0 added, 0 updated, 0 already there/);

      await server.stop();
      server = undefined;
      await pushToAnotherServer(store, team, serverHome.env, laptopDocs);
    } finally {
      await server?.stop();
      await pg.end();
      await local.home.cleanup();
      await serverHome.cleanup();
    }
  },
});

/**
 * Pushes the team's store on PostgreSQL to a new team server (SQLite, in this process) as its
 * person "ada" from host "old-team-server", and checks the new server holds exactly the same
 * history, hers from that host, and that a second push sends nothing.
 */
async function pushToAnotherServer(
  url: string,
  team: (sql: string) => Promise<Array<Record<string, unknown>>>,
  serverEnv: Record<string, string>,
  laptopDocs: HeldDocument[],
): Promise<void> {
  const location = parseStoreLocation(url);
  assert.equal(location.kind, "postgres");
  const old = await openPostgresStore(location as Extract<typeof location, { kind: "postgres" }>, {
    max: 2,
    connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
  });
  const moved = await startInProcessTeam();
  try {
    const token = moved.addPerson("ada");
    const server = new TeamServer({ url: moved.url, token, host: "old-team-server" });
    const push = () =>
      runSync({
        store: old.store,
        documentBytes: (row) =>
          readContentFrom(old.store.docs, row.hash, { path: row.path, id: row.id }),
        server,
        // Small batches, so the store's records take many and each table's cursor moves often.
        batchBytes: 16 * 1024,
      });
    const count = async (table: string) => (await team(`SELECT 1 FROM ${table}`)).length;
    const pushed = await push();
    assert.equal(pushed.person, "ada");
    assert.ok(pushed.batches > 3, `${pushed.batches} batches`);
    assert.deepEqual(pushed.stored, {
      events: await count("events"),
      messages: await count("messages"),
      usage: await count("usage"),
      sessions_created: await count("sessions"),
    });
    assert.equal(pushed.refused.records, 0);
    assert.deepEqual(pushed.invalid, []);
    assert.deepEqual(pushed.documents, { sent: 2, added: 2, updated: 0, unchanged: 0 });
    // The documents moved too: under the pushing host's name, hers, the same bytes.
    const movedDocs = async () =>
      await heldDocuments(
        moved.services.get(STORE).docs,
        (row) => documentBytes(moved.services.get(DATABASE), row),
      );
    const wanted = laptopDocs.map((doc) => ({ ...doc, path: `ada@old-team-server:${doc.path}` }));
    assert.deepEqual(await movedDocs(), wanted);

    const sqlite = historyQueries("sqlite");
    for (const [table, sql] of Object.entries(historyQueries("postgres"))) {
      const there = await team(sql);
      assert.ok(there.length > 0 || table === "outcomes", `the old server has ${table}`);
      assert.deepEqual(rows(moved.dataHome, sqlite[table]), there, `${table} on the new server`);
    }
    assert.deepEqual(
      rows(
        moved.dataHome,
        "SELECT DISTINCT person, host FROM sessions UNION SELECT DISTINCT person, host FROM events",
      ),
      [{ person: "ada", host: "old-team-server" }],
    );

    const again = await push();
    assert.equal(again.batches, 0);
    assert.deepEqual(again.stored, { events: 0, messages: 0, usage: 0, sessions_created: 0 });

    // The CLI reads the store --store names, not the data home's (which holds no history).
    const { VANTAGE_STORE: _store, ...env } = serverEnv;
    const cli = await runVantage(
      ["sync", "--to", moved.url, "--store", url, "--from-start", "--json"],
      { env: { ...env, VANTAGE_TEAM_TOKEN: token, VANTAGE_HOSTNAME: "old-team-server" } },
    );
    assert.equal(cli.code, 0, cli.stderr);
    const all = JSON.parse(cli.stdout);
    assert.equal(all.person, "ada");
    assert.equal(all.refused.records, 0);
    assert.equal(all.sent.messages, await count("messages"));
    assert.equal(all.sent.events, await count("events"));
    assert.deepEqual(all.stored, { events: 0, messages: 0, usage: 0, sessions_created: 0 });
    assert.deepEqual(all.documents, { sent: 2, added: 0, updated: 0, unchanged: 2 });
    assert.deepEqual(await movedDocs(), wanted);
  } finally {
    await moved.close();
    await old.close();
  }
}
