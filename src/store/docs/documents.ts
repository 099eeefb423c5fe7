/**
 * Document rows and what hangs off them: tags and key/value metadata (the
 * filters, listing and totals are in document_listing.ts). A document is
 * one (path, content hash) pair; re-adding a changed file adds a new row and
 * marks the older one as no longer the latest. The collections a document
 * is in are in collections.ts.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import {
  numberColumn,
  pickColumns,
  RowReader,
  type RowShape,
  type SqlParam,
  textColumn,
} from "../rows.ts";
import { prepared } from "../statements.ts";

/** One stored document. */
export interface DocumentRow {
  /** Row id (stable for the life of the document). */
  id: number;
  /** SHA-256 of the bytes. */
  hash: string;
  /** Absolute path, URL-derived path or given name. */
  path: string;
  /** Path below the folder it was added from (used by restore). */
  relative_path: string;
  /** Base name. */
  name: string;
  /** Lowercase extension with its dot, or "". */
  extension: string;
  /** MIME type. */
  mime: string;
  /** 1 for text, 0 for binary. */
  is_text: number;
  /** Bytes. */
  size: number;
  /** Title (heading, HTML title or file name). */
  title: string;
  /** File creation time (or add time), ms. */
  created_at: number;
  /** File modification time, ms. */
  modified_at: number;
  /** When this version was stored, ms. */
  indexed_at: number;
  /** Snapshot it was first stored in. */
  snapshot_id: string | null;
  /** Session it was added in. */
  session_id: string | null;
  /** URL it was downloaded from. */
  source_url: string | null;
  /** 1 while this is the newest version of its path. */
  is_latest: number;
  /** Embedding model of its stored vectors, if any. */
  vector_model: string | null;
  /** Team mode: the person who added it through a team server; null for the server's owner. */
  person: string | null;
}

/**
 * The fields of a new document row (`vector_model` when its vectors are written with it,
 * `person` when a team server's person adds it).
 */
export type NewDocument = Omit<DocumentRow, "id" | "is_latest" | "vector_model" | "person"> & {
  vector_model?: string | null;
  person?: string | null;
};

const DOCUMENT_SHAPE: RowShape<DocumentRow> = {
  id: "number",
  hash: "text",
  path: "text",
  relative_path: "text",
  name: "text",
  extension: "text",
  mime: "text",
  is_text: "number",
  size: "number",
  title: "text",
  created_at: "number",
  modified_at: "number",
  indexed_at: "number",
  snapshot_id: "text?",
  session_id: "text?",
  source_url: "text?",
  is_latest: "number",
  vector_model: "text?",
  person: "text?",
};

/** Reads {@linkcode DocumentRow} rows (here and in document_listing.ts). */
export const DOCUMENT = new RowReader<DocumentRow>("document", DOCUMENT_SHAPE);

/** The document columns over alias `d`, for a SELECT list (here and in document_listing.ts). */
export const DOCUMENT_COLUMNS = DOCUMENT.columnsOf("d");

/** The columns a new document row is written with, in parameter order. */
const NEW_DOCUMENT_COLUMNS = [
  "hash",
  "path",
  "relative_path",
  "name",
  "extension",
  "mime",
  "is_text",
  "size",
  "title",
  "created_at",
  "modified_at",
  "indexed_at",
  "snapshot_id",
  "session_id",
  "source_url",
  "vector_model",
  "person",
] as const;

/**
 * The insert of a new document row as its path's latest version, on either backend: `mark`
 * writes the n-th parameter's placeholder; {@linkcode newDocumentValues} gives the values.
 */
export function insertDocumentSql(mark: (n: number) => string): string {
  const marks = NEW_DOCUMENT_COLUMNS.map((_, i) => mark(i + 1)).join(", ");
  return `INSERT INTO docs_documents (${NEW_DOCUMENT_COLUMNS.join(", ")}, is_latest)
    VALUES (${marks}, 1)`;
}

/** The parameters of {@linkcode insertDocumentSql} for a document. */
export function newDocumentValues(doc: NewDocument): SqlParam[] {
  return NEW_DOCUMENT_COLUMNS.map((column) => doc[column] ?? null);
}

/** Inserts a document as the latest version of its path; returns its id. */
export function insertDocument(db: DatabaseSync, doc: NewDocument): number {
  const result = prepared(db, insertDocumentSql(() => "?")).run(...newDocumentValues(doc));
  return Number(result.lastInsertRowid);
}

/** Fields refreshed when an unchanged document is added again. */
export interface ReAddFields {
  /** Path below the folder it was added from. */
  relative_path: string;
  /** File modification time. */
  modified_at: number;
  /** Session the add happened in, when one was active. */
  session_id?: string;
}

