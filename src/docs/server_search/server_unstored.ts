/**
 * Vectors a search on a database server needs that the store does not hold, computed in
 * memory for the one search: unstored_vectors.ts's work, read through the
 * {@linkcode DocsStore} interface. The same documents, the same pieces and the same vectors,
 * so a search that embeds them ranks them as SQLite's does.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import type { StoreMode } from "../../store/repository.ts";
import { embeddingPieces, VECTORS_COMPLETE_KEY } from "../doc_index.ts";
import type { Embedder } from "../embedder.ts";
import { syncEmbedding } from "../embedding_config.ts";
import type { UnstoredDocument, UnstoredVectors } from "../unstored_vectors.ts";
import { indexedTextFrom } from "./server_text.ts";

/** The first read asks for this many rows; each further read for twice as many. */
const FIRST_PAGE = 64;

/**
 * Embeds, in memory, the latest text documents that have no vectors from `embedder` — only
 * those in `allow` when given — until none are left or `budgetMs` has passed. Costs one query
 * when the store records that none are missing.
 *
 * @example
 * ```ts ignore
 * const { documents, complete } = await unstoredVectorsFrom(store.docs, embedder, { budgetMs: 2000 });
 * ```
 */
export async function unstoredVectorsFrom(
  docs: DocsStore<StoreMode>,
  embedder: Embedder,
  options: { budgetMs?: number; allow?: ReadonlySet<number> } = {},
): Promise<UnstoredVectors> {
  const result: UnstoredVectors = { documents: [], complete: true };
  if (await docs.readState(VECTORS_COMPLETE_KEY) === embedder.id) return result;
  const budget = options.budgetMs ?? Infinity;
  const started = performance.now();
  let lastId = 0;
  // As on SQLite: the set is read from its start each time, twice as many rows each time, and
  // rows are taken by id so a document another process embeds meanwhile shifts nothing.
  for (let limit = FIRST_PAGE;; limit *= 2) {
    const rows = await docs.documentsNeedingVectors(embedder.id, limit);
    const page = rows.filter((row) =>
      row.id > lastId && (options.allow === undefined || options.allow.has(row.id))
    );
    if (rows.length > 0) lastId = Math.max(lastId, rows[rows.length - 1].id);
    result.documents.push(...await embedDocuments(docs, embedder, page));
    if (rows.length < limit) return result;
    if (performance.now() - started >= budget) {
      result.complete = false;
      return result;
    }
  }
}

/** Embeds documents' pieces as the write path does (a damaged one from its title alone). */
async function embedDocuments(
  docs: DocsStore<StoreMode>,
  embedder: Embedder,
  rows: readonly DocumentRow[],
): Promise<UnstoredDocument[]> {
  if (rows.length === 0) return [];
  const pieces: string[][] = [];
  for (const row of rows) pieces.push(embeddingPieces(row.title, await indexedTextFrom(docs, row)));
  const flat = pieces.flat();
  const sync = syncEmbedding(embedder);
  const vectors = sync !== undefined ? flat.map(sync) : await embedder.embed(flat);
  let next = 0;
  return rows.map((row, index) => {
    const count = pieces[index].length;
    next += count;
    return { id: row.id, vectors: vectors.slice(next - count, next) };
  });
}
