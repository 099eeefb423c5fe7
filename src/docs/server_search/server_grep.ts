/**
 * `docs.grep` on a database server's store: doc_grep.ts's scan — the same documents in the
 * same order, the same matching, caps and context lines — over contents read through the
 * {@linkcode DocsStore} interface, each verified as it is read (store_content.ts).
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import { grepListing, type GrepReport, type GrepRequest, grepRows } from "../doc_grep.ts";
import { readContentFrom } from "../store_content.ts";
import { decodeText } from "../text_extract.ts";

/**
 * Searches a server's stored text documents for a pattern.
 *
 * @example
 * ```ts ignore
 * const report = await grepOnServer(store.docs, { pattern: "TODO|FIXME", filter: {} });
 * ```
 */
export async function grepOnServer(
  docs: DocsStore<StoreMode>,
  request: GrepRequest,
): Promise<GrepReport> {
  const { rows } = await docs.listDocuments(grepListing(request.filter));
  // Each chunk read is a round trip to the server, so the event loop is free while a large
  // document is read; the pacer is consulted between documents and while matching.
  return await grepRows(
    rows,
    async (row) =>
      decodeText(await readContentFrom(docs, row.hash, { path: row.path, id: row.id })),
    request,
  );
}