/** Refreshes an existing document on re-add and makes it the latest version of its path. */
export function refreshDocument(db: DatabaseSync, id: number, fields: ReAddFields): void {
  prepared(
    db,
    `UPDATE docs_documents SET relative_path = ?, modified_at = ?, is_latest = 1,
       session_id = coalesce(?, session_id)
     WHERE id = ?`,
  ).run(fields.relative_path, fields.modified_at, fields.session_id ?? null, id);
}

/**
 * In one query, what an add of `hash` at `path` needs to know: the version
 * with that content, if stored, and the path's latest version.
 */
export function pathVersions(
  db: DatabaseSync,
  path: string,
  hash: string,
): { same?: DocumentRow; latest?: DocumentRow } {
  const rows = DOCUMENT.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.path = ? AND (d.hash = ? OR d.is_latest = 1)`,
    ).all(path, hash),
  );
  return {
    same: rows.find((row) => row.hash === hash),
    latest: rows.find((row) => row.is_latest === 1),
  };
}

/** The latest version stored for a path. */
export function latestDocumentForPath(db: DatabaseSync, path: string): DocumentRow | undefined {
  return DOCUMENT.optional(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.is_latest = 1 AND d.path = ?`,
    ).get(path),
  );
}

/**
 * Marks every other latest version of `path` as superseded; returns their
 * ids so the caller can drop them from the search indexes.
 */
export function supersedeOtherVersions(db: DatabaseSync, path: string, keepId: number): number[] {
  const ids = numberColumn(
    prepared(
      db,
      "SELECT id FROM docs_documents WHERE is_latest = 1 AND path = ? AND id <> ?",
    ).all(path, keepId),
    "id",
  );
  if (ids.length > 0) {
    prepared(
      db,
      "UPDATE docs_documents SET is_latest = 0 WHERE is_latest = 1 AND path = ? AND id <> ?",
    )
      .run(path, keepId);
  }
  return ids;
}

/** The document with this id. */
export function documentById(db: DatabaseSync, id: number): DocumentRow | undefined {
  return DOCUMENT.optional(
    prepared(db, `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.id = ?`).get(id),
  );
}

/** Documents with these ids, in no particular order. */
export function documentsByIds(db: DatabaseSync, ids: readonly number[]): DocumentRow[] {
  if (ids.length === 0) return [];
  // The ids as one JSON parameter: one statement for any number of them.
  return DOCUMENT.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)),
  );
}

/** Documents whose hash starts with `prefix` (lowercase hex), newest first. */
export function documentsByHashPrefix(
  db: DatabaseSync,
  prefix: string,
  latestOnly: boolean,
  limit = 1000,
): DocumentRow[] {
  // A range on the indexed column instead of LIKE, so the lookup is an index seek.
  return DOCUMENT.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.hash >= ? AND d.hash < ?
       AND (? = 0 OR d.is_latest = 1) ORDER BY d.is_latest DESC, d.indexed_at DESC, d.id DESC LIMIT ?`,
    ).all(prefix, prefix + "g", latestOnly ? 1 : 0, limit),
  );
}

/**
 * Latest documents a name refers to: the exact path, the base name, or a
 * path ending in `/<name>` (so `src/main.cpp` finds `/repo/src/main.cpp`).
 * Newest first.
 */
export function documentsByName(db: DatabaseSync, name: string, limit = 1000): DocumentRow[] {
  return DOCUMENT.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.is_latest = 1 AND (d.path = ?1 OR d.name = ?1
       OR (length(d.path) > length(?1) AND substr(d.path, length(d.path) - length(?1)) = '/' || ?1))
     ORDER BY (d.path = ?1) DESC, d.indexed_at DESC, d.id DESC LIMIT ?2`,
    ).all(name, limit),
  );
}

const DOCUMENT_PATH_COLUMNS = ["id", "path", "name", "hash"] as const;

/** A document's id, path, name and content hash. */
export type DocumentPath = Pick<DocumentRow, typeof DOCUMENT_PATH_COLUMNS[number]>;

/** Reads a document's id, path, name and hash. (Both backends read it with this reader.) */
export const DOCUMENT_PATH: RowReader<DocumentPath> = new RowReader<DocumentPath>(
  "document path",
  pickColumns(DOCUMENT_SHAPE, DOCUMENT_PATH_COLUMNS),
);

