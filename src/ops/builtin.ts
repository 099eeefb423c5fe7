/**
 * The catalog Vantage ships: every built-in cassette (the scope vocabulary
 * lives in scopes.ts, so a surface can check flags without loading these).
 *
 * @module
 */
import { type Catalog, createCatalog } from "./catalog.ts";
import { agentCassette } from "../agent/mod.ts";
import { dexCassette } from "./dex/cassette.ts";
import { docsCassette, docSessionCassette } from "../docs/mod.ts";
import type { OperationNaming } from "./naming.ts";
import type { Cassette } from "./operation.ts";
import { syncCassette } from "../sync/mod.ts";
import { teamCassette } from "../team/mod.ts";

/** Every built-in cassette, in listing order. */
export function builtinCassettes(): Cassette[] {
  return [
    dexCassette,
    agentCassette,
    docsCassette,
    docSessionCassette,
    teamCassette,
    syncCassette,
  ];
}

/**
 * The catalog of built-in cassettes. A surface passes the naming its tools
 * use (Vantage's MCP tables, `VANTAGE_NAMING` in `src/mcp/operation_names.ts`),
 * so `describe` and search show and find those names; operations know none.
 */
export function builtinCatalog(options: { naming?: OperationNaming } = {}): Catalog {
  return createCatalog({ cassettes: builtinCassettes(), naming: options.naming });
}
