/**
 * The document store's bookkeeping in `docs_state`: change counters that let
 * every process notice another process's writes (a CLI `add` while
 * `mcp-serve` holds vectors in memory), free-form state values (the current
 * pack, the index file in use), and the connection settings of a bulk add.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** Names of the counters kept in `docs_state`. */
export type DocsCounter =
  /** Bumped by every write that changes what search sees. */
  | "index_generation"
  /** Bumped when stored vectors are removed (a full reload of in-memory vectors is needed). */
  | "vector_removals";

/** Reads a `docs_state` value. (Both backends read it with this reader.) */
export const VALUE: RowReader<{ value: string }> = new RowReader<{ value: string }>(
  "document state",
  {
    value: "text",
  },
);

/** Reads one counter (0 when never bumped). */
export function readCounter(db: DatabaseSync, counter: DocsCounter): number {
  const value = readState(db, counter);
  return value === undefined ? 0 : Number(value);
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
  return VALUE.optional(prepared(db, "SELECT value FROM docs_state WHERE key = ?").get(key))
    ?.value;
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

const CACHE_SIZE = new RowReader<{ cache_size: number }>("cache size", { cache_size: "number" });
const TEMP_STORE = new RowReader<{ temp_store: number }>("temp store", { temp_store: "number" });

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
  const previous = CACHE_SIZE.one(prepared(db, "PRAGMA cache_size").get()).cache_size;
  const previousTemp = TEMP_STORE.one(prepared(db, "PRAGMA temp_store").get()).temp_store;
  prepared(db, "PRAGMA cache_size = -65536").run();
  db.exec("PRAGMA temp_store = MEMORY");
  return () => {
    db.exec(`PRAGMA cache_size = ${Math.trunc(previous)}`);
    db.exec(`PRAGMA temp_store = ${Math.trunc(previousTemp)}`);
  };
}
