/**
 * Read-only SQL answers the same on both backends: the same rows seeded into a migrated
 * SQLite store (its query processes) and a migrated PostgreSQL database (its read-only
 * roles), the same statements, the same limits — and the same grids, truncation flags,
 * refusal kinds and scope rules. Where the engines word an error their own way (a missing
 * column), each one's words are named; everything else is compared as one value.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VantageError } from "../../../src/core/errors.ts";
import { openDatabase } from "../../../src/store/database.ts";
import { openPostgresStore } from "../../../src/store/postgres/postgres_store.ts";
import { parseStoreLocation } from "../../../src/store/postgres/store_url.ts";
import { readableTables } from "../../../src/store/query/query_tables.ts";
import {
  type QueryLimits,
  QueryRunner,
  type ReadOnlyQueries,
} from "../../../src/store/query/readonly_query.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../../helpers/postgres_cluster.ts";

const LIMIT_MS = 1500;
const LONG = `long ${"é".repeat(150)}`;
const RUNAWAY =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c";

/** The seed, as plain SQL both engines take. */
const SEED = [
  "INSERT INTO store_meta (key, value) VALUES ('a', 'one'), ('b', 'two'), ('c', 'three'), ('d', 'four')",
  `INSERT INTO store_meta (key, value) VALUES ('long', '${LONG}')`,
  "INSERT INTO sessions (session_id, agent, started_at, last_activity_at, title) VALUES ('s1', 'codex', 0, 0, 'wombat')",
];

const SQL_ONLY = readableTables(() => false);
const AGENT = readableTables((scope) => scope === "agent:read");
const EVERY = readableTables(() => true);

