/**
 * Document search on a database server's store: the legs of doc_search.ts's ranking, read
 * through the {@linkcode DocsStore} interface and the server's keyword index, fused by the
 * same {@linkcode rankWith} — the same modes, query terms, depths and fusion as on SQLite.
 *
 * - keyword: BM25 over the server's `tsvector` index (store/postgres/docs/document_search.ts)
 *   for any of the query's terms as {@linkcode queryKeywords} gives them. Its tokenizer
 *   (PostgreSQL's `english`) is not SQLite's (unicode61 with porter): stop words are not
 *   indexed and stems can differ, so scores, and the order of close documents, may differ.
 * - fuzzy: server_fuzzy.ts.
 * - semantic: exact cosine over the vectors the store holds (server_vectors.ts), scored as
 *   SQLite's index scores them, plus documents without stored vectors embedded for the one
 *   search (server_unstored.ts).
 *
 * Nothing is written. SQLite's warning about index changes a stopped process left queued
 * concerns its index file, which is written apart from the store; a server's index is a table
 * of the store itself.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import { type DocumentFilter, isNarrowFilter } from "../../store/docs/document_listing.ts";
import type { PgDocsSearch } from "../../store/postgres/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import {
  queryVector,
  type RankedDocument,
  type Ranking,
  rankWith,
  type SearchRequest,
  withUnstored,
} from "../doc_search.ts";
import { queryKeywords } from "../search_terms.ts";
import { SEARCH_EMBED_BUDGET_MS } from "../unstored_vectors.ts";
import { serverFuzzyHits } from "./server_fuzzy.ts";
import { unstoredVectorsFrom } from "./server_unstored.ts";
import { ServerVectorIndex } from "./server_vectors.ts";

/** A database server's document store and keyword index. */
export interface SearchDocs {
  /** The document store (answers later). */
  store: DocsStore<StoreMode>;
  /** Its keyword index. */
  search: PgDocsSearch;
}

/**
 * Ranks documents for a query on a server's store.
 *
 * @example
 * ```ts ignore
 * const { hits } = await rankOnServer({ store: docs.store, search: docs.serverSearch }, {
 *   query: "refresh token", mode: "hybrid", limit: 10, fuzzy: true, similarity: 0.7,
 *   filter: {}, embedder: new HashedEmbedder(),
 * });
 * ```
 */
export async function rankOnServer(server: SearchDocs, request: SearchRequest): Promise<Ranking> {
  // The documents a narrowing filter allows, looked up once for every leg.
  const allow = await allowedOn(server.store, request.filter);
  const allowList = allow === undefined ? undefined : [...allow];
  return await rankWith({
    keyword: async (query, limit, columns) => {
      const terms = queryKeywords(query);
      if (terms.length === 0) return [];
      return await server.search.searchDocumentText(terms, {
        weights: columns,
        limit,
        allow: allowList,
      });
    },
    fuzzy: (query, similarity, limit, columns) =>
      serverFuzzyHits(server.store, server.search, query, similarity, limit, columns, allow),
    semantic: (limit, warnings) =>
      serverSemanticHits(server.store, request, limit, allow, warnings),
  }, request);
}

/** The documents a narrowing filter allows; undefined when it narrows nothing. */
async function allowedOn(
  store: DocsStore<StoreMode>,
  filter: DocumentFilter,
): Promise<Set<number> | undefined> {
  return isNarrowFilter(filter) ? new Set(await store.filteredIds(filter)) : undefined;
}

/**
 * Semantic hits on a server: cosine over the stored vectors of the configured embedder, and
 * over vectors computed for this search of documents that have none stored (only among
 * `allow` when given). What the search could not cover is said in `warnings`.
 */
export async function serverSemanticHits(
  store: DocsStore<StoreMode>,
  request: Pick<SearchRequest, "query" | "embedder">,
  limit: number,
  allow: ReadonlySet<number> | undefined,
  warnings: string[] = [],
): Promise<RankedDocument[]> {
  if (request.query.trim() === "") return [];
  const unstored = await unstoredVectorsFrom(store, request.embedder, {
    budgetMs: SEARCH_EMBED_BUDGET_MS,
    allow,
  });
  const vector = await queryVector(request.embedder, request.query);
  const index = await ServerVectorIndex.for(store, request.embedder.id);
  const stored = index.search(
    vector,
    limit,
    allow === undefined ? undefined : (id) => allow.has(id),
  );
  return withUnstored(stored, unstored, vector, limit, request.embedder.id, warnings);
}
