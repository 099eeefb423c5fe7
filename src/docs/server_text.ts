/**
 * What a database server's document search keeps of one document, written through the store
 * interface: the text its keyword index takes (the first {@linkcode MAX_INDEXED_BYTES} of the
 * content, extracted as an add extracts it) and its embedding vectors (the same pieces and the
 * same bytes SQLite's index stores, doc_index.ts). Used where a server's index is brought up to
 * date after the fact (docs.repair); empty text for a damaged content, as SQLite's `storedText`.
 *
 * @module
 */
import type { DocumentRow } from "../store/docs/documents.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";
import { embeddingPieces, MAX_INDEXED_BYTES } from "./doc_index.ts";
import { type Embedder, vectorToBytes } from "./embedder.ts";
import { readContentFrom } from "./store_content.ts";
import { extractText } from "./text_extract.ts";

/** The indexable text of a stored document; empty when its content cannot be read back. */
export async function serverStoredText(
  docs: DocsStore<StoreMode>,
  row: Pick<DocumentRow, "id" | "hash" | "path">,
): Promise<string> {
  try {
    const bytes = await readContentFrom(
      docs,
      row.hash,
      { path: row.path, id: row.id },
      MAX_INDEXED_BYTES,
    );
    return extractText(row.path, bytes).text ?? "";
  } catch {
    return "";
  }
}

/**
 * Replaces a document's vectors with `embedder`'s of its text (inside the caller's write when
 * `docs` is a write's store); answers how many were stored. The embedding is computed first,
 * so a write that wraps this holds no lock across a slow embedding service — callers that can,
 * embed before they open the write (see {@linkcode embedDocument}).
 */
export async function replaceVectors(
  docs: DocsStore<StoreMode>,
  id: number,
  model: string,
  vectors: readonly Float32Array[],
): Promise<number> {
  if ((await docs.deleteVectors(id)) > 0) await docs.bumpCounter("vector_removals");
  for (const [seq, vector] of vectors.entries()) {
    await docs.insertVector(id, seq, model, vectorToBytes(vector));
  }
  await docs.setVectorModel(id, model);
  return vectors.length;
}

/** The vectors of a document's text, one per embedded piece, in piece order. */
export function embedDocument(
  embedder: Embedder,
  title: string,
  text: string,
): Promise<Float32Array[]> {
  return embedder.embed(embeddingPieces(title, text));
}