/** Every version of every path, for glob matching (id, path, name only). */
export function documentPathsAll(db: DatabaseSync, latestOnly: boolean): DocumentPath[] {
  return DOCUMENT_PATH.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_PATH.columns} FROM docs_documents WHERE (? = 0 OR is_latest = 1)
       ORDER BY id`,
    ).all(latestOnly ? 1 : 0),
  );
}

/** All versions stored for these paths. */
export function documentsForPaths(db: DatabaseSync, paths: readonly string[]): DocumentRow[] {
  const out: DocumentRow[] = [];
  const statement = prepared(
    db,
    `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.path = ?`,
  );
  for (const path of paths) out.push(...DOCUMENT.all(statement.all(path)));
  return out;
}

/**
 * Documents with ids above `afterId`, oldest first, at most `limit`: every version, in the
 * order they were stored (what `vantage sync` sends a team server).
 */
export function documentsAfter(db: DatabaseSync, afterId: number, limit: number): DocumentRow[] {
  return DOCUMENT.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.id > ? ORDER BY d.id LIMIT ?`,
    ).all(afterId, limit),
  );
}

/** Deletes a document row (tags, metadata, collection and snapshot memberships go with it). */
export function deleteDocumentRow(db: DatabaseSync, id: number): void {
  prepared(db, "DELETE FROM docs_documents WHERE id = ?").run(id);
}

/** Records which embedding model produced a document's vectors. */
export function setVectorModel(db: DatabaseSync, id: number, model: string | null): void {
  prepared(db, "UPDATE docs_documents SET vector_model = ? WHERE id = ?").run(model, id);
}

/** Whether a document with this id exists and is the latest version of its path. */
export function isLatestDocument(db: DatabaseSync, id: number): boolean {
  return prepared(db, "SELECT 1 AS x FROM docs_documents WHERE id = ? AND is_latest = 1").get(
    id,
  ) !==
    undefined;
}

/** Latest text documents whose vectors are missing or from another model. */
export function documentsNeedingVectors(
  db: DatabaseSync,
  model: string,
  limit: number,
): DocumentRow[] {
  return DOCUMENT.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE d.is_latest = 1 AND d.is_text = 1
       AND (d.vector_model IS NULL OR d.vector_model <> ?) ORDER BY d.id LIMIT ?`,
    ).all(model, limit),
  );
}

// ---------------------------------------------------------------------------------------------
// Tags and metadata

/** Adds tags to a document (existing ones are kept). */
export function addTags(db: DatabaseSync, id: number, tags: readonly string[]): void {
  const statement = prepared(
    db,
    "INSERT OR IGNORE INTO docs_tags (document_id, tag) VALUES (?, ?)",
  );
  for (const tag of tags) statement.run(id, tag);
}

/** Removes tags from a document. */
export function removeTags(db: DatabaseSync, id: number, tags: readonly string[]): void {
  const statement = prepared(db, "DELETE FROM docs_tags WHERE document_id = ? AND tag = ?");
  for (const tag of tags) statement.run(id, tag);
}

/** A document's tags, sorted. */
export function tagsOf(db: DatabaseSync, id: number): string[] {
  return textColumn(
    prepared(db, "SELECT tag FROM docs_tags WHERE document_id = ? ORDER BY tag").all(id),
    "tag",
  );
}

/** Sets metadata values on a document (replacing values of the same keys). */
export function setMetadata(db: DatabaseSync, id: number, entries: Record<string, string>): void {
  const statement = prepared(
    db,
    `INSERT INTO docs_metadata (document_id, key, value) VALUES (?, ?, ?)
     ON CONFLICT (document_id, key) DO UPDATE SET value = excluded.value`,
  );
  for (const [key, value] of Object.entries(entries)) statement.run(id, key, value);
}

/** Removes metadata keys from a document. */
export function removeMetadata(db: DatabaseSync, id: number, keys: readonly string[]): void {
  const statement = prepared(db, "DELETE FROM docs_metadata WHERE document_id = ? AND key = ?");
  for (const key of keys) statement.run(id, key);
}

/** Reads a metadata key and value. (Both backends read it with this reader.) */
export const METADATA: RowReader<{ key: string; value: string }> = new RowReader<
  { key: string; value: string }
>(
  "document metadata",
  {
    key: "text",
    value: "text",
  },
);

/** A document's metadata as an object. */
export function metadataOf(db: DatabaseSync, id: number): Record<string, string> {
  const out: Record<string, string> = {};
  const rows = METADATA.all(
    prepared(db, "SELECT key, value FROM docs_metadata WHERE document_id = ? ORDER BY key").all(id),
  );
  for (const row of rows) out[row.key] = row.value;
  return out;
}
