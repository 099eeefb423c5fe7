/**
 * What search needs of a document stored on a database server, kept as SQLite's engine keeps
 * it (../doc_index.ts): its vectors and code graph written inside the write that stores or
 * supersedes it, and its keyword row (the server's `tsvector` index, `PgDocsSearch`) written
 * once that write has committed.
 *
 * The keyword row comes after the commit because the search functions run on the pool, not on
 * the write's connection: a document is findable by keyword a moment after it is stored, as on
 * SQLite, where the index file is written after the store's transaction too. A process that
 * stops in between leaves that document out of keyword results until it is added again.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { PgDocsSearch } from "../../store/postgres/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import { codeGraphRows, embeddingPieces, MAX_GRAPH_CHARS } from "../doc_index.ts";
import { languageFromPath } from "../code_graph.ts";
import { vectorToBytes } from "../embedder.ts";

/** What the keyword index takes of one document. */
export interface KeywordEntry {
  /** Document id. */
  id: number;
  /** Its title. */
  title: string;
  /** Its path. */
  path: string;
  /** Its extracted text (already cut to the indexing budget). */
  text: string;
}

/** The keyword index's changes a committed write leaves to make. */
export interface KeywordChanges {
  /** Documents to index. */
  add: KeywordEntry[];
  /** Documents to take out (superseded or deleted). */
  remove: number[];
}

/** How documents are embedded while they are stored. */
export interface ServerEmbedding {
  /** Id of the embedding model vectors are stored under. */
  model: string;
  /** Synchronous embedding, when the embedder has one; otherwise vectors are added later. */
  embed?: (text: string) => Float32Array;
}

/** What indexing needs to know about one document. */
export interface ServerIndexInput extends KeywordEntry {
  /** The row already names the embedding model (it was inserted with it). */
  modelRecorded: boolean;
}

/**
 * Writes a document's vectors (when the embedder is synchronous) and code graph, inside the
 * caller's write, as SQLite's `indexDocument` does.
 */
export async function indexIn(
  docs: DocsStore<StoreMode>,
  embedding: ServerEmbedding,
  input: ServerIndexInput,
): Promise<void> {
  if (embedding.embed !== undefined) {
    const embed = embedding.embed;
    const vectors = embeddingPieces(input.title, input.text).map((piece) =>
      vectorToBytes(embed(piece))
    );
    // Sent together: a write's statements run one after another on its connection, in the
    // order sent, so the vectors get their ids in piece order without a round trip each.
    await Promise.all(
      vectors.map((vector, seq) => docs.insertVector(input.id, seq, embedding.model, vector)),
    );
    if (!input.modelRecorded) await docs.setVectorModel(input.id, embedding.model);
  }
  if (input.text.length <= MAX_GRAPH_CHARS && languageFromPath(input.path) !== undefined) {
    const rows = codeGraphRows(input.path, input.text);
    if (rows !== undefined) await docs.insertGraph(input.id, rows.nodes, rows.edges);
  }
}

/** Removes a document's vectors and graph, inside the caller's write, as `unindexDocument`. */
export async function unindexIn(docs: DocsStore<StoreMode>, id: number): Promise<void> {
  if (await docs.deleteVectors(id) > 0) await docs.bumpCounter("vector_removals");
  await docs.deleteGraph(id);
}

/**
 * Brings the keyword index in step with a committed write. A document indexed here may have
 * been superseded by another writer meanwhile, whose removal could have come first: it is
 * checked after it is indexed and taken out again when it is no longer its path's latest.
 */
export async function applyKeywordChanges(
  search: PgDocsSearch,
  docs: DocsStore<StoreMode>,
  changes: KeywordChanges,
): Promise<void> {
  for (const id of changes.remove) await search.removeDocumentText(id);
  for (const entry of changes.add) {
    try {
      await search.indexDocumentText(entry.id, {
        title: entry.title,
        path: entry.path,
        text: entry.text,
      });
    } catch (error) {
      // Deleted meanwhile: its row may not be written (it refers to the document), nor needed.
      if (await docs.documentById(entry.id) === undefined) continue;
      throw error;
    }
    if (!await docs.isLatestDocument(entry.id)) await search.removeDocumentText(entry.id);
  }
}
