/**
 * Vectors on a database server that are not written with their documents, as SQLite's engine
 * stores them (../doc_index.ts's `embedPending`, ../search_upkeep.ts's `storeMissingVectors`):
 * those of an embedding service, computed once the add's documents are stored and written in
 * short writes of their own (no write waits on the network), and those other adds left
 * missing, stored by each add within a time budget.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import { embeddingPieces, type PendingVectors, VECTORS_COMPLETE_KEY } from "../doc_index.ts";
import { type Embedder, vectorToBytes } from "../embedder.ts";
import { syncEmbedding } from "../embedding_config.ts";
import { indexedTextFrom } from "../server_search/server_text.ts";
import { docsOf, type ServerDocs, writeOn } from "./server_docs.ts";

/** Documents embedded per call to an embedding service. */
const EMBED_BATCH = 32;
/** Documents read per step of storing missing vectors. */
const MISSING_BATCH = 64;

/** Records that some documents may lack vectors (inside the caller's write). */
export async function markVectorsIncompleteIn(docs: DocsStore<StoreMode>): Promise<void> {
  await docs.writeState(VECTORS_COMPLETE_KEY, undefined);
}

/** Replaces a document's vectors with `vectors`, one per piece (inside the caller's write). */
async function replaceVectorsIn(
  docs: DocsStore<StoreMode>,
  id: number,
  model: string,
  vectors: readonly Float32Array[],
): Promise<void> {
  if (await docs.deleteVectors(id) > 0) await docs.bumpCounter("vector_removals");
  for (const [seq, vector] of vectors.entries()) {
    await docs.insertVector(id, seq, model, vectorToBytes(vector));
  }
  await docs.setVectorModel(id, model);
}

/**
 * Embeds documents with the embedder (a service answers later), then stores each batch's
 * vectors in one write; answers how many documents got vectors.
 */
export async function embedPendingOnServer(
  server: ServerDocs,
  embedder: Embedder,
  documents: readonly PendingVectors[],
): Promise<number> {
  let stored = 0;
  const sync = syncEmbedding(embedder);
  for (let i = 0; i < documents.length; i += EMBED_BATCH) {
    const batch = documents.slice(i, i + EMBED_BATCH);
    const pieces = batch.map((doc) => embeddingPieces(doc.title, doc.text));
    const vectors = sync === undefined
      ? await embedder.embed(pieces.flat())
      : pieces.flat().map((piece) => sync(piece));
    await writeOn(server, async (docs) => {
      let next = 0;
      for (const [index, doc] of batch.entries()) {
        const own = vectors.slice(next, next + pieces[index].length);
        next += pieces[index].length;
        await replaceVectorsIn(docs, doc.id, embedder.id, own);
      }
      await docs.bumpCounter("index_generation");
    });
    stored += batch.length;
  }
  return stored;
}

/**
 * Stores vectors from `embedder` for latest text documents that have none from it, for at
 * most `budgetMs`, and records in the store once none are missing (so reads stop looking).
 */
export async function storeMissingVectorsOnServer(
  server: ServerDocs,
  embedder: Embedder,
  budgetMs: number,
): Promise<{ stored: number; complete: boolean }> {
  const docs = docsOf(server);
  if (await docs.readState(VECTORS_COMPLETE_KEY) === embedder.id) {
    return { stored: 0, complete: true };
  }
  const started = performance.now();
  let stored = 0;
  for (;;) {
    // Each batch is stored before the next is read, so the first rows are always new ones.
    const missing = await docs.documentsNeedingVectors(embedder.id, MISSING_BATCH);
    if (missing.length === 0) {
      await writeOn(server, async (inside) => {
        await inside.writeState(VECTORS_COMPLETE_KEY, embedder.id);
      });
      return { stored, complete: true };
    }
    if (performance.now() - started >= budgetMs) return { stored, complete: false };
    const texts: PendingVectors[] = [];
    for (const doc of missing) {
      texts.push({ id: doc.id, title: doc.title, text: await indexedTextFrom(docs, doc) });
    }
    stored += await embedPendingOnServer(server, embedder, texts);
  }
}
