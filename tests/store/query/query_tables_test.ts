/**
 * The table list that says which scope opens which table to SQL queries
 * matches the schema the migrations build: every table is classified (so a
 * migration cannot add a readable-by-nobody-knows-whom table silently), and
 * every classified table exists (so the list does not rot). The PostgreSQL
 * schema's tables are classified too: its query roles are granted from the
 * same list.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/database.ts";
import {
  QUERY_TABLES,
  queryTableScopes,
  readableTables,
} from "../../../src/store/query/query_tables.ts";
import { openPgPool } from "../../../src/store/postgres/connection.ts";
import { migratePostgres } from "../../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../../src/store/postgres/store_url.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../../helpers/postgres_cluster.ts";

/** The tables and views of a freshly migrated store file, lower case. */
async function migratedSchema(): Promise<string[]> {
  const folder = await Deno.makeTempDir({ prefix: "vantage-schema-" });
  try {
    const db = openDatabase(join(folder, "vantage.db"));
    try {
      const rows = db.prepare(
        "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name",
      ).all() as Array<{ name: string }>;
      return rows.map((row) => row.name.toLowerCase());
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

Deno.test("every table of the migrated schema says which scope opens it to queries", async () => {
  const schema = await migratedSchema();
  assert.ok(schema.includes("sessions") && schema.includes("docs_chunks"), schema.join(", "));
  const unclassified = schema.filter((name) => queryTableScopes(name) === undefined);
  assert.deepEqual(
    unclassified,
    [],
    `classify these tables in src/store/query/query_tables.ts: ${unclassified.join(", ")}`,
  );
  // The catalog's own names are not rows of the catalog; everything else listed must exist.
  const listed = QUERY_TABLES.filter((table) => table.postgresOnly !== true)
    .map((table) => table.name)
    .filter((name) => name !== "sqlite_master" && name !== "sqlite_schema");
  assert.deepEqual(listed.filter((name) => !schema.includes(name)), []);
  assert.equal(new Set(QUERY_TABLES.map((table) => table.name)).size, QUERY_TABLES.length);
});

Deno.test("document tables need docs:read, agent tables agent:read, and only the schema needs nothing", () => {
  for (const table of QUERY_TABLES) {
    assert.equal(table.name, table.name.toLowerCase(), table.name);
    // The operation's description says "docs:read opens the docs_* tables": both ways.
    assert.equal(
      table.name.startsWith("docs_"),
      table.scopes.length === 1 && table.scopes[0] === "docs:read",
      table.name,
    );
  }
  assert.deepEqual(readableTables(() => false).sort(), [
    "schema_migrations",
    "sqlite_master",
    "sqlite_schema",
    "store_meta",
  ]);
  const agent = readableTables((scope) => scope === "agent:read");
  const docs = readableTables((scope) => scope === "docs:read");
  const both = readableTables((scope) => scope === "agent:read" || scope === "docs:read");
  for (const name of ["sessions", "events", "messages", "usage", "anomalies", "project_state"]) {
    assert.ok(agent.includes(name) && !docs.includes(name) && both.includes(name), name);
  }
  for (const name of ["docs_chunks", "docs_documents", "docs_vectors", "docs_graph_nodes"]) {
    assert.ok(docs.includes(name) && !agent.includes(name) && both.includes(name), name);
  }
  // The counters of both families' AUTOINCREMENT tables need both scopes.
  assert.ok(!agent.includes("sqlite_sequence") && !docs.includes("sqlite_sequence"));
  assert.ok(both.includes("sqlite_sequence"));
  // Only the people of a team server need more: the scope that manages them.
  assert.deepEqual(
    QUERY_TABLES.filter((table) => !both.includes(table.name)).map((table) => table.name),
    ["team_people"],
  );
  assert.deepEqual(queryTableScopes("team_people"), ["admin"]);
  assert.equal(queryTableScopes("DOCS_CHUNKS")?.[0], "docs:read");
  assert.equal(queryTableScopes("dbstat"), undefined);
});

Deno.test({
  name: "every table of the migrated PostgreSQL schema says which scope opens it to queries",
  ignore: skipWithoutPostgres("the PostgreSQL schema's query tables"),
  async fn() {
    const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
    if (location.kind !== "postgres") throw new Error("no postgres URL");
    const pool = openPgPool(location, { max: 1, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    try {
      await migratePostgres(pool);
      const rows = await pool.query(
        `SELECT relname FROM pg_class WHERE relnamespace = to_regnamespace(current_schema())
           AND relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY relname`,
      );
      const schema = rows.map((row) => String(row.relname));
      assert.ok(schema.includes("sessions") && schema.includes("team_people"), schema.join(", "));
      const unclassified = schema.filter((name) => queryTableScopes(name) === undefined);
      assert.deepEqual(
        unclassified,
        [],
        `classify these tables in src/store/query/query_tables.ts: ${unclassified.join(", ")}`,
      );
    } finally {
      await pool.close();
    }
  },
});
