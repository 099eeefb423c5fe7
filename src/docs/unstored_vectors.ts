/**
 * Vectors a read needs that the store does not hold (the embedder was
 * changed, or an embedding service failed during an add), computed in
 * memory for one call and then dropped. A search or a dedupe runs under a
 * read grant, so it writes nothing; storing what is missing is the write
 * paths' work (`search_upkeep.ts`: every add, `docs.repair`).
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { type DocumentRow, documentsNeedingVectors } from "../store/docs/documents.ts";
import { embeddingPieces, storedText, vectorsComplete } from "./doc_index.ts";
import type { Embedder } from "./embedder.ts";
import { syncEmbedding } from "./embedding_config.ts";

/** How long a search spends embedding documents that have no stored vectors. */
export const SEARCH_EMBED_BUDGET_MS = 2000;

/** One document's vectors, one per embedded piece of its text (unit length). */
export interface UnstoredDocument {
  /** Document id. */
  id: number;
  /** Its pieces' vectors, in piece order. */
  vectors: Float32Array[];
}

/** What {@linkcode unstoredVectors} computed. */
export interface UnstoredVectors {
  /** Documents embedded for this call. */
  documents: UnstoredDocument[];
  /** False when the time budget ran out before every such document was embedded. */
  complete: boolean;
}

/** The first read asks for this many rows; each further read for twice as many. */
const FIRST_PAGE = 64;

/**
 * Embeds, in memory, the latest text documents that have no vectors from
 * `embedder` — only those in `allow` when given — until none are left or
 * `budgetMs` (default: no limit) has passed. Costs one query when the
 * store records that none are missing.
 *
 * @example
 * ```ts ignore
 * const { documents, complete } = await unstoredVectors(db, embedder, { budgetMs: 2000 });
 * ```
 */
export async function unstoredVectors(
  db: DatabaseSync,
  embedder: Embedder,
  options: { budgetMs?: number; allow?: ReadonlySet<number> } = {},
): Promise<UnstoredVectors> {
  const result: UnstoredVectors = { documents: [], complete: true };
  if (vectorsComplete(db, embedder.id)) return result;
  const budget = options.budgetMs ?? Infinity;
  const started = performance.now();
  const sync = syncEmbedding(embedder);
  let lastId = 0;
  // The store reads this set from its start; asking for twice as many rows each time keeps the
  // rows read within twice those used. Rows are taken by id, not position: another process may
  // store vectors meanwhile, and a document that leaves the set must not shift the rest.
  for (let limit = FIRST_PAGE;; limit *= 2) {
    const rows = documentsNeedingVectors(db, embedder.id, limit);
    const page = rows.filter((row) =>
      row.id > lastId && (options.allow === undefined || options.allow.has(row.id))
    );
    if (rows.length > 0) lastId = Math.max(lastId, rows[rows.length - 1].id);
    result.documents.push(...await embedDocuments(db, embedder, sync, page));
    if (rows.length < limit) return result;
    if (performance.now() - started >= budget) {
      result.complete = false;
      return result;
    }
  }
}

/** Embeds documents' pieces as the write path does (a damaged one from its title alone). */
async function embedDocuments(
  db: DatabaseSync,
  embedder: Embedder,
  sync: ((text: string) => Float32Array) | undefined,
  rows: readonly DocumentRow[],
): Promise<UnstoredDocument[]> {
  if (rows.length === 0) return [];
  const pieces = rows.map((row) => embeddingPieces(row.title, storedText(db, row)));
  const flat = pieces.flat();
  const vectors = sync !== undefined ? flat.map(sync) : await embedder.embed(flat);
  let next = 0;
  return rows.map((row, index) => {
    const count = pieces[index].length;
    next += count;
    return { id: row.id, vectors: vectors.slice(next - count, next) };
  });
}

/**
 * The `limit` documents among `documents` closest to `query` (a unit
 * vector), each scored by its best piece. As in the stored-vector index, a
 * document no piece of which points the query's way is no result.
 *
 * @example
 * ```ts
 * import { rankUnstored } from "./unstored_vectors.ts";
 * const docs = [{ id: 7, vectors: [new Float32Array([0, 1])] }, { id: 8, vectors: [new Float32Array([1, 0])] }];
 * rankUnstored(docs, new Float32Array([1, 0]), 5); // [{ id: 8, score: 1 }]
 * ```
 */
export function rankUnstored(
  documents: readonly UnstoredDocument[],
  query: Float32Array,
  limit: number,
): Array<{ id: number; score: number }> {
  const scored: Array<{ id: number; score: number }> = [];
  for (const doc of documents) {
    let best = 0;
    for (const vector of doc.vectors) {
      if (vector.length !== query.length) continue;
      let dot = 0;
      for (let d = 0; d < query.length; d++) dot += query[d] * vector[d];
      if (dot > best) best = dot;
    }
    if (best > 0) scored.push({ id: doc.id, score: best });
  }
  return scored.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit);
}
