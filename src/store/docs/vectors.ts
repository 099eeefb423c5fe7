/**
 * Stored embedding vectors: one row per embedded piece of a document's text,
 * as little-endian float32 BLOBs tagged with the model that produced them.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
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

const VECTOR = new RowReader<VectorRow>("vector", {
  id: "number",
  document_id: "number",
  seq: "number",
  vector: "bytes",
});

const FIRST_VECTOR = new RowReader<{ document_id: number; vector: Uint8Array }>("vector", {
  document_id: "number",
  vector: "bytes",
});

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
