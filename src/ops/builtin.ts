/**
 * The catalog Vantage ships: every built-in cassette (the scope vocabulary
 * lives in scopes.ts, so a surface can check flags without loading these).
 *
 * @module
 */
import { type Catalog, createCatalog } from "./catalog.ts";
import { agentCassette } from "./agent/cassette.ts";
import { dexCassette } from "./dex/cassette.ts";
import { docsCassette } from "./docs/cassette.ts";
import { sessionCassette } from "./session/cassette.ts";
import type { Cassette } from "./operation.ts";

/** Every built-in cassette, in listing order. */
export function builtinCassettes(): Cassette[] {
  return [dexCassette, agentCassette, docsCassette, sessionCassette];
}

/** The catalog of built-in cassettes. */
export function builtinCatalog(): Catalog {
  return createCatalog({ cassettes: builtinCassettes() });
}
