/**
 * Exact (brute-force) cosine search over the stored vectors, kept in memory
 * after the first load. Vectors are laid out dimension-major — one
 * Float32Array per dimension — so scoring a query walks only the query's
 * non-zero dimensions (a hashed-embedder query touches a fraction of them)
 * in tight, cache-friendly loops. New vectors are loaded incrementally; a
 * removal anywhere (seen through a counter in the database, so writes by
 * other processes count) triggers a full reload on the next search.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { readCounter } from "../store/docs/state.ts";
import { vectorsAfter } from "../store/docs/vectors.ts";

/** One document found by vector search. */
export interface VectorHit {
  /** Document id. */
  id: number;
  /** Best cosine similarity among the document's pieces. */
  score: number;
}

const PAGE = 4096;
const INDEXES = new WeakMap<DatabaseSync, Map<string, VectorIndex>>();

/** The in-memory vectors of one embedding model on one connection. */
export class VectorIndex {
  /** Embedding model id. */
  readonly model: string;
  #dimensions = 0;
  #rows = 0;
  #capacity = 0;
  #columns: Float32Array[] = [];
  #documentOf = new Int32Array(0);
  #lastId = 0;
  #removals = -1;
  #scores = new Float32Array(0);

  /** Creates an empty index for `model`. */
  constructor(model: string) {
    this.model = model;
  }

  /** The shared index of `model` on `db`, brought up to date. */
  static for(db: DatabaseSync, model: string): VectorIndex {
    let byModel = INDEXES.get(db);
    if (byModel === undefined) {
      byModel = new Map();
      INDEXES.set(db, byModel);
    }
    let index = byModel.get(model);
    if (index === undefined) {
      index = new VectorIndex(model);
      byModel.set(model, index);
    }
    index.refresh(db);
    return index;
  }

  /** Vectors loaded. */
  get size(): number {
    return this.#rows;
  }

  /** Loads vectors stored since the last refresh (everything again after a removal). */
  refresh(db: DatabaseSync): void {
    const removals = readCounter(db, "vector_removals");
    if (removals !== this.#removals) {
      this.#rows = 0;
      this.#lastId = 0;
      this.#removals = removals;
    }
    while (true) {
      const page = vectorsAfter(db, this.model, this.#lastId, PAGE);
      for (const row of page) this.#append(row.document_id, row.vector);
      if (page.length > 0) this.#lastId = page[page.length - 1].id;
      if (page.length < PAGE) break;
    }
  }

  #append(documentId: number, bytes: Uint8Array): void {
    const vector = floatsOf(bytes);
    if (this.#dimensions === 0) this.#dimensions = vector.length;
    // A vector of another length cannot be compared; the model id should prevent this.
    if (vector.length !== this.#dimensions) return;
    if (this.#rows === this.#capacity) this.#grow();
    const row = this.#rows++;
    for (let d = 0; d < vector.length; d++) this.#columns[d][row] = vector[d];
    this.#documentOf[row] = documentId;
  }

  #grow(): void {
    const capacity = Math.max(1024, Math.ceil(this.#capacity * 1.5));
    const columns: Float32Array[] = [];
    for (let d = 0; d < this.#dimensions; d++) {
      const column = new Float32Array(capacity);
      if (this.#columns[d] !== undefined) column.set(this.#columns[d].subarray(0, this.#rows));
      columns.push(column);
    }
    const documents = new Int32Array(capacity);
    documents.set(this.#documentOf.subarray(0, this.#rows));
    this.#columns = columns;
    this.#documentOf = documents;
    this.#capacity = capacity;
  }

  /**
   * The `limit` documents most similar to `query` (a unit vector), each
   * scored by its best piece; `allow` restricts which documents count.
   */
  search(query: Float32Array, limit: number, allow?: (id: number) => boolean): VectorHit[] {
    const rows = this.#rows;
    if (rows === 0 || query.length !== this.#dimensions || limit <= 0) return [];
    if (this.#scores.length < rows) this.#scores = new Float32Array(this.#capacity);
    const scores = this.#scores;
    scores.fill(0, 0, rows);
    for (let d = 0; d < query.length; d++) {
      const weight = query[d];
      if (weight === 0) continue;
      const column = this.#columns[d];
      for (let r = 0; r < rows; r++) scores[r] += weight * column[r];
    }
    // Keep the best rows in a small sorted buffer; documents are merged afterwards because a
    // document's several pieces may all rank high.
    const keep = Math.min(rows, limit * 4 + 16);
    const topScores = new Float32Array(keep).fill(-Infinity);
    const topRows = new Int32Array(keep).fill(-1);
    let floor = -Infinity;
    const documentOf = this.#documentOf;
    for (let r = 0; r < rows; r++) {
      const score = scores[r];
      // Orthogonal or opposite vectors share nothing; they are not results.
      if (score <= floor || score <= 0) continue;
      if (allow !== undefined && !allow(documentOf[r])) continue;
      let at = keep - 1;
      while (at > 0 && topScores[at - 1] < score) {
        topScores[at] = topScores[at - 1];
        topRows[at] = topRows[at - 1];
        at--;
      }
      topScores[at] = score;
      topRows[at] = r;
      floor = topScores[keep - 1];
    }
    const best = new Map<number, number>();
    for (let i = 0; i < keep; i++) {
      if (topRows[i] < 0) break;
      const id = documentOf[topRows[i]];
      if (!best.has(id)) best.set(id, topScores[i]);
    }
    return [...best].slice(0, limit).map(([id, score]) => ({ id, score }));
  }
}

function floatsOf(bytes: Uint8Array): Float32Array {
  const length = bytes.length >> 2;
  if (bytes.byteOffset % 4 === 0 && isLittleEndian) {
    return new Float32Array(bytes.buffer, bytes.byteOffset, length);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
