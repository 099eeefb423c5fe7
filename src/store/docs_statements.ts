/**
 * Prepared-statement cache and the change counters of the document store.
 * Preparing a statement costs more than running a small one, and ingest runs
 * the same few statements thousands of times, so each connection keeps its
 * own prepared copies. The counters let every process notice another
 * process's writes (a CLI `add` while `mcp-serve` holds vectors in memory).
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";
import type { DatabaseSync } from "./database.ts";

const CACHE = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/**
 * The prepared statement for `sql` on `db`, prepared once per connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./database.ts";
 * import { prepared } from "./docs_statements.ts";
 * const db = openDatabase(":memory:");
 * prepared(db, "SELECT 1 AS one").get(); // { one: 1 }
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
    statements.set(sql, statement);
  }
  return statement;
}

/** Names of the counters kept in `docs_state`. */
export type DocsCounter =
  /** Bumped by every write that changes what search sees. */
  | "index_generation"
  /** Bumped when stored vectors are removed (a full reload of in-memory vectors is needed). */
  | "vector_removals";

/** Reads one counter (0 when never bumped). */
export function readCounter(db: DatabaseSync, counter: DocsCounter): number {
  const row = prepared(db, "SELECT value FROM docs_state WHERE key = ?").get(counter) as
    | { value: string }
    | undefined;
  return row === undefined ? 0 : Number(row.value);
}

/** Increments one counter. */
export function bumpCounter(db: DatabaseSync, counter: DocsCounter): void {
  prepared(
    db,
    `INSERT INTO docs_state (key, value) VALUES (?, '1')
     ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
  ).run(counter);
}

/** Reads a free-form state value. */
export function readState(db: DatabaseSync, key: string): string | undefined {
  const row = prepared(db, "SELECT value FROM docs_state WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row?.value;
}

/** Writes a free-form state value (removes it when `value` is undefined). */
export function writeState(db: DatabaseSync, key: string, value: string | undefined): void {
  if (value === undefined) {
    prepared(db, "DELETE FROM docs_state WHERE key = ?").run(key);
    return;
  }
  prepared(
    db,
    "INSERT INTO docs_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(key, value);
}

/**
 * Settings for a bulk ingest on a connection; returns a function that puts
 * the previous ones back. A 64 MiB page cache: full-text segment writes and
 * chunk BLOBs otherwise evict each other's pages, which made indexing
 * several times slower. Temporary storage in memory: every multi-row insert
 * that may fail a constraint keeps a statement journal, which SQLite spills
 * to a temporary file past 64 KiB — 314 MB of pointless writes for the
 * 198 MB benchmark tree; each journal lives for one statement, so memory
 * holds it easily.
 */
export function useBulkWriteSettings(db: DatabaseSync): () => void {
  const previous = (prepared(db, "PRAGMA cache_size").get() as { cache_size: number }).cache_size;
  const previousTemp =
    (prepared(db, "PRAGMA temp_store").get() as { temp_store: number }).temp_store;
  prepared(db, "PRAGMA cache_size = -65536").run();
  db.exec("PRAGMA temp_store = MEMORY");
  return () => {
    db.exec(`PRAGMA cache_size = ${Math.trunc(previous)}`);
    db.exec(`PRAGMA temp_store = ${Math.trunc(previousTemp)}`);
  };
}
