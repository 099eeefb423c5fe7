/**
 * The test harness's throwaway PostgreSQL cluster: it starts, gives each test a database of
 * its own, and stops, leaving no server and no folder behind.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import postgres from "postgres";
import { skipWithoutPostgres, startPostgresCluster } from "../../helpers/postgres_cluster.ts";

Deno.test({
  name: "postgres harness: a cluster serves separate databases and stops without a trace",
  ignore: skipWithoutPostgres("the PostgreSQL harness test"),
  async fn() {
    const cluster = startPostgresCluster();
    try {
      const first = await cluster.createDatabase();
      const second = await cluster.createDatabase();
      assert.notEqual(first, second);
      const a = postgres(first, { max: 1, onnotice: () => {} });
      const b = postgres(second, { max: 1, onnotice: () => {} });
      try {
        await a`CREATE TABLE only_here (n integer)`;
        const [{ version }] = await a`SELECT current_setting('server_version') AS version`;
        assert.match(String(version), /^\d+/);
        const seen = await b`SELECT to_regclass('only_here') AS t`;
        assert.equal(seen[0].t, null);
      } finally {
        await a.end();
        await b.end();
      }
    } finally {
      cluster.stop();
    }
    assert.equal(existsSync(cluster.folder), false, "the cluster's folder is removed");
    // Nothing listens on the port any more.
    await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port: cluster.port }));
  },
});
