/**
 * Listing documents on PostgreSQL, and the collections they are in: the filters, the sorted
 * and paged list and the totals are the statements SQLite's store builds
 * (../../docs/document_listing.ts), built here with PostgreSQL's parameters; collections are
 * labels with a path each, as in ../../docs/collections.ts.
 *
 * @module
 */
import {
  COLLECTION,
  COLLECTION_ROWS_SQL,
  type CollectionRow,
  MEMBER_PATH,
} from "../../docs/collections.ts";
import {
  CONTENT_COUNTS,
  COUNT,
  countDocumentsSql,
  DOCUMENT_COUNTS,
  type DocumentFilter,
  type DocumentTotals,
  FILE_TYPE_COUNT,
  type FileTypeCount,
  filteredIdsSql,
  ID,
  joinTotals,
  listDocumentsSql,
  type ListQuery,
  TOTALS_SQL,
} from "../../docs/document_listing.ts";
import { DOCUMENT, type DocumentRow } from "../../docs/documents.ts";
import { textColumn } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { builtRow, builtRows, readRow, readRows, wroteAny } from "../reads.ts";

/** Ids of every document a filter selects. */
export async function filteredIds(q: PgQueryable, filter: DocumentFilter): Promise<number[]> {
  return (await builtRows(q, ID, (p) => filteredIdsSql(p, filter))).map((row) => row.id);
}

/** Documents matching a filter, sorted and paged, with the total before paging. */
export async function listDocuments(
  q: PgQueryable,
  query: ListQuery,
): Promise<{ total: number; rows: DocumentRow[] }> {
  const total = (await builtRow(q, COUNT, (p) => countDocumentsSql(p, query.filter))).n;
  return { total, rows: await builtRows(q, DOCUMENT, (p) => listDocumentsSql(p, query)) };
}

/** Document and content totals. */
export async function documentTotals(q: PgQueryable): Promise<DocumentTotals> {
  return joinTotals(
    await readRow(q, DOCUMENT_COUNTS, TOTALS_SQL.documents),
    await readRow(q, CONTENT_COUNTS, TOTALS_SQL.contents),
  );
}

/** Latest documents per extension and MIME type, most numerous first. */
export function fileTypeCounts(q: PgQueryable): Promise<FileTypeCount[]> {
  return readRows(q, FILE_TYPE_COUNT, TOTALS_SQL.fileTypes);
}

// ---------------------------------------------------------------------------------------------
// Collections

/** Puts a document in a collection at a relative path (or moves it there within it). */
export async function addToCollection(
  q: PgQueryable,
  id: number,
  collection: string,
  relativePath: string,
): Promise<void> {
  await q.query(
    `INSERT INTO docs_collection_members (collection, document_id, relative_path)
     VALUES ($1, $2, $3)
     ON CONFLICT (collection, document_id) DO UPDATE SET relative_path = excluded.relative_path`,
    [collection, id, relativePath],
  );
}

/** Takes a document out of a collection; answers whether it was in it. */
export function removeFromCollection(
  q: PgQueryable,
  id: number,
  collection: string,
): Promise<boolean> {
  return wroteAny(
    q,
    `DELETE FROM docs_collection_members WHERE collection = $1 AND document_id = $2
     RETURNING document_id`,
    [collection, id],
  );
}

/** Gives a new version every collection of the version it replaces (keeping its own). */
export async function inheritCollections(
  q: PgQueryable,
  fromId: number,
  toId: number,
): Promise<void> {
  await q.query(
    `INSERT INTO docs_collection_members (collection, document_id, relative_path)
     SELECT collection, $1, relative_path FROM docs_collection_members WHERE document_id = $2
     ON CONFLICT DO NOTHING`,
    [toId, fromId],
  );
}

/** The collections a document is in, sorted. */
export async function collectionsOf(q: PgQueryable, id: number): Promise<string[]> {
  return textColumn(
    await q.query(
      "SELECT collection FROM docs_collection_members WHERE document_id = $1 ORDER BY collection",
      [id],
    ),
    "collection",
  );
}

/** Whether any document (of any version) is in a collection. */
export async function collectionExists(q: PgQueryable, collection: string): Promise<boolean> {
  return (await q.query(
    "SELECT 1 AS x FROM docs_collection_members WHERE collection = $1 LIMIT 1",
    [collection],
  )).length > 0;
}

/** Each document's relative path in a collection, by document id. */
export async function collectionPaths(
  q: PgQueryable,
  collection: string,
): Promise<Map<number, string>> {
  const rows = await readRows(
    q,
    MEMBER_PATH,
    "SELECT document_id, relative_path FROM docs_collection_members WHERE collection = $1",
    [collection],
  );
  return new Map(rows.map((row) => [row.document_id, row.relative_path]));
}

/** Every collection holding a latest document, with its size, by name. */
export function collectionRows(q: PgQueryable): Promise<CollectionRow[]> {
  return readRows(q, COLLECTION, COLLECTION_ROWS_SQL);
}
