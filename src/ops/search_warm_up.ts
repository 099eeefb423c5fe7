/**
 * Warming document search in a new server process. Every agent session
 * starts its own `mcp-serve`, so the first search of a process is the common
 * case, and its one-time costs (the store and the keyword index opened, the
 * vector column files opened and read, SQLite's pages, V8's compiled code for
 * the search path and for the operation's schemas, the word pattern's Unicode
 * tables) would otherwise land on the agent's first call. A server runs one
 * `docs.search` here, through the catalog as a call would, while the client
 * reads `tools/list` and its model writes the first turn, and throws the
 * answer away.
 *
 * Reading only, as `docs.search` is: nothing is stored or sealed (a read
 * grant never writes). Run only for a caller who may search documents, only
 * on a store that already exists (so warming never creates a data home:
 * `install` starts the registered command once, before anything is stored),
 * and with keyword search alone when embeddings come from a service (a
 * network call nobody asked for).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { configuredEmbedder, HashedEmbedder } from "../docs/mod.ts";
import type { Catalog } from "./catalog.ts";
import { executeOperation } from "./executor.ts";
import { type Caller, scopeGranted } from "./operation.ts";
import { PATHS } from "./service_keys.ts";
import type { Services } from "./services.ts";

/** What a warm-up did, for the server's debug log and the benchmark. */
export interface SearchWarmUp {
  /** Milliseconds the warm-up search took. */
  ms: number;
  /** The search type run. */
  type: "hybrid" | "keyword";
}

// Words common in notes and code, so the warm-up reads index pages and vector columns that real
// queries read too.
const WARM_QUERY = "build error test config";

/** Warms `docs.search` for `caller`; undefined when there was no grant or nothing stored. */
export async function warmSearchFor(
  catalog: Catalog,
  services: Services,
  caller: Caller,
): Promise<SearchWarmUp | undefined> {
  if (catalog.get("docs.search") === undefined) return undefined;
  if (!scopeGranted(caller.scopes, "docs:read")) return undefined;
  if (!existsSync(services.get(PATHS).database)) return undefined;
  const started = performance.now();
  const type = configuredEmbedder() instanceof HashedEmbedder ? "hybrid" : "keyword";
  const response = await executeOperation(
    catalog,
    "docs.search",
    { query: WARM_QUERY, type, limit: 10 },
    caller,
    { services },
  );
  if (!("result" in response)) {
    const failure = "error" in response ? response.error : response.operation_error;
    throw new Error(`the warm-up search failed: ${failure?.message}`);
  }
  return { ms: performance.now() - started, type };
}
