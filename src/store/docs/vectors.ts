/**
 * Stored embedding vectors: one row per embedded piece of a document's text,
 * as little-endian float32 BLOBs tagged with the model that produced them.
 * A vector's id is never reused. Runs of a model's vectors are also sealed
 * into column files (`docs_vector_segments`, see vector_files.ts), which
 * a search reads in part; every removed vector is remembered
 * (`docs_vector_removed`, filled by a trigger) so readers skip it in the files
 * that still hold it.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { numberColumn, RowReader, textColumn } from "../rows.ts";
import { prepared } from "../statements.ts";

/** One stored vector as read back for the in-memory index. */
export interface VectorRow {
  /** Row id, increasing with insertion. */
  id: number;
  /** Document the vector belongs to. */
  document_id: number;
  /** Piece number within the document, from 0. */
  seq: number;
  /** float32 little-endian bytes. */
  vector: Uint8Array;
}

/** Reads a stored vector with its id, document and piece number. (Both backends read it with this reader.) */
export const VECTOR: RowReader<VectorRow> = new RowReader<VectorRow>("vector", {
  id: "number",
  document_id: "number",
  seq: "number",
  vector: "bytes",
});

/** Reads a document's first vector. (Both backends read it with this reader.) */
export const FIRST_VECTOR: RowReader<{ document_id: number; vector: Uint8Array }> = new RowReader<
  { document_id: number; vector: Uint8Array }
>(
  "vector",
  {
    document_id: "number",
    vector: "bytes",
  },
);

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** Stores one vector of a document. */
export function insertVector(
  db: DatabaseSync,
  documentId: number,
  seq: number,
  model: string,
  vector: Uint8Array,
): void {
  prepared(
    db,
    "INSERT INTO docs_vectors (document_id, seq, model, vector) VALUES (?, ?, ?, ?)",
  ).run(documentId, seq, model, vector);
}

/** Removes every vector of a document; returns how many were removed. */
export function deleteVectors(db: DatabaseSync, documentId: number): number {
  return Number(
    prepared(db, "DELETE FROM docs_vectors WHERE document_id = ?").run(documentId).changes,
  );
}

/**
 * Vectors of one model with row id above `afterId`, in id order, at most
 * `limit` (for loading the in-memory index in pages).
 */
export function vectorsAfter(
  db: DatabaseSync,
  model: string,
  afterId: number,
  limit: number,
): VectorRow[] {
  return VECTOR.all(
    prepared(
      db,
      `SELECT ${VECTOR.columns} FROM docs_vectors WHERE model = ? AND id > ?
     ORDER BY id LIMIT ?`,
    ).all(model, afterId, limit),
  );
}

/** The first vector of every document embedded with `model` (for duplicate detection). */
export function firstVectors(
  db: DatabaseSync,
  model: string,
): Array<{ document_id: number; vector: Uint8Array }> {
  return FIRST_VECTOR.all(
    prepared(
      db,
      "SELECT document_id, vector FROM docs_vectors WHERE model = ? AND seq = 0 ORDER BY document_id",
    ).all(model),
  );
}

/** Counts stored vectors. */
export function vectorCount(db: DatabaseSync): number {
  return COUNT.one(prepared(db, "SELECT count(*) AS n FROM docs_vectors").get()).n;
}

/** Vectors of one model with ids from `firstId` to `lastId`, in id order. */
export function vectorsBetween(
  db: DatabaseSync,
  model: string,
  firstId: number,
  lastId: number,
): VectorRow[] {
  return VECTOR.all(
    prepared(
      db,
      `SELECT ${VECTOR.columns} FROM docs_vectors WHERE model = ? AND id BETWEEN ? AND ?
       ORDER BY id`,
    ).all(model, firstId, lastId),
  );
}

// ---------------------------------------------------------------------------------------------
// Sealed column files

