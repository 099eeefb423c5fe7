/**
 * The full-text side of the document store: an FTS5 index of title, path and
 * body (BM25 with per-column weights) and a trigram index over the words seen
 * in documents, which fuzzy search uses to find words close to a misspelt one.
 *
 * The index lives in its own SQLite file beside the store (`docs-index.db`),
 * so that a worker can index one batch of a large add on the second core
 * while the main thread stores the next: SQLite allows one writer per file.
 * The store keeps a queue of index changes (`docs_index_queue`), written in
 * the same transaction as the documents they describe; a change leaves the
 * queue only once the index has committed it. Whatever a stopped process left
 * in the queue for a while is applied by the next search (see `catchUpDocsIndex`).
 *
 * The two files cannot be joined in one query (Deno allows `ATTACH` only to
 * a process with full file permissions), so a keyword search narrowed by
 * session, tag or collection keeps the matches whose ids the store selects.
 *
 * An in-memory store (tests) keeps the index tables in the store itself.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { basename, dirname, join } from "node:path";
import { makeFilesPrivate, sqliteFiles } from "../../core/private_files.ts";
import { isCorruptionError, storeFailure, storeFilePath, transaction } from "../database.ts";
import { RowReader, textColumn } from "../rows.ts";
import { prepared } from "../statements.ts";
import { DOCS_INDEX_SCHEMA, DOCS_INDEX_SETTINGS } from "./schema.ts";
import { readState, writeState } from "./state.ts";

/** The `docs_state` key naming the index file in use (absent: the first, `docs-index.db`). */
const INDEX_FILE_KEY = "index_file";

/** The name of the first index file; later generations are `docs-index-<n>.db`. */
const FIRST_INDEX_FILE = "docs-index.db";

const INDEX_FILE_NAME = /^docs-index(?:-(\d+))?\.db$/;

/** The index connection a store connection has open, and which file it is. */
interface OpenIndex {
  connection: DatabaseSync;
  path: string;
}

const INDEXES = new WeakMap<DatabaseSync, OpenIndex>();

/**
 * The index file the store names now (`:memory:` for an in-memory store).
 * The name lives in the store, so when a damaged index is replaced every
 * process moves to the new file at its next use; no file another process may
 * hold open is ever recreated under the same name.
 */
function currentIndexPath(db: DatabaseSync): string {
  const file = storeFilePath(db);
  if (file === undefined) return ":memory:";
  return join(dirname(file), readState(db, INDEX_FILE_KEY) ?? FIRST_INDEX_FILE);
}

/** The index file of a store connection; undefined for an in-memory store. */
export function docsIndexFile(db: DatabaseSync): string | undefined {
  const path = currentIndexPath(db);
  return path === ":memory:" ? undefined : path;
}

/**
 * Every index file beside a store (current and earlier generations), for
 * verification and clean-up.
 */
export function docsIndexFiles(db: DatabaseSync): string[] {
  const file = storeFilePath(db);
  if (file === undefined) return [];
  const folder = dirname(file);
  const names: string[] = [];
  try {
    for (const entry of Deno.readDirSync(folder)) {
      if (entry.isFile && INDEX_FILE_NAME.test(entry.name)) names.push(join(folder, entry.name));
    }
  } catch {
    // No folder, no files.
  }
  return names.sort();
}

/**
 * The index connection of a store connection, opened (and the index file
 * created) on first use. A new index file is filled from the store: every
 * latest text document is queued, and the next catch-up indexes them.
 *
 * A file that cannot be opened because another process holds a lock fails
 * with `unavailable`; it is never deleted, since other processes may have it
 * open. A file SQLite reports as damaged is left behind for a new generation
 * ({@linkcode replaceDocsIndex}). Must not be called inside a transaction on `db`.
 */
export function docsIndex(db: DatabaseSync): DatabaseSync {
  return openDocsIndex(db).connection;
}

/**
 * Like {@linkcode docsIndex}, also naming the file opened: what was applied
 * to it is cleared from the queue against that name (see
 * {@linkcode clearIndexChanges}).
 */
export function openDocsIndex(db: DatabaseSync): { connection: DatabaseSync; path: string } {
  let path = currentIndexPath(db);
  const open = INDEXES.get(db);
  if (open !== undefined && open.connection.isOpen && open.path === path) return open;
  if (open !== undefined) closeDocsIndex(db);
  let index: DatabaseSync;
  try {
    index = openIndex(db, path);
  } catch (error) {
    if (path === ":memory:" || !isCorruptionError(error)) {
      throw storeFailure(error, "could not open the document search index", path);
    }
    path = replaceDocsIndex(db, path);
    index = openIndex(db, path);
  }
  if (readIndexState(index, "filled") === undefined) {
    // Queue first, then record it: a crash in between only queues the documents twice.
    transaction(db, () =>
      db.exec(
        `INSERT INTO docs_index_queue (document_id, op)
         SELECT id, 1 FROM docs_documents WHERE is_latest = 1 AND is_text = 1 ORDER BY id`,
      ));
    writeIndexState(index, "filled", "1");
  }
  const opened = { connection: index, path };
  INDEXES.set(db, opened);
  return opened;
}

