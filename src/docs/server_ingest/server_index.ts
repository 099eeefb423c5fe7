/**
 * What search needs of a document stored on a database server, kept as SQLite's engine keeps
 * it (../doc_index.ts): its vectors and code graph written inside the write that stores or
 * supersedes it, and its keyword row (the server's `tsvector` index, `PgDocsSearch`) written
 * once that write has committed.
 *
 * The keyword row comes after the commit because the search functions run on the pool, not on
 * the write's connection: a document is findable by keyword a moment after it is stored, as on
 * SQLite, where the index file is written after the store's transaction too. So that a process
 * stopping in between loses nothing, the write queues the change (`docs_index_queue`, as
 * SQLite's writes do) and the queue entry is deleted only once the row is written; what a
 * stopped process left queued is applied by the next catch-up (server_catch_up.ts).
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { PgDocsSearch } from "../../store/postgres/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import { codeGraphRows, embeddingPieces, MAX_GRAPH_CHARS } from "../doc_index.ts";
import { languageFromPath } from "../code_graph.ts";
import { vectorToBytes } from "../embedder.ts";
import { indexedTextFrom } from "../server_search/server_text.ts";

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
  /** The queue entries of these changes, written in the same write, deleted once applied. */
  queued: number[];
}

/** No keyword changes. */
export function noKeywordChanges(): KeywordChanges {
  return { add: [], remove: [], queued: [] };
}

/** Queues a document's keyword row to be written after the commit (inside the caller's write). */
export async function queueKeywordAdd(
  docs: DocsStore<StoreMode>,
  changes: KeywordChanges,
  entry: KeywordEntry,
): Promise<void> {
  changes.queued.push(await docs.queueIndexChange(entry.id, "add"));
  changes.add.push(entry);
}

/** Queues a document's keyword row to be taken out after the commit (inside the caller's write). */
export async function queueKeywordRemoval(
  docs: DocsStore<StoreMode>,
  changes: KeywordChanges,
  id: number,
): Promise<void> {
  changes.queued.push(await docs.queueIndexChange(id, "remove"));
  changes.remove.push(id);
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

/** The keyword index's writes that bringing a row in step needs (a server's `PgDocsSearch`). */
export type KeywordRows = Pick<PgDocsSearch, "indexDocumentText" | "removeDocumentText">;

/** Whether the keyword index should hold a document: it is its path's latest text version. */
function belongs(row: DocumentRow | undefined): row is DocumentRow {
  return row !== undefined && row.is_latest === 1 && row.is_text === 1;
}

/** Times a document's row is written again because another writer changed it meanwhile. */
const SETTLE_ROUNDS = 4;

/**
 * Makes the keyword index hold a document exactly when it is its path's latest text version,
 * starting from what the caller believes (`indexed`: it should be held, with its text when the
 * caller has it). Each write is on the pool, so it is committed before the document is read
 * again; when another writer changed the document meanwhile (superseded it, made it latest
 * again, deleted it), the row is written again to match. A writer that changes it after that
 * read commits after it, and brings the row in step itself. Idempotent: two processes settling
 * the same document end with the same row.
 */
export async function settleKeywordRow(
  search: KeywordRows,
  docs: DocsStore<StoreMode>,
  id: number,
  believed?: { indexed: boolean; entry?: KeywordEntry },
): Promise<void> {
  let row: DocumentRow | undefined;
  let indexed: boolean;
  let entry = believed?.entry;
  if (believed === undefined) {
    row = await docs.documentById(id);
    indexed = belongs(row);
  } else indexed = believed.indexed;
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    if (!indexed) await search.removeDocumentText(id);
    else {
      if (entry === undefined) {
        row ??= await docs.documentById(id);
        // Gone since it was read: the next read says so, and nothing is written.
        if (row !== undefined) {
          const text = await indexedTextFrom(docs, row);
          entry = { id, title: row.title, path: row.path, text };
        }
      }
      if (entry !== undefined) {
        try {
          await search.indexDocumentText(id, entry);
        } catch (error) {
          // Deleted meanwhile: its row may not be written (it refers to the document), nor needed.
          if (await docs.documentById(id) !== undefined) throw error;
        }
      }
    }
    row = await docs.documentById(id);
    if (belongs(row) === indexed) return;
    indexed = !indexed;
  }
}

/**
 * Brings the keyword index in step with a committed write. Its queue entries are the caller's
 * to delete once this has answered (an add deletes them in its next write, a statement sent
 * with that write's first ones); until then a catch-up would only write the same rows again.
 */
export async function applyKeywordChanges(
  search: PgDocsSearch,
  docs: DocsStore<StoreMode>,
  changes: KeywordChanges,
): Promise<void> {
  for (const id of changes.remove) {
    await settleKeywordRow(search, docs, id, { indexed: false });
  }
  for (const entry of changes.add) {
    await settleKeywordRow(search, docs, entry.id, { indexed: true, entry });
  }
}
