/**
 * `docs.suggest_context` on a database server's store: doc_suggest.ts's grouping and scoring,
 * with the server's ranking (server_ranking.ts) and the served sets recorded in the store
 * (one write of their own there).
 *
 * @module
 */
import { suggestFrom, type SuggestReport, type SuggestRequest } from "../doc_suggest.ts";
import { rankOnServer, type SearchDocs } from "./server_ranking.ts";

/**
 * Suggests snapshots for a topic on a server's store.
 *
 * @example
 * ```ts ignore
 * await suggestOnServer({ store: docs.store, search: docs.serverSearch }, {
 *   query: "auth flow", limit: 5, filter: {}, embedder, now: Date.now(),
 * });
 * ```
 */
export async function suggestOnServer(
  server: SearchDocs,
  request: SuggestRequest,
): Promise<SuggestReport> {
  return await suggestFrom(
    server.store,
    (search) => rankOnServer(server, search),
    (session, key, served) =>
      server.store.recordServedSuggestions(session, key, served, request.now),
    request,
  );
}
