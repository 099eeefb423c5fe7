/**
 * The tags, metadata and collections of many documents at once on PostgreSQL: SQLite's
 * (../../docs/labels_of_many.ts), one round trip each instead of three per document, each
 * document's values in the order of the one-document reads (documents.ts, listing.ts).
 *
 * @module
 */
import {
  DOCUMENT_ENTRY,
  DOCUMENT_VALUE,
  entriesById,
  valuesById,
} from "../../docs/labels_of_many.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";

/** `column` of `table` for some documents, sorted within each document. */
async function valuesOf(
  q: PgQueryable,
  table: string,
  column: string,
  ids: readonly number[],
): Promise<Map<number, string[]>> {
  if (ids.length === 0) return new Map();
  const rows = await readRows(
    q,
    DOCUMENT_VALUE,
    `SELECT document_id AS id, ${column} AS value FROM ${table}
     WHERE document_id = ANY($1::bigint[]) ORDER BY document_id, ${column}`,
    [[...ids]],
  );
  return valuesById(ids, rows);
}

/** The tags of each document, sorted (as `tagsOf`). */
export function tagsOfMany(q: PgQueryable, ids: readonly number[]): Promise<Map<number, string[]>> {
  return valuesOf(q, "docs_tags", "tag", ids);
}

/** The collections each document is in, sorted (as `collectionsOf`). */
export function collectionsOfMany(
  q: PgQueryable,
  ids: readonly number[],
): Promise<Map<number, string[]>> {
  return valuesOf(q, "docs_collection_members", "collection", ids);
}

/** The metadata of each document (as `metadataOf`, keys in the same order). */
export async function metadataOfMany(
  q: PgQueryable,
  ids: readonly number[],
): Promise<Map<number, Record<string, string>>> {
  if (ids.length === 0) return new Map();
  const rows = await readRows(
    q,
    DOCUMENT_ENTRY,
    `SELECT document_id AS id, key, value FROM docs_metadata
     WHERE document_id = ANY($1::bigint[]) ORDER BY document_id, key`,
    [[...ids]],
  );
  return entriesById(ids, rows);
}
