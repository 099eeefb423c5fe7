/**
 * The store's prepared-statement cache: one per connection, shared by every
 * area. Preparing a statement costs more than running a small one, and the
 * store runs the same few statements over and over (every hook, every
 * transcript batch, every ingested document), so each connection keeps its
 * own prepared copies, keyed by their SQL text.
 *
 * Imports nothing at run time, so the workers that write an index file can
 * use it without paying for what opening a store needs.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * Statements kept per connection. The store's SQL is a fixed set of texts
 * plus a few built from filters (a list of agents, of ids, of tags), so a
 * connection never needs more than a few hundred; the bound only keeps
 * variants without end (user-chosen weights) from growing the cache forever.
 */
export const MAX_CACHED_STATEMENTS = 512;

const CACHE = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/**
 * The prepared statement for `sql` on `db`, prepared once per connection.
 * When the cache is full, the statement cached first is dropped (it is
 * prepared again if it is asked for again).
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { prepared } from "./statements.ts";
 * const db = new DatabaseSync(":memory:");
 * prepared(db, "SELECT 1 AS one").get(); // { one: 1 }
 * prepared(db, "SELECT 1 AS one") === prepared(db, "SELECT 1 AS one"); // true
 * ```
 */
export function prepared(db: DatabaseSync, sql: string): StatementSync {
  let statements = CACHE.get(db);
  if (statements === undefined) {
    statements = new Map();
    CACHE.set(db, statements);
  }
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    if (statements.size >= MAX_CACHED_STATEMENTS) {
      const oldest = statements.keys().next();
      if (oldest.done !== true) statements.delete(oldest.value);
    }
    statements.set(sql, statement);
  }
  return statement;
}

/**
 * How many statements `db` has cached (for tests and diagnostics).
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { cachedStatementCount, prepared } from "./statements.ts";
 * const db = new DatabaseSync(":memory:");
 * prepared(db, "SELECT 1");
 * cachedStatementCount(db); // 1
 * ```
 */
export function cachedStatementCount(db: DatabaseSync): number {
  return CACHE.get(db)?.size ?? 0;
}