/** One sealed run of a model's vectors, held in a column file. */
export interface VectorSegmentRow {
  /** Segment id (never reused). */
  id: number;
  /** Embedding model id. */
  model: string;
  /** File name in the vector folder. */
  file: string;
  /** Vectors in the file (removed ones included until it is rewritten). */
  rows: number;
  /** Vector length. */
  dimensions: number;
  /** Smallest vector id in it. */
  first_id: number;
  /** Largest vector id in it. */
  last_id: number;
  /** When it was written, ms. */
  created_at: number;
}

const VECTOR_SEGMENT = new RowReader<VectorSegmentRow>("vector segment", {
  id: "number",
  model: "text",
  file: "text",
  rows: "number",
  dimensions: "number",
  first_id: "number",
  last_id: "number",
  created_at: "number",
});

const LARGEST_ID = new RowReader<{ id: number }>("largest vector id", { id: "number" });

/** The segments of one model, oldest vectors first. */
export function vectorSegments(db: DatabaseSync, model: string): VectorSegmentRow[] {
  return VECTOR_SEGMENT.all(
    prepared(
      db,
      `SELECT ${VECTOR_SEGMENT.columns} FROM docs_vector_segments WHERE model = ?
       ORDER BY first_id, id`,
    ).all(model),
  );
}

/** Every segment's file name (all models). */
export function vectorSegmentFiles(db: DatabaseSync): Set<string> {
  return new Set(textColumn(prepared(db, "SELECT file FROM docs_vector_segments").all(), "file"));
}

/** The largest vector id sealed for a model (0 when none is). */
export function sealedThrough(db: DatabaseSync, model: string): number {
  return LARGEST_ID.one(
    prepared(
      db,
      "SELECT coalesce(max(last_id), 0) AS id FROM docs_vector_segments WHERE model = ?",
    ).get(model),
  ).id;
}

/** The largest stored vector id (0 when none is stored): bounds how many a tail can hold. */
export function largestVectorId(db: DatabaseSync): number {
  return LARGEST_ID.one(prepared(db, "SELECT coalesce(max(id), 0) AS id FROM docs_vectors").get())
    .id;
}

/** Records a sealed segment (inside the caller's transaction); returns its id. */
export function insertVectorSegment(
  db: DatabaseSync,
  segment: Omit<VectorSegmentRow, "id">,
): number {
  return Number(
    prepared(
      db,
      `INSERT INTO docs_vector_segments (model, file, rows, dimensions, first_id, last_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      segment.model,
      segment.file,
      segment.rows,
      segment.dimensions,
      segment.first_id,
      segment.last_id,
      segment.created_at,
    ).lastInsertRowid,
  );
}

/** Removes segment rows (inside the caller's transaction); returns how many there were. */
export function deleteVectorSegments(db: DatabaseSync, ids: readonly number[]): number {
  const statement = prepared(db, "DELETE FROM docs_vector_segments WHERE id = ?");
  let removed = 0;
  for (const id of ids) removed += Number(statement.run(id).changes);
  return removed;
}

/** Ids of a model's removed vectors up to `throughId`, ascending. */
export function removedVectorIds(db: DatabaseSync, model: string, throughId: number): number[] {
  return numberColumn(
    prepared(
      db,
      `SELECT vector_id FROM docs_vector_removed WHERE model = ? AND vector_id <= ?
       ORDER BY vector_id`,
    ).all(model, throughId),
    "vector_id",
  );
}

/** Ids of a model's removed vectors from `fromId` to `throughId`, ascending. */
export function removedVectorIdsBetween(
  db: DatabaseSync,
  model: string,
  fromId: number,
  throughId: number,
): number[] {
  return numberColumn(
    prepared(
      db,
      `SELECT vector_id FROM docs_vector_removed WHERE model = ? AND vector_id BETWEEN ? AND ?
       ORDER BY vector_id`,
    ).all(model, fromId, throughId),
    "vector_id",
  );
}

/** Forgets removed vectors no file holds any more (inside the caller's transaction). */
export function forgetRemovedVectors(db: DatabaseSync, ids: Iterable<number>): void {
  const statement = prepared(db, "DELETE FROM docs_vector_removed WHERE vector_id = ?");
  for (const id of ids) statement.run(id);
}
