/**
 * The tags, metadata and collections of many documents at once, for listings: one statement
 * each, where reading them document by document costs three per document (on a server, three
 * round trips each). Each document's values come in the order of the one-document reads
 * (documents.ts's `tagsOf` and `metadataOf`, collections.ts's `collectionsOf`), so an answer
 * built from either is the same. Both backends read the rows with the readers here.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** One value of one document. */
export const DOCUMENT_VALUE: RowReader<{ id: number; value: string }> = new RowReader<
  { id: number; value: string }
>("document value", { id: "number", value: "text" });

/** One metadata entry of one document. */
export const DOCUMENT_ENTRY: RowReader<{ id: number; key: string; value: string }> = new RowReader<
  { id: number; key: string; value: string }
>("document metadata entry", {
  id: "number",
  key: "text",
  value: "text",
});

/** Groups values by document: every id asked for has an entry, empty when it has none. */
export function valuesById(
  ids: readonly number[],
  rows: ReadonlyArray<{ id: number; value: string }>,
): Map<number, string[]> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  for (const row of rows) out.get(row.id)?.push(row.value);
  return out;
}

/** Groups metadata entries by document: every id asked for has an object, empty when none. */
export function entriesById(
  ids: readonly number[],
  rows: ReadonlyArray<{ id: number; key: string; value: string }>,
): Map<number, Record<string, string>> {
  const out = new Map<number, Record<string, string>>(ids.map((id) => [id, {}]));
  for (const row of rows) {
    const entries = out.get(row.id);
    if (entries !== undefined) entries[row.key] = row.value;
  }
  return out;
}

/** `column` of `table` for the documents in the JSON list `?`, sorted within each document. */
function valuesOf(db: DatabaseSync, table: string, column: string, ids: readonly number[]) {
  if (ids.length === 0) return new Map<number, string[]>();
  // The ids as one JSON parameter: one statement for any number of them.
  const rows = DOCUMENT_VALUE.all(
    prepared(
      db,
      `SELECT document_id AS id, ${column} AS value FROM ${table}
       WHERE document_id IN (SELECT value FROM json_each(?)) ORDER BY document_id, ${column}`,
    ).all(JSON.stringify(ids)),
  );
  return valuesById(ids, rows);
}

/** The tags of each document, sorted (as `tagsOf`). */
export function tagsOfMany(db: DatabaseSync, ids: readonly number[]): Map<number, string[]> {
  return valuesOf(db, "docs_tags", "tag", ids);
}

/** The collections each document is in, sorted (as `collectionsOf`). */
export function collectionsOfMany(
  db: DatabaseSync,
  ids: readonly number[],
): Map<number, string[]> {
  return valuesOf(db, "docs_collection_members", "collection", ids);
}

/** The metadata of each document (as `metadataOf`, keys in the same order). */
export function metadataOfMany(
  db: DatabaseSync,
  ids: readonly number[],
): Map<number, Record<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = DOCUMENT_ENTRY.all(
    prepared(
      db,
      `SELECT document_id AS id, key, value FROM docs_metadata
       WHERE document_id IN (SELECT value FROM json_each(?)) ORDER BY document_id, key`,
    ).all(JSON.stringify(ids)),
  );
  return entriesById(ids, rows);
}