interface Backend {
  name: "sqlite" | "postgres";
  ignore: boolean;
  open(): Promise<{ queries: ReadOnlyQueries; close(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: "sqlite",
    ignore: false,
    async open() {
      const folder = await Deno.makeTempDir({ prefix: "vantage-query-both-" });
      const path = join(folder, "vantage.db");
      const db = openDatabase(path);
      for (const statement of SEED) db.exec(statement);
      db.close();
      const queries = new QueryRunner({ databasePath: path, timeoutMs: LIMIT_MS });
      return {
        queries,
        close: async () => {
          await queries.close();
          await Deno.remove(folder, { recursive: true });
        },
      };
    },
  },
  {
    name: "postgres",
    ignore: skipWithoutPostgres("read-only SQL on PostgreSQL"),
    async open() {
      const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
      if (location.kind !== "postgres") throw new Error("no postgres URL");
      const opened = await openPostgresStore(location, {
        max: 2,
        connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
        queryTimeoutMs: LIMIT_MS,
      });
      assert.equal(opened.queriesOff, undefined);
      for (const statement of SEED) await opened.pool.exec(statement);
      return { queries: opened.queries, close: () => opened.close() };
    },
  },
];

async function refusal(
  queries: ReadOnlyQueries,
  sql: string,
  limits: QueryLimits,
): Promise<VantageError> {
  try {
    await queries.run(sql, limits);
  } catch (error) {
    assert.ok(error instanceof VantageError, String(error));
    return error;
  }
  assert.fail(`${sql} was answered`);
}

for (const backend of BACKENDS) {
  Deno.test({
    name: `read-only SQL on ${backend.name}: grids, caps, refusals, scopes and the time limit`,
    ignore: backend.ignore,
    async fn(t) {
      const { queries, close } = await backend.open();
      const caps = { tables: SQL_ONLY, rowLimit: 3, cellChars: 100 };
      try {
        await t.step("the grid, the row cap and the cell cap", async () => {
          const grid = await queries.run("SELECT key, value FROM store_meta ORDER BY key", caps);
          assert.deepEqual(grid.columns, ["key", "value"]);
          assert.deepEqual(grid.rows, [["a", "one"], ["b", "two"], ["c", "three"]]);
          assert.equal(grid.row_count, 3);
          assert.equal(grid.truncated, true);
          assert.equal(grid.cells_truncated, false);
          const long = await queries.run(
            "SELECT value FROM store_meta WHERE key = 'long' -- the long one",
            caps,
          );
          assert.deepEqual(long.rows, [[`${[...LONG].slice(0, 100).join("")}…`]]);
          assert.equal(long.cells_truncated, true);
          assert.equal(long.truncated, false);
          const counted = await queries.run(
            "SELECT count(*) AS n, max(key) AS top FROM store_meta;",
            caps,
          );
          assert.deepEqual(counted.columns, ["n", "top"]);
          assert.deepEqual(counted.rows, [[5, "long"]]);
          const values = await queries.run("VALUES (1, 'x'), (2, 'y')", caps);
          assert.deepEqual(values.rows, [[1, "x"], [2, "y"]]);
          const squares = await queries.run(
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM n WHERE x < 4) SELECT x, x*x AS sq FROM n",
            { ...caps, rowLimit: 10 },
          );
          assert.deepEqual(squares.rows, [[1, 1], [2, 4], [3, 9], [4, 16]]);
          const none = await queries.run("SELECT key FROM store_meta WHERE key = 'zz'", caps);
          assert.deepEqual([none.columns, none.rows, none.truncated], [["key"], [], false]);
        });

        await t.step("writes, second statements and broken SQL are refused", async () => {
          const refusals: Array<[string, RegExp]> = [
            [
              "DELETE FROM store_meta",
              /only one SELECT statement is accepted; this one starts with 'DELETE'/,
            ],
            ["SELECT 1; DELETE FROM store_meta", /only one statement is accepted/],
            [
              "WITH x AS (SELECT 1) DELETE FROM store_meta RETURNING key",
              /DELETE is not allowed in a query/,
            ],
            ["SELECT * FROM store_meta WHERE", /incomplete input|syntax error/],
            [
              "SELECT colour FROM store_meta",
              backend.name === "sqlite"
                ? /no such column: colour/
                : /column "colour" does not exist/,
            ],
            [
              "SELECT * FROM missing",
              backend.name === "sqlite"
                ? /no such table: missing/
                : /relation "missing" does not exist/,
            ],
          ];
          for (const [sql, message] of refusals) {
            const error = await refusal(queries, sql, caps);
            assert.equal(error.kind, "invalid_arguments", `${sql}: ${error.message}`);
            assert.match(error.message, /^query refused: /, sql);
            assert.match(error.message, message, sql);
          }
          const still = await queries.run("SELECT count(*) FROM store_meta", caps);
          assert.deepEqual(still.rows, [[5]], "nothing was written");
        });

        await t.step("each scope opens its tables, and only those", async () => {
          const sessions = "SELECT title FROM sessions";
          const sqlOnly = await refusal(queries, sessions, caps);
          assert.equal(sqlOnly.kind, "forbidden");
          assert.deepEqual(sqlOnly.details, { table: "sessions" });
          assert.match(sqlOnly.message, /^query refused: it reads sessions/);
          assert.deepEqual((await queries.run(sessions, { ...caps, tables: AGENT })).rows, [[
            "wombat",
          ]]);
          const people = "SELECT count(*) FROM team_people";
          const noAdmin = await refusal(queries, people, { ...caps, tables: AGENT });
          assert.equal(noAdmin.kind, "forbidden");
          assert.deepEqual(noAdmin.details, { table: "team_people" });
          assert.deepEqual((await queries.run(people, { ...caps, tables: EVERY })).rows, [[0]]);
          // The same statement through a subquery, a CTE and a UNION is the same refusal.
          for (
            const sql of [
              "SELECT (SELECT title FROM sessions LIMIT 1)",
              "WITH s AS (SELECT title FROM sessions) SELECT * FROM s",
              "SELECT key FROM store_meta UNION ALL SELECT title FROM sessions",
            ]
          ) {
            const error = await refusal(queries, sql, caps);
            assert.equal(error.kind, "forbidden", sql);
            assert.deepEqual(error.details, { table: "sessions" }, sql);
          }
        });

        await t.step("a runaway query stops at the limit; the next one is answered", async () => {
          const started = performance.now();
          const error = await refusal(queries, RUNAWAY, caps);
          const ms = performance.now() - started;
          assert.equal(error.kind, "timeout", error.message);
          assert.deepEqual(error.details, { timeout_ms: LIMIT_MS });
          assert.match(error.message, /did not finish within 1500 ms and was stopped/);
          assert.ok(ms >= LIMIT_MS - 50 && ms < LIMIT_MS + 6000, `answered after ${ms} ms`);
          const next = await queries.run("SELECT count(*) FROM store_meta", caps);
          assert.deepEqual(next.rows, [[5]]);
        });
      } finally {
        await close();
      }
    },
  });
}
