/**
 * Document rows and what hangs off them: tags, key/value metadata, the
 * filters shared by list, search and grep, and the totals behind `status`.
 * A document is one (path, content hash) pair; re-adding a changed file adds
 * a new row and marks the older one as no longer the latest. Collections are
 * labels: a document is in any number of them, each remembering the path it
 * has below the folder it was added from into that collection.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import type { DatabaseSync } from "./database.ts";
import { prepared } from "./docs_statements.ts";

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
}

/** The fields of a new document row (`vector_model` when its vectors are written with it). */
export type NewDocument = Omit<DocumentRow, "id" | "is_latest" | "vector_model"> & {
  vector_model?: string | null;
};

const COLUMNS = `d.id, d.hash, d.path, d.relative_path, d.name, d.extension, d.mime, d.is_text,
  d.size, d.title, d.created_at, d.modified_at, d.indexed_at, d.snapshot_id, d.session_id,
  d.source_url, d.is_latest, d.vector_model`;

/** Inserts a document as the latest version of its path; returns its id. */
export function insertDocument(db: DatabaseSync, doc: NewDocument): number {
  const result = prepared(
    db,
    `INSERT INTO docs_documents (hash, path, relative_path, name, extension, mime, is_text, size,
       title, created_at, modified_at, indexed_at, snapshot_id, session_id, source_url, is_latest,
       vector_model)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
  ).run(
    doc.hash,
    doc.path,
    doc.relative_path,
    doc.name,
    doc.extension,
    doc.mime,
    doc.is_text,
    doc.size,
    doc.title,
    doc.created_at,
    doc.modified_at,
    doc.indexed_at,
    doc.snapshot_id,
    doc.session_id,
    doc.source_url,
    doc.vector_model ?? null,
  );
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
  const rows = prepared(
    db,
    `SELECT ${COLUMNS} FROM docs_documents d WHERE d.path = ? AND (d.hash = ? OR d.is_latest = 1)`,
  ).all(path, hash) as unknown as DocumentRow[];
  return {
    same: rows.find((row) => row.hash === hash),
    latest: rows.find((row) => row.is_latest === 1),
  };
}

/** The latest version stored for a path. */
export function latestDocumentForPath(db: DatabaseSync, path: string): DocumentRow | undefined {
  return prepared(
    db,
    `SELECT ${COLUMNS} FROM docs_documents d WHERE d.is_latest = 1 AND d.path = ?`,
  ).get(path) as DocumentRow | undefined;
}

/**
 * Marks every other latest version of `path` as superseded; returns their
 * ids so the caller can drop them from the search indexes.
 */
export function supersedeOtherVersions(db: DatabaseSync, path: string, keepId: number): number[] {
  const ids = (prepared(
    db,
    "SELECT id FROM docs_documents WHERE is_latest = 1 AND path = ? AND id <> ?",
  ).all(path, keepId) as Array<{ id: number }>).map((row) => row.id);
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
  return prepared(db, `SELECT ${COLUMNS} FROM docs_documents d WHERE d.id = ?`).get(id) as
    | DocumentRow
    | undefined;
}

/** Documents with these ids, in no particular order. */
export function documentsByIds(db: DatabaseSync, ids: readonly number[]): DocumentRow[] {
  if (ids.length === 0) return [];
  const out: DocumentRow[] = [];
  // Bounded IN lists keep statements reusable and under SQLite's variable limit.
  for (let i = 0; i < ids.length; i += 200) {
    const slice = ids.slice(i, i + 200);
    out.push(
      ...(db.prepare(
        `SELECT ${COLUMNS} FROM docs_documents d WHERE d.id IN (${slice.map(() => "?").join(",")})`,
      ).all(...slice) as unknown as DocumentRow[]),
    );
  }
  return out;
}

/** Documents whose hash starts with `prefix` (lowercase hex), newest first. */
export function documentsByHashPrefix(
  db: DatabaseSync,
  prefix: string,
  latestOnly: boolean,
  limit = 1000,
): DocumentRow[] {
  // A range on the indexed column instead of LIKE, so the lookup is an index seek.
  return prepared(
    db,
    `SELECT ${COLUMNS} FROM docs_documents d WHERE d.hash >= ? AND d.hash < ?
       AND (? = 0 OR d.is_latest = 1) ORDER BY d.is_latest DESC, d.indexed_at DESC, d.id DESC LIMIT ?`,
  ).all(prefix, prefix + "g", latestOnly ? 1 : 0, limit) as unknown as DocumentRow[];
}

/**
 * Latest documents a name refers to: the exact path, the base name, or a
 * path ending in `/<name>` (so `src/main.cpp` finds `/repo/src/main.cpp`).
 * Newest first.
 */
export function documentsByName(db: DatabaseSync, name: string, limit = 1000): DocumentRow[] {
  return prepared(
    db,
    `SELECT ${COLUMNS} FROM docs_documents d WHERE d.is_latest = 1 AND (d.path = ?1 OR d.name = ?1
       OR (length(d.path) > length(?1) AND substr(d.path, length(d.path) - length(?1)) = '/' || ?1))
     ORDER BY (d.path = ?1) DESC, d.indexed_at DESC, d.id DESC LIMIT ?2`,
  ).all(name, limit) as unknown as DocumentRow[];
}

/** Every version of every path, for glob matching (id, path, name only). */
export function documentPathsAll(
  db: DatabaseSync,
  latestOnly: boolean,
): Array<{ id: number; path: string; name: string; hash: string }> {
  return prepared(
    db,
    "SELECT id, path, name, hash FROM docs_documents WHERE (? = 0 OR is_latest = 1) ORDER BY id",
  ).all(latestOnly ? 1 : 0) as Array<{ id: number; path: string; name: string; hash: string }>;
}

/** All versions stored for these paths. */
export function documentsForPaths(db: DatabaseSync, paths: readonly string[]): DocumentRow[] {
  const out: DocumentRow[] = [];
  const statement = prepared(db, `SELECT ${COLUMNS} FROM docs_documents d WHERE d.path = ?`);
  for (const path of paths) out.push(...(statement.all(path) as unknown as DocumentRow[]));
  return out;
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
  return prepared(
    db,
    `SELECT ${COLUMNS} FROM docs_documents d WHERE d.is_latest = 1 AND d.is_text = 1
       AND (d.vector_model IS NULL OR d.vector_model <> ?) ORDER BY d.id LIMIT ?`,
  ).all(model, limit) as unknown as DocumentRow[];
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
  return (prepared(db, "SELECT tag FROM docs_tags WHERE document_id = ? ORDER BY tag").all(
    id,
  ) as Array<{ tag: string }>).map((row) => row.tag);
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

/** A document's metadata as an object. */
export function metadataOf(db: DatabaseSync, id: number): Record<string, string> {
  const out: Record<string, string> = {};
  const rows = prepared(
    db,
    "SELECT key, value FROM docs_metadata WHERE document_id = ? ORDER BY key",
  ).all(id) as Array<{ key: string; value: string }>;
  for (const row of rows) out[row.key] = row.value;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Collections: labels, many per document

/**
 * Puts a document in a collection, at `relativePath` below the folder it was
 * added from into it; already there, it takes the new relative path.
 */
export function addToCollection(
  db: DatabaseSync,
  id: number,
  collection: string,
  relativePath: string,
): void {
  prepared(
    db,
    `INSERT INTO docs_collection_members (collection, document_id, relative_path) VALUES (?, ?, ?)
     ON CONFLICT (collection, document_id) DO UPDATE SET relative_path = excluded.relative_path`,
  ).run(collection, id, relativePath);
}

/** Takes a document out of a collection; returns whether it was in it. */
export function removeFromCollection(db: DatabaseSync, id: number, collection: string): boolean {
  return Number(
    prepared(
      db,
      "DELETE FROM docs_collection_members WHERE collection = ? AND document_id = ?",
    ).run(collection, id).changes,
  ) > 0;
}

/**
 * Gives document `toId` every collection `fromId` is in (with the paths it
 * has there), keeping those it is in already: a new version of a path stays
 * in the collections of the version it replaces.
 */
export function inheritCollections(db: DatabaseSync, fromId: number, toId: number): void {
  prepared(
    db,
    `INSERT OR IGNORE INTO docs_collection_members (collection, document_id, relative_path)
     SELECT collection, ?, relative_path FROM docs_collection_members WHERE document_id = ?`,
  ).run(toId, fromId);
}

/** The collections a document is in, sorted. */
export function collectionsOf(db: DatabaseSync, id: number): string[] {
  return (prepared(
    db,
    "SELECT collection FROM docs_collection_members WHERE document_id = ? ORDER BY collection",
  ).all(id) as Array<{ collection: string }>).map((row) => row.collection);
}

/** Whether any document (of any version) is in a collection. */
export function collectionExists(db: DatabaseSync, collection: string): boolean {
  return prepared(
    db,
    "SELECT 1 AS x FROM docs_collection_members WHERE collection = ? LIMIT 1",
  ).get(collection) !== undefined;
}

/** Each document's relative path in a collection, by document id. */
export function collectionPaths(db: DatabaseSync, collection: string): Map<number, string> {
  const rows = prepared(
    db,
    "SELECT document_id, relative_path FROM docs_collection_members WHERE collection = ?",
  ).all(collection) as Array<{ document_id: number; relative_path: string }>;
  return new Map(rows.map((row) => [row.document_id, row.relative_path]));
}

// ---------------------------------------------------------------------------------------------
// Filters shared by list, search and grep

/** Conditions a document must meet. */
export interface DocumentFilter {
  /** Only the latest version of each path (default true). */
  latestOnly?: boolean;
  /** Only documents added in this session or pinned to it. */
  session?: string;
  /** Only text (true) or binary (false) documents. */
  isText?: boolean;
  /** Only this extension (with or without the dot, any case). */
  extension?: string;
  /** Only documents in this collection (among any others they are in). */
  collection?: string;
  /** Only documents belonging to this snapshot. */
  snapshotId?: string;
  /** Only documents carrying every one of these tags. */
  tags?: readonly string[];
}

/** A WHERE fragment over alias `d`, with its parameters. */
export interface SqlFragment {
  /** SQL text, always safe to put after WHERE. */
  sql: string;
  /** Positional parameters in order. */
  params: SQLInputValue[];
}

/** Builds the WHERE conditions for a filter (over `docs_documents d`). */
export function filterSql(filter: DocumentFilter): SqlFragment {
  const parts: string[] = [];
  const params: SQLInputValue[] = [];
  if (filter.latestOnly !== false) parts.push("d.is_latest = 1");
  if (filter.session !== undefined) {
    parts.push(
      "(d.session_id = ? OR d.id IN (SELECT document_id FROM docs_session_pins WHERE session_id = ?))",
    );
    params.push(filter.session, filter.session);
  }
  if (filter.isText !== undefined) {
    parts.push("d.is_text = ?");
    params.push(filter.isText ? 1 : 0);
  }
  if (filter.extension !== undefined && filter.extension !== "") {
    const ext = filter.extension.startsWith(".") ? filter.extension : "." + filter.extension;
    parts.push("d.extension = ?");
    params.push(ext.toLowerCase());
  }
  if (filter.collection !== undefined) {
    parts.push("d.id IN (SELECT document_id FROM docs_collection_members WHERE collection = ?)");
    params.push(filter.collection);
  }
  if (filter.snapshotId !== undefined) {
    parts.push(
      "(d.snapshot_id = ? OR d.id IN (SELECT document_id FROM docs_snapshot_members WHERE snapshot_id = ?))",
    );
    params.push(filter.snapshotId, filter.snapshotId);
  }
  for (const tag of filter.tags ?? []) {
    parts.push("d.id IN (SELECT document_id FROM docs_tags WHERE tag = ?)");
    params.push(tag);
  }
  return { sql: parts.length === 0 ? "1" : parts.join(" AND "), params };
}

/** Whether a filter restricts anything beyond "latest versions". */
export function isNarrowFilter(filter: DocumentFilter): boolean {
  return filter.session !== undefined || filter.isText !== undefined ||
    (filter.extension !== undefined && filter.extension !== "") ||
    filter.collection !== undefined || filter.snapshotId !== undefined ||
    (filter.tags !== undefined && filter.tags.length > 0) || filter.latestOnly === false;
}

/** Ids of every document a filter selects. */
export function filteredIds(db: DatabaseSync, filter: DocumentFilter): number[] {
  const where = filterSql(filter);
  return (db.prepare(`SELECT d.id FROM docs_documents d WHERE ${where.sql}`).all(
    ...where.params,
  ) as Array<{ id: number }>).map((row) => row.id);
}

/** Sort keys of {@linkcode listDocuments}. */
export type DocumentSort = "name" | "size" | "created" | "modified" | "indexed" | "path";

const SORT_COLUMNS: Record<DocumentSort, string> = {
  name: "d.name",
  size: "d.size",
  created: "d.created_at",
  modified: "d.modified_at",
  indexed: "d.indexed_at",
  path: "d.path",
};

/** Options of {@linkcode listDocuments}. */
export interface ListQuery {
  /** Which documents. */
  filter: DocumentFilter;
  /** Sort key (default indexed). */
  sortBy?: DocumentSort;
  /** Sort direction (default desc). */
  order?: "asc" | "desc";
  /** Page size; undefined for everything. */
  limit?: number;
  /** Rows to skip. */
  offset?: number;
}

/** Lists documents matching a filter, sorted and paged, with the total before paging. */
export function listDocuments(
  db: DatabaseSync,
  query: ListQuery,
): { total: number; rows: DocumentRow[] } {
  const where = filterSql(query.filter);
  const total = (db.prepare(`SELECT count(*) AS n FROM docs_documents d WHERE ${where.sql}`).get(
    ...where.params,
  ) as { n: number }).n;
  const column = SORT_COLUMNS[query.sortBy ?? "indexed"];
  const direction = query.order === "asc" ? "ASC" : "DESC";
  const limit = query.limit ?? -1;
  const rows = db.prepare(
    `SELECT ${COLUMNS} FROM docs_documents d WHERE ${where.sql}
     ORDER BY ${column} ${direction}, d.id ${direction} LIMIT ? OFFSET ?`,
  ).all(...where.params, limit, query.offset ?? 0) as unknown as DocumentRow[];
  return { total, rows };
}

// ---------------------------------------------------------------------------------------------
// Totals

/** Document totals for `status`. */
export interface DocumentTotals {
  /** Document rows (every version). */
  documents: number;
  /** Their bytes. */
  bytes: number;
  /** Latest versions only. */
  latest_documents: number;
  /** Latest text documents. */
  text_documents: number;
  /** Latest binary documents. */
  binary_documents: number;
  /** Distinct contents. */
  contents: number;
  /** Bytes of distinct contents. */
  content_bytes: number;
}

/** Counts documents and contents. */
export function documentTotals(db: DatabaseSync): DocumentTotals {
  const docs = prepared(
    db,
    `SELECT count(*) AS documents, coalesce(sum(size), 0) AS bytes,
            coalesce(sum(is_latest), 0) AS latest_documents,
            coalesce(sum(is_latest AND is_text), 0) AS text_documents,
            coalesce(sum(is_latest AND NOT is_text), 0) AS binary_documents
     FROM docs_documents`,
  ).get() as Record<string, number>;
  const contents = prepared(
    db,
    "SELECT count(*) AS contents, coalesce(sum(size), 0) AS content_bytes FROM docs_contents",
  ).get() as Record<string, number>;
  return {
    documents: docs.documents,
    bytes: docs.bytes,
    latest_documents: docs.latest_documents,
    text_documents: docs.text_documents,
    binary_documents: docs.binary_documents,
    contents: contents.contents,
    content_bytes: contents.content_bytes,
  };
}

/** Per-type counts for `status` with `file_types`. */
export interface FileTypeCount {
  /** Extension with its dot, or "" for none. */
  extension: string;
  /** MIME type. */
  mime: string;
  /** Latest documents of this type. */
  count: number;
  /** Their bytes. */
  bytes: number;
}

/** Latest documents grouped by extension and MIME type, most numerous first. */
export function fileTypeCounts(db: DatabaseSync): FileTypeCount[] {
  return prepared(
    db,
    `SELECT extension, mime, count(*) AS count, sum(size) AS bytes FROM docs_documents
     WHERE is_latest = 1 GROUP BY extension, mime ORDER BY count DESC, extension`,
  ).all() as unknown as FileTypeCount[];
}

/** One collection with its size. */
export interface CollectionRow {
  /** Collection name. */
  name: string;
  /** Latest documents in it. */
  document_count: number;
  /** Their bytes. */
  total_bytes: number;
}

/**
 * Every collection holding a latest document, by name. A document in several
 * collections counts in each.
 */
export function collectionRows(db: DatabaseSync): CollectionRow[] {
  return prepared(
    db,
    `SELECT m.collection AS name, count(*) AS document_count, sum(d.size) AS total_bytes
     FROM docs_collection_members m JOIN docs_documents d ON d.id = m.document_id
     WHERE d.is_latest = 1 GROUP BY m.collection ORDER BY m.collection`,
  ).all() as unknown as CollectionRow[];
}
