/**
 * The document store on PostgreSQL: this folder's functions bound to a pool (or one write's
 * connection), checked by the compiler to hold every method of
 * {@linkcode DocsStore}`<"async">` — the interface SQLite's store implements synchronously —
 * plus the keyword search over documents ({@linkcode PgDocsSearch}), which PostgreSQL answers
 * from its own `tsvector` index where SQLite keeps an index file.
 *
 * The document engine's writes (src/docs/server_ingest/) run on this interface; the rest of the
 * engine (src/docs/) still runs on SQLite's functions directly, and until it runs here a server
 * on PostgreSQL refuses those operations (see ../postgres_store.ts).
 *
 * @module
 */
import type { DocsStore } from "../../docs/docs_store.ts";
import { bindQueryable, type PgBound } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import * as chunks from "./chunks.ts";
import * as documentSearch from "./document_search.ts";
import * as documentVocabulary from "./document_vocabulary.ts";
import * as documents from "./documents.ts";
import * as graphAndVectors from "./graph_and_vectors.ts";
import * as labelsOfMany from "./labels_of_many.ts";
import * as listing from "./listing.ts";
import * as queueAndState from "./queue_and_state.ts";
import * as snapshotsAndSessions from "./snapshots_and_sessions.ts";

const PG_DOCS_FUNCTIONS = {
  ...documents,
  ...listing,
  ...labelsOfMany,
  ...chunks,
  ...snapshotsAndSessions,
  ...graphAndVectors,
  ...queueAndState,
};

/**
 * The PostgreSQL document store on a pool or a write's connection.
 *
 * @example
 * ```ts ignore
 * import { pgDocsStore } from "./docs_store.ts";
 * const docs = pgDocsStore(pool);
 * (await docs.documentTotals()).documents; // 0
 * ```
 */
export function pgDocsStore(q: PgQueryable): DocsStore<"async"> {
  return bindQueryable(q, PG_DOCS_FUNCTIONS);
}

const PG_DOCS_SEARCH_FUNCTIONS = {
  indexDocumentText: documentSearch.indexDocumentText,
  removeDocumentText: documentSearch.removeDocumentText,
  searchDocumentText: documentSearch.searchDocumentText,
  vectorBackend: documentSearch.vectorBackend,
  searchVocabulary: documentVocabulary.searchVocabulary,
  indexedDocumentIds: documentVocabulary.indexedDocumentIds,
  queryLexemes: documentVocabulary.queryLexemes,
};

/**
 * Keyword search over documents on PostgreSQL, the index's words (for fuzzy search), and how
 * the server can hold vectors.
 */
export type PgDocsSearch = PgBound<typeof PG_DOCS_SEARCH_FUNCTIONS>;

/**
 * The PostgreSQL document search on a pool or a write's connection.
 *
 * @example
 * ```ts ignore
 * import { pgDocsSearch } from "./docs_store.ts";
 * const search = pgDocsSearch(pool);
 * await search.indexDocumentText(7, { title: "Auth", path: "/notes/auth.md", text: "…" });
 * await search.searchDocumentText(["auth"], { weights: { title: 4, path: 2, body: 1 }, limit: 10 });
 * ```
 */
export function pgDocsSearch(q: PgQueryable): PgDocsSearch {
  return bindQueryable(q, PG_DOCS_SEARCH_FUNCTIONS);
}
