/**
 * The PostgreSQL schema: its tables mirror SQLite's column for column (so the same keys
 * dedupe on both), and servers starting together against one database migrate it once.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { AGENT_MIGRATIONS } from "../../../src/store/agent/schema.ts";
import { DOCS_MIGRATIONS } from "../../../src/store/docs/schema.ts";
import { PERCEPTION_MIGRATIONS } from "../../../src/store/perception/schema.ts";
import { TELEMETRY_MIGRATIONS } from "../../../src/store/telemetry/schema.ts";
import { TEAM_MIGRATIONS } from "../../../src/store/team/schema.ts";
import { MIGRATIONS } from "../../../src/store/migrations.ts";
import { openPgPool, type PgPool } from "../../../src/store/postgres/connection.ts";
import { migratePostgres, PG_MIGRATIONS } from "../../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../../src/store/postgres/store_url.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../../helpers/postgres_cluster.ts";

const ignore = skipWithoutPostgres("the PostgreSQL migration tests");

async function pool(url: string, max = 2): Promise<PgPool> {
  const location = parseStoreLocation(url);
  assert.equal(location.kind, "postgres");
  return await Promise.resolve(
    openPgPool(location as Extract<typeof location, { kind: "postgres" }>, {
      max,
      connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
    }),
  );
}

/**
 * Columns and tables PostgreSQL adds for what SQLite keeps elsewhere (rowid, the search.db and
 * docs-index.db indexes).
 */
const PG_ONLY = new Set([
  "sessions.seq",
  "usage.seq",
  "messages.search",
  "docs_graph_edges.seq",
]);
/** PostgreSQL's keyword index, which SQLite keeps in its index file beside the database. */
const PG_ONLY_TABLES = new Set(["docs_search"]);

/** SQLite's tables for its files beside the database (sealed vector files), none on PostgreSQL. */
const SQLITE_ONLY_TABLES = new Set(["docs_vector_segments", "docs_vector_removed"]);

/** SQLite's tables of every area, with their columns, as the migrations leave them. */
function sqliteColumns(): Map<string, string[]> {
  const db = new DatabaseSync(":memory:");
  const areas = [
    MIGRATIONS[0],
    ...AGENT_MIGRATIONS,
    ...DOCS_MIGRATIONS,
    ...PERCEPTION_MIGRATIONS,
    ...TELEMETRY_MIGRATIONS,
    ...TEAM_MIGRATIONS,
  ]
    .sort((a, b) => a.version - b.version);
  for (const migration of areas) db.exec(migration.sql);
  const tables = db.prepare(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ).all().map((row) => String(row.name)).filter((name) => !SQLITE_ONLY_TABLES.has(name));
  const out = new Map<string, string[]>();
  for (const table of tables) {
    out.set(
      table,
      db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table).map((r) => String(r.name))
        .sort(),
    );
  }
  db.close();
  return out;
}

Deno.test({
  name:
    "postgres schema: every table and column of SQLite's agent, perception, document, telemetry and team areas",
  ignore,
  async fn() {
    const db = await pool(await sharedPostgresCluster().createDatabase());
    try {
      assert.deepEqual(await migratePostgres(db), PG_MIGRATIONS.map((m) => m.version));
      const rows = await db.query(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'`,
      );
      const pg = new Map<string, string[]>();
      for (const row of rows) {
        const table = String(row.table_name);
        if (PG_ONLY_TABLES.has(table)) continue;
        if (PG_ONLY.has(`${table}.${row.column_name}`)) continue;
        pg.set(table, [...(pg.get(table) ?? []), String(row.column_name)].sort());
      }
      const sqlite = sqliteColumns();
      assert.deepEqual([...pg.keys()].sort(), [...sqlite.keys()].sort());
      for (const [table, columns] of sqlite) assert.deepEqual(pg.get(table), columns, table);
      // Applied once: a second run finds nothing to do.
      assert.deepEqual(await migratePostgres(db), []);
    } finally {
      await db.close();
    }
  },
});

Deno.test({
  name: "postgres schema: four servers starting at once migrate the database once",
  ignore,
  async fn() {
    const url = await sharedPostgresCluster().createDatabase();
    const pools = await Promise.all([1, 2, 3, 4].map(() => pool(url)));
    try {
      const runs = await Promise.all(pools.map((p) => migratePostgres(p)));
      const nonEmpty = runs.filter((applied) => applied.length > 0);
      assert.equal(nonEmpty.length, 1, `runs: ${JSON.stringify(runs)}`);
      assert.deepEqual(nonEmpty[0], PG_MIGRATIONS.map((m) => m.version));
      const logged = await pools[0].query(
        "SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version",
      );
      assert.deepEqual(logged, PG_MIGRATIONS.map((m) => ({ version: m.version, n: 1 })));
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  },
});

Deno.test({
  name: "postgres schema: a database migrated by a newer Vantage is refused, not written",
  ignore,
  async fn() {
    const db = await pool(await sharedPostgresCluster().createDatabase());
    try {
      await migratePostgres(db);
      await db.query("INSERT INTO schema_migrations VALUES (9999, 'from the future', 0)");
      await assert.rejects(migratePostgres(db), (error: Error & { kind?: string }) => {
        assert.equal(error.kind, "unavailable");
        assert.match(error.message, /newer Vantage .*9999.*upgrade Vantage/);
        return true;
      });
    } finally {
      await db.close();
    }
  },
});