/**
 * Moves the store to a new, empty index file (the next generation) in place
 * of `damaged`, unless another process already has; returns the file now in
 * use. The damaged file is removed: a process still holding it open finds
 * the store names another file at its next use, and what it applied to the
 * old one stays queued (see {@linkcode clearIndexChanges}), so nothing is lost.
 */
export function replaceDocsIndex(db: DatabaseSync, damaged: string): string {
  const folder = dirname(damaged);
  const next = transaction(db, () => {
    const current = join(folder, readState(db, INDEX_FILE_KEY) ?? FIRST_INDEX_FILE);
    if (current !== damaged) return current;
    let generation = Number(INDEX_FILE_NAME.exec(basename(damaged))?.[1] ?? "0") + 1;
    for (const existing of docsIndexFiles(db)) {
      const number = Number(INDEX_FILE_NAME.exec(basename(existing))?.[1] ?? "0");
      if (number >= generation) generation = number + 1;
    }
    const name = `docs-index-${generation}.db`;
    writeState(db, INDEX_FILE_KEY, name);
    return join(folder, name);
  });
  if (INDEXES.get(db)?.path === damaged) closeDocsIndex(db);
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      Deno.removeSync(damaged + suffix);
    } catch {
      // Not there (or already removed by another process).
    }
  }
  return next;
}

function openIndex(db: DatabaseSync, path: string): DatabaseSync {
  if (path === ":memory:") return prepareIndex(db);
  const index = new DatabaseSync(path, { timeout: 5000 });
  makeFilesPrivate(...sqliteFiles(path));
  try {
    index.exec("PRAGMA journal_mode = WAL");
    index.exec("PRAGMA synchronous = NORMAL");
    return prepareIndex(index);
  } catch (error) {
    index.close();
    throw error;
  }
}

function prepareIndex(index: DatabaseSync): DatabaseSync {
  const created = index.prepare(
    "SELECT 1 AS x FROM sqlite_schema WHERE name = 'docs_fts'",
  ).get() === undefined;
  index.exec(DOCS_INDEX_SCHEMA);
  if (created) { for (const sql of DOCS_INDEX_SETTINGS) index.exec(sql); }
  // Reading the state proves the file is a usable index.
  readIndexState(index, "filled");
  return index;
}

/** Closes the index connection of a store connection, if one is open. */
export function closeDocsIndex(db: DatabaseSync): void {
  const index = INDEXES.get(db)?.connection;
  INDEXES.delete(db);
  if (index !== undefined && index !== db && index.isOpen) index.close();
}

const VALUE = new RowReader<{ value: string }>("index state", { value: "text" });

function readIndexState(index: DatabaseSync, key: string): string | undefined {
  return VALUE.optional(
    prepared(index, "SELECT value FROM docs_index_state WHERE key = ?").get(key),
  )?.value;
}

