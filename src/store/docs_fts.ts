/**
 * The full-text side of the document store: an FTS5 index of title, path and
 * body (BM25 with per-column weights) and a trigram index over the words seen
 * in documents, which fuzzy search uses to find words close to a misspelt one.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";
import { type DocumentFilter, filterSql, isNarrowFilter } from "./docs_documents.ts";
import { prepared, readState, writeState } from "./docs_statements.ts";

/** Adds a document's text to the keyword index (rowid = document id). */
export function insertFtsRow(
  db: DatabaseSync,
  id: number,
  title: string,
  path: string,
  body: string,
): void {
  prepared(db, "INSERT INTO docs_fts (rowid, title, path, body) VALUES (?, ?, ?, ?)").run(
    id,
    title,
    path,
    body,
  );
}

/** Removes a document from the keyword index. */
export function deleteFtsRow(db: DatabaseSync, id: number): void {
  prepared(db, "DELETE FROM docs_fts WHERE rowid = ?").run(id);
}

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

/**
 * Runs an FTS5 MATCH expression and returns the best `limit` documents by
 * weighted BM25, restricted by `filter` when it narrows anything.
 */
export function matchFts(
  db: DatabaseSync,
  expression: string,
  weights: ColumnWeights,
  limit: number,
  filter: DocumentFilter = {},
): FtsHit[] {
  const bm25 = `bm25(docs_fts, ${weights.title}, ${weights.path}, ${weights.body})`;
  if (!isNarrowFilter(filter)) {
    // The index only ever holds latest versions, so no join is needed for the common case.
    return prepared(
      db,
      `SELECT rowid AS id, -${bm25} AS score FROM docs_fts WHERE docs_fts MATCH ?
       ORDER BY ${bm25} LIMIT ?`,
    ).all(expression, limit) as unknown as FtsHit[];
  }
  const where = filterSql(filter);
  return db.prepare(
    `SELECT docs_fts.rowid AS id, -${bm25} AS score
     FROM docs_fts JOIN docs_documents d ON d.id = docs_fts.rowid
     WHERE docs_fts MATCH ? AND ${where.sql}
     ORDER BY ${bm25} LIMIT ?`,
  ).all(expression, ...where.params, limit) as unknown as FtsHit[];
}

/** Adds words to the fuzzy vocabulary (words already known are ignored). */
export function insertTerms(db: DatabaseSync, terms: Iterable<string>): void {
  const statement = prepared(db, "INSERT OR IGNORE INTO docs_terms (term) VALUES (?)");
  for (const term of terms) statement.run(term);
}

/** Every word in the fuzzy vocabulary. */
export function allTerms(db: DatabaseSync): string[] {
  return (prepared(db, "SELECT term FROM docs_terms").all() as Array<{ term: string }>).map((row) =>
    row.term
  );
}

/**
 * Vocabulary words sharing trigrams with a word, most shared first: the
 * candidates a fuzzy match then scores exactly. `expression` is a trigram
 * FTS5 MATCH expression (quoted trigrams joined with OR).
 */
export function termsSharingTrigrams(
  db: DatabaseSync,
  expression: string,
  limit: number,
): string[] {
  return (prepared(
    db,
    `SELECT t.term FROM docs_terms_fts f JOIN docs_terms t ON t.id = f.rowid
     WHERE docs_terms_fts MATCH ? ORDER BY f.rank LIMIT ?`,
  ).all(expression, limit) as Array<{ term: string }>).map((row) => row.term);
}

/**
 * Brings the trigram index up to date with the vocabulary in one bulk
 * statement (far cheaper than indexing word by word as they arrive).
 */
export function syncTermIndex(db: DatabaseSync): void {
  const through = Number(readState(db, "terms_indexed_through") ?? "0");
  const last = (prepared(db, "SELECT coalesce(max(id), 0) AS id FROM docs_terms").get() as {
    id: number;
  }).id;
  if (last <= through) return;
  prepared(
    db,
    "INSERT INTO docs_terms_fts (rowid, term) SELECT id, term FROM docs_terms WHERE id > ? AND id <= ?",
  ).run(through, last);
  writeState(db, "terms_indexed_through", String(last));
}

/** Whether words were added to the vocabulary since the trigram index was last synced. */
export function termIndexBehind(db: DatabaseSync): boolean {
  const through = Number(readState(db, "terms_indexed_through") ?? "0");
  const last = (prepared(db, "SELECT coalesce(max(id), 0) AS id FROM docs_terms").get() as {
    id: number;
  }).id;
  return last > through;
}
