/**
 * Document rows on PostgreSQL, with their tags and metadata: the answers of SQLite's
 * (../../docs/documents.ts), read by the same row readers. A list of ids, paths, tags or keys
 * travels as one array parameter, so a call is one statement whatever its length.
 *
 * @module
 */
import {
  DOCUMENT,
  DOCUMENT_COLUMNS,
  DOCUMENT_PATH,
  type DocumentPath,
  type DocumentRow,
  insertDocumentSql,
  METADATA,
  type NewDocument,
  newDocumentValues,
  type ReAddFields,
} from "../../docs/documents.ts";
import { numberColumn, textColumn } from "../../rows.ts";
import { pgPlaceholder } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { readOptionalRow, readRows } from "../reads.ts";

const SELECT = `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d`;

/** Inserts a document as the latest version of its path; answers its id. */
export async function insertDocument(q: PgQueryable, doc: NewDocument): Promise<number> {
  const rows = await q.query(
    `${insertDocumentSql(pgPlaceholder)} RETURNING id`,
    newDocumentValues(doc),
  );
  return numberColumn(rows, "id")[0];
}

/** Refreshes a document added again unchanged and makes it its path's latest version. */
export async function refreshDocument(
  q: PgQueryable,
  id: number,
  fields: ReAddFields,
): Promise<void> {
  await q.query(
    `UPDATE docs_documents SET relative_path = $1, modified_at = $2, is_latest = 1,
       session_id = coalesce($3, session_id) WHERE id = $4`,
    [fields.relative_path, fields.modified_at, fields.session_id ?? null, id],
  );
}

/** The version of a path with this content, if stored, and the path's latest version. */
export async function pathVersions(
  q: PgQueryable,
  path: string,
  hash: string,
): Promise<{ same?: DocumentRow; latest?: DocumentRow }> {
  const rows = await readRows(
    q,
    DOCUMENT,
    `${SELECT} WHERE d.path = $1 AND (d.hash = $2 OR d.is_latest = 1)`,
    [path, hash],
  );
  return {
    same: rows.find((row) => row.hash === hash),
    latest: rows.find((row) => row.is_latest === 1),
  };
}

/** The latest version stored for a path. */
export function latestDocumentForPath(
  q: PgQueryable,
  path: string,
): Promise<DocumentRow | undefined> {
  return readOptionalRow(q, DOCUMENT, `${SELECT} WHERE d.is_latest = 1 AND d.path = $1`, [path]);
}

/** Marks every other latest version of a path superseded; answers their ids, ascending. */
export async function supersedeOtherVersions(
  q: PgQueryable,
  path: string,
  keepId: number,
): Promise<number[]> {
  const rows = await q.query(
    `UPDATE docs_documents SET is_latest = 0 WHERE is_latest = 1 AND path = $1 AND id <> $2
     RETURNING id`,
    [path, keepId],
  );
  return numberColumn(rows, "id").sort((a, b) => a - b);
}

/** One document by id. */
export function documentById(q: PgQueryable, id: number): Promise<DocumentRow | undefined> {
  return readOptionalRow(q, DOCUMENT, `${SELECT} WHERE d.id = $1`, [id]);
}

/** Documents with these ids, in no particular order. */
export async function documentsByIds(
  q: PgQueryable,
  ids: readonly number[],
): Promise<DocumentRow[]> {
  if (ids.length === 0) return [];
  return await readRows(q, DOCUMENT, `${SELECT} WHERE d.id = ANY($1::bigint[])`, [ids]);
}

/** Documents whose content hash starts with a prefix (lowercase hex), newest first. */
export function documentsByHashPrefix(
  q: PgQueryable,
  prefix: string,
  latestOnly: boolean,
  limit = 1000,
): Promise<DocumentRow[]> {
  // A range on the "C"-collated hash, as on SQLite: an index seek, not a LIKE.
  return readRows(
    q,
    DOCUMENT,
    `${SELECT} WHERE d.hash >= $1 AND d.hash < $2 AND ($3 = 0 OR d.is_latest = 1)
     ORDER BY d.is_latest DESC, d.indexed_at DESC, d.id DESC LIMIT $4`,
    [prefix, prefix + "g", latestOnly ? 1 : 0, limit],
  );
}

/** Latest documents a name refers to (path, base name or path suffix), newest first. */
export function documentsByName(
  q: PgQueryable,
  name: string,
  limit = 1000,
): Promise<DocumentRow[]> {
  return readRows(
    q,
    DOCUMENT,
    `${SELECT} WHERE d.is_latest = 1 AND (d.path = $1 OR d.name = $1
       OR (length(d.path) > length($1) AND right(d.path, length($1) + 1) = '/' || $1))
     ORDER BY (d.path = $1) DESC, d.indexed_at DESC, d.id DESC LIMIT $2`,
    [name, limit],
  );
}