function writeIndexState(index: DatabaseSync, key: string, value: string): void {
  prepared(
    index,
    "INSERT INTO docs_index_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(key, value);
}

// ---------------------------------------------------------------------------------------------
// The queue (in the store)

/** Queues an index change for a document (inside the caller's store transaction); returns its seq. */
export function queueIndexChange(
  db: DatabaseSync,
  documentId: number,
  op: "add" | "remove",
): number {
  const result = prepared(
    db,
    `INSERT INTO docs_index_queue (document_id, op, queued_at)
     VALUES (?, ?, CAST(unixepoch('subsec') * 1000 AS INTEGER))`,
  ).run(documentId, op === "add" ? 1 : 0);
  return Number(result.lastInsertRowid);
}

/** Reads a queued index change (op 1 adds, 0 removes). (Both backends read it with this reader.) */
export const QUEUED: RowReader<{ seq: number; id: number; op: number }> = new RowReader<
  { seq: number; id: number; op: number }
>(
  "queued index change",
  {
    seq: "number",
    id: "number",
    op: "number",
  },
);

/**
 * Queued changes after `after` that have waited at least `minAgeMs`,
 * oldest first (without texts).
 */
export function queuedIndexChanges(
  db: DatabaseSync,
  limit: number,
  after = 0,
  minAgeMs = 0,
): Array<{ seq: number; op: "add" | "remove"; id: number }> {
  return QUEUED.all(
    prepared(
      db,
      `SELECT seq, document_id AS id, op FROM docs_index_queue
     WHERE seq > ? AND queued_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER) - ?
     ORDER BY seq LIMIT ?`,
    ).all(after, minAgeMs, limit),
  ).map((row) => ({ seq: row.seq, op: row.op === 1 ? "add" : "remove", id: row.id }));
}

/** Whether any change is queued that has waited at least `minAgeMs`. */
export function indexChangesQueued(db: DatabaseSync, minAgeMs = 0): boolean {
  return prepared(
    db,
    `SELECT 1 AS x FROM docs_index_queue
     WHERE queued_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER) - ? LIMIT 1`,
  ).get(minAgeMs) !== undefined;
}

/**
 * Takes up to `limit` queued changes that have waited at least `minAgeMs`, oldest first, and
 * restarts their wait, so another process catching up meanwhile leaves them to this one (a
 * lease: if this one stops before it deletes them, they are taken again once the wait is
 * over). SQLite's own engine applies its queue through the index file instead; a server's
 * engine uses this.
 */
export function leaseIndexChanges(
  db: DatabaseSync,
  limit: number,
  minAgeMs: number,
): Array<{ seq: number; op: "add" | "remove"; id: number }> {
  return QUEUED.all(
    prepared(
      db,
      `UPDATE docs_index_queue SET queued_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
     WHERE seq IN (SELECT seq FROM docs_index_queue
       WHERE queued_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER) - ? ORDER BY seq LIMIT ?)
     RETURNING seq, document_id AS id, op`,
    ).all(minAgeMs, limit),
  ).sort((a, b) => a.seq - b.seq)
    .map((row) => ({ seq: row.seq, op: row.op === 1 ? "add" : "remove", id: row.id }));
}

/** Deletes applied changes from the queue, whatever index they went to; answers how many. */
export function deleteIndexChanges(db: DatabaseSync, seqs: readonly number[]): number {
  if (seqs.length === 0) return 0;
  const statement = prepared(db, "DELETE FROM docs_index_queue WHERE seq = ?");
  let deleted = 0;
  for (const seq of seqs) deleted += Number(statement.run(seq).changes);
  return deleted;
}

/**
 * Removes changes applied to the index file `appliedTo` from the queue
 * (inside the caller's store transaction). When the store has moved to
 * another index file since, they stay queued: the new file needs them too.
 */
export function clearIndexChanges(
  db: DatabaseSync,
  seqs: Iterable<number>,
  appliedTo: string,
): void {
  if (currentIndexPath(db) !== appliedTo) return;
  const statement = prepared(db, "DELETE FROM docs_index_queue WHERE seq = ?");
  for (const seq of seqs) statement.run(seq);
}

// ---------------------------------------------------------------------------------------------
// Reads

/** Per-column BM25 weights: title, path, body. */
export interface ColumnWeights {
  /** Weight of the title column. */
  title: number;
  /** Weight of the path column. */
  path: number;
  /** Weight of the body column. */
  body: number;
}

/** One keyword hit: document id and its BM25 score (higher is better). */
export interface FtsHit {
  /** Document id. */
  id: number;
  /** BM25 score, sign flipped so larger is better. */
  score: number;
}

const FTS_HIT = new RowReader<FtsHit>("search hit", { id: "number", score: "number" });

/**
 * Runs an FTS5 MATCH expression on an index connection and returns the best
 * `limit` documents by weighted BM25; with `allow`, only documents it
 * contains (ranked matches are read until `limit` of them are found).
 */
export function matchFts(
  index: DatabaseSync,
  expression: string,
  weights: ColumnWeights,
  limit: number,
  allow?: ReadonlySet<number>,
): FtsHit[] {
  const bm25 = `bm25(docs_fts, ${weights.title}, ${weights.path}, ${weights.body})`;
  const sql = `SELECT rowid AS id, -${bm25} AS score FROM docs_fts WHERE docs_fts MATCH ?
    ORDER BY ${bm25}`;
  if (allow === undefined) {
    // The index only ever holds latest versions, so nothing needs filtering in the common case.
    return FTS_HIT.all(prepared(index, `${sql} LIMIT ?`).all(expression, limit));
  }
  const hits: FtsHit[] = [];
  if (allow.size === 0) return hits;
  for (const found of prepared(index, sql).iterate(expression)) {
    const row = FTS_HIT.one(found);
    if (!allow.has(row.id)) continue;
    hits.push({ id: row.id, score: row.score });
    if (hits.length >= limit) break;
  }
  return hits;
}

/**
 * Vocabulary words sharing trigrams with a word, most shared first: the
 * candidates a fuzzy match then scores exactly. `expression` is a trigram
 * FTS5 MATCH expression (quoted trigrams joined with OR).
 */
export function termsSharingTrigrams(
  index: DatabaseSync,
  expression: string,
  limit: number,
): string[] {
  return textColumn(
    prepared(
      index,
      `SELECT t.term FROM docs_terms_fts f JOIN docs_terms t ON t.id = f.rowid
     WHERE docs_terms_fts MATCH ? ORDER BY f.rank LIMIT ?`,
    ).all(expression, limit),
    "term",
  );
}
