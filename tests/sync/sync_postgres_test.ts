/**
 * `vantage sync` to a team server on PostgreSQL, with real processes: a real `serve` on a
 * PostgreSQL store, a person's token from the real `vantage team add-user`, and the real
 * `vantage sync --to` pushing a laptop's store (the transcript fixtures, their hook events and
 * two documents). The team's database then holds exactly the laptop's history, attributed to
 * the token's person and host; a second run sends nothing; a run from the start sends it all
 * again and stores nothing twice. The server keeps no documents yet (its document engine runs
 * on SQLite only): its hello says so, and the sync sends none and says why, at once, instead
 * of retrying a refusal that is not going away.
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
import { historyQueries, localStore, rows } from "./team_fixture.ts";

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
    local.services.close();
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
      // The team server keeps no documents yet: they are not sent, and it says why at once.
      assert.equal(first.documents.sent, 0);
      assert.match(first.documents.not_sent, /document/);
      await assertSame();

      const again = await sync();
      assert.equal(again.batches, 0);
      assert.deepEqual(again.stored, { events: 0, messages: 0, usage: 0, sessions_created: 0 });

      // Everything sent again: the same keys, nothing stored twice.
      const all = await sync("--from-start");
      assert.ok(all.batches >= first.batches, `${all.batches} batches, first ${first.batches}`);
      assert.deepEqual(all.stored, { events: 0, messages: 0, usage: 0, sessions_created: 0 });
      await assertSame();

      const text = await runVantage(["sync", "--to", server.url], { env });
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /documents: none sent \(.*document.*\); they go with a later sync/);
    } finally {
      await server?.stop();
      await pg.end();
      await local.home.cleanup();
      await serverHome.cleanup();
    }
  },
});
