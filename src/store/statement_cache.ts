/**
 * Prepared statements of the agent tables, kept per connection. A backfill commits a batch per
 * transcript file and each batch runs a dozen statements (the session upserts, the 32-row
 * message insert, the usage merge): prepared afresh every time, the preparing cost more than
 * the running once sub-agents made transcripts many and small.
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";
import type { DatabaseSync } from "./database.ts";

/** A connection's prepared statements, by SQL text. */
export class StatementCache {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** The statement for `sql`, prepared on first use (as `db.prepare` would). */
  prepare(sql: string): StatementSync {
    let prepared = this.#statements.get(sql);
    if (prepared === undefined) {
      prepared = this.#db.prepare(sql);
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }
}

const CACHES = new WeakMap<DatabaseSync, StatementCache>();

/**
 * The statement cache of `db`: `statements(db).prepare(sql)` prepares `sql` once per
 * connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./database.ts";
 * import { statements } from "./statement_cache.ts";
 * const db = openDatabase(":memory:");
 * statements(db).prepare("SELECT 1 AS one").get(); // { one: 1 }
 * ```
 */
export function statements(db: DatabaseSync): StatementCache {
  let cache = CACHES.get(db);
  if (cache === undefined) {
    cache = new StatementCache(db);
    CACHES.set(db, cache);
  }
  return cache;
}
