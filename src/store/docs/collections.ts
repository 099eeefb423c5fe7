/**
 * Collections are labels: a document is in any number of them, each
 * membership remembering the path the document has below the folder it was
 * added from into that collection (what restore lays out). A new version of
 * a path stays in the collections of the version it replaces.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader, textColumn } from "../rows.ts";
import { prepared } from "../statements.ts";

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
 * has there), keeping those it is in already.
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
  return textColumn(
    prepared(
      db,
      "SELECT collection FROM docs_collection_members WHERE document_id = ? ORDER BY collection",
    ).all(id),
    "collection",
  );
}

/** Whether any document (of any version) is in a collection. */
export function collectionExists(db: DatabaseSync, collection: string): boolean {
  return prepared(
    db,
    "SELECT 1 AS x FROM docs_collection_members WHERE collection = ? LIMIT 1",
  ).get(collection) !== undefined;
}

/** Reads a collection member's document id and relative path. (Both backends read it with this reader.) */
export const MEMBER_PATH: RowReader<{ document_id: number; relative_path: string }> = new RowReader<
  { document_id: number; relative_path: string }
>(
  "collection member",
  { document_id: "number", relative_path: "text" },
);

/** Each document's relative path in a collection, by document id. */
export function collectionPaths(db: DatabaseSync, collection: string): Map<number, string> {
  const rows = MEMBER_PATH.all(
    prepared(
      db,
      "SELECT document_id, relative_path FROM docs_collection_members WHERE collection = ?",
    ).all(collection),
  );
  return new Map(rows.map((row) => [row.document_id, row.relative_path]));
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

/** Reads a collection with its size. (Both backends read it with this reader.) */
export const COLLECTION: RowReader<CollectionRow> = new RowReader<CollectionRow>("collection", {
  name: "text",
  document_count: "number",
  total_bytes: "number",
});

/**
 * Every collection holding a latest document, by name. A document in several
 * collections counts in each.
 */
export function collectionRows(db: DatabaseSync): CollectionRow[] {
  return COLLECTION.all(prepared(db, COLLECTION_ROWS_SQL).all());
}

/** The statement of {@linkcode collectionRows}, the same on both backends. */
export const COLLECTION_ROWS_SQL =
  `SELECT m.collection AS name, count(*) AS document_count, sum(d.size) AS total_bytes
   FROM docs_collection_members m JOIN docs_documents d ON d.id = m.document_id
   WHERE d.is_latest = 1 GROUP BY m.collection ORDER BY m.collection`;