/** Id, path, name and hash of every document (or every latest one), by id. */
export function documentPathsAll(q: PgQueryable, latestOnly: boolean): Promise<DocumentPath[]> {
  return readRows(
    q,
    DOCUMENT_PATH,
    `SELECT ${DOCUMENT_PATH.columns} FROM docs_documents WHERE ($1 = 0 OR is_latest = 1)
     ORDER BY id`,
    [latestOnly ? 1 : 0],
  );
}

/**
 * Every version stored for these paths: path by path as given (a path given twice, twice),
 * each path's by hash, as SQLite's.
 */
export async function documentsForPaths(
  q: PgQueryable,
  paths: readonly string[],
): Promise<DocumentRow[]> {
  if (paths.length === 0) return [];
  return await readRows(
    q,
    DOCUMENT,
    `SELECT ${DOCUMENT_COLUMNS} FROM unnest($1::text[]) WITH ORDINALITY AS p (path, n)
     JOIN docs_documents d ON d.path = p.path ORDER BY p.n, d.hash`,
    [paths],
  );
}

/** Documents with ids above one, every version, in the order they were stored. */
export function documentsAfter(
  q: PgQueryable,
  afterId: number,
  limit: number,
): Promise<DocumentRow[]> {
  return readRows(q, DOCUMENT, `${SELECT} WHERE d.id > $1 ORDER BY d.id LIMIT $2`, [
    afterId,
    limit,
  ]);
}

/** Deletes a document row (tags, metadata, memberships, vectors and its index row go with it). */
export async function deleteDocumentRow(q: PgQueryable, id: number): Promise<void> {
  await q.query("DELETE FROM docs_documents WHERE id = $1", [id]);
}

/** Records which embedding model produced a document's vectors. */
export async function setVectorModel(
  q: PgQueryable,
  id: number,
  model: string | null,
): Promise<void> {
  await q.query("UPDATE docs_documents SET vector_model = $1 WHERE id = $2", [model, id]);
}

/** Whether a document exists and is its path's latest version. */
export async function isLatestDocument(q: PgQueryable, id: number): Promise<boolean> {
  return (await q.query("SELECT 1 AS x FROM docs_documents WHERE id = $1 AND is_latest = 1", [
    id,
  ])).length > 0;
}

/**
 * Latest text documents whose vectors are missing or from another model, by id; a negative
 * `limit` is no limit (as SQLite's `LIMIT -1`, which PostgreSQL refuses: `LIMIT NULL` is its).
 */
export function documentsNeedingVectors(
  q: PgQueryable,
  model: string,
  limit: number,
): Promise<DocumentRow[]> {
  return readRows(
    q,
    DOCUMENT,
    `${SELECT} WHERE d.is_latest = 1 AND d.is_text = 1
       AND (d.vector_model IS NULL OR d.vector_model <> $1) ORDER BY d.id LIMIT $2`,
    [model, limit < 0 ? null : limit],
  );
}

// ---------------------------------------------------------------------------------------------
// Tags and metadata

/** Adds tags to a document (existing ones are kept). */
export async function addTags(q: PgQueryable, id: number, tags: readonly string[]): Promise<void> {
  if (tags.length === 0) return;
  await q.query(
    `INSERT INTO docs_tags (document_id, tag) SELECT $1, tag FROM unnest($2::text[]) AS t (tag)
     ON CONFLICT DO NOTHING`,
    [id, tags],
  );
}

/** Removes tags from a document. */
export async function removeTags(
  q: PgQueryable,
  id: number,
  tags: readonly string[],
): Promise<void> {
  await q.query("DELETE FROM docs_tags WHERE document_id = $1 AND tag = ANY($2::text[])", [
    id,
    tags,
  ]);
}

/** A document's tags, sorted. */
export async function tagsOf(q: PgQueryable, id: number): Promise<string[]> {
  return textColumn(
    await q.query("SELECT tag FROM docs_tags WHERE document_id = $1 ORDER BY tag", [id]),
    "tag",
  );
}

/** Sets metadata values on a document (replacing values of the same keys). */
export async function setMetadata(
  q: PgQueryable,
  id: number,
  entries: Record<string, string>,
): Promise<void> {
  const keys = Object.keys(entries);
  if (keys.length === 0) return;
  await q.query(
    `INSERT INTO docs_metadata (document_id, key, value)
     SELECT $1, key, value FROM unnest($2::text[], $3::text[]) AS m (key, value)
     ON CONFLICT (document_id, key) DO UPDATE SET value = excluded.value`,
    [id, keys, keys.map((key) => entries[key])],
  );
}

/** Removes metadata keys from a document. */
export async function removeMetadata(
  q: PgQueryable,
  id: number,
  keys: readonly string[],
): Promise<void> {
  await q.query("DELETE FROM docs_metadata WHERE document_id = $1 AND key = ANY($2::text[])", [
    id,
    keys,
  ]);
}

/** A document's metadata as an object. */
export async function metadataOf(q: PgQueryable, id: number): Promise<Record<string, string>> {
  const rows = await readRows(
    q,
    METADATA,
    "SELECT key, value FROM docs_metadata WHERE document_id = $1 ORDER BY key",
    [id],
  );
  return Object.fromEntries(rows.map((row) => [row.key, row.value]));
}
