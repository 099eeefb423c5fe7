/**
 * Search results on a database server's store: doc_results.ts's items — the same fields,
 * rounding and snippets — with each document's text read through the {@linkcode DocsStore}
 * interface; and the lookup by content hash that `docs.search` answers with `hash`.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import type { StoreMode } from "../../store/repository.ts";
import { isHashPrefix, MIN_HASH_PREFIX_LENGTH } from "../content_hash.ts";
import {
  addSnippet,
  resultItem,
  type SearchResultItem,
  SNIPPET_SOURCE_BYTES,
  type SnippetRequest,
  wantsSnippet,
} from "../doc_results.ts";
import type { RankedDocument } from "../doc_search.ts";
import { documentTextFrom } from "./server_text.ts";

/**
 * Builds result items for ranked documents, in rank order. A document whose content cannot be
 * read intact gets an empty snippet and a warning.
 *
 * @example
 * ```ts ignore
 * const items = await resultItemsFrom(store.docs, hits, { query, lineNumbers: false, context: 0 }, []);
 * ```
 */
export async function resultItemsFrom(
  docs: DocsStore<StoreMode>,
  hits: readonly RankedDocument[],
  request: SnippetRequest,
  warnings: string[],
): Promise<SearchResultItem[]> {
  const rows = new Map<number, DocumentRow>();
  for (const row of await docs.documentsByIds(hits.map((hit) => hit.id))) rows.set(row.id, row);
  const items: SearchResultItem[] = [];
  for (const hit of hits) {
    const row = rows.get(hit.id);
    if (row === undefined) continue;
    const item = resultItem(row, hit.score);
    if (wantsSnippet(row, request)) {
      try {
        addSnippet(item, await documentTextFrom(docs, row, SNIPPET_SOURCE_BYTES), request);
      } catch (error) {
        warnings.push(error instanceof Error ? error.message : String(error));
      }
    }
    items.push(item);
  }
  return items;
}

/**
 * Every document (any version) whose content hash starts with `hash`, newest first; a value
 * that is no hash or too short a prefix is refused as SQLite's lookup refuses it.
 */
export async function documentsByHashFrom(
  docs: DocsStore<StoreMode>,
  hash: string,
  limit: number,
): Promise<DocumentRow[]> {
  const prefix = hash.trim().toLowerCase();
  if (!isHashPrefix(prefix)) {
    throw new VantageError(
      "invalid_arguments",
      `hash '${hash}' is not a content hash or a prefix of at least ${MIN_HASH_PREFIX_LENGTH} hex characters`,
      { details: { hash } },
    );
  }
  return await docs.documentsByHashPrefix(prefix, false, limit);
}
