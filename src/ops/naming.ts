/**
 * The names an operation goes by where a surface renames operations: a tool
 * of its own (one tool per operation), or a short name under one of a few
 * grouping tools. Operations carry none of this: a catalog is given a naming
 * (Vantage's comes from the MCP tables in `src/mcp/operation_names.ts`), and
 * `describe`, the catalog's search and the surfaces read it from there.
 *
 * @module
 */

/** What one operation is called besides its id. */
export interface OperationNames {
  /** Its tool name where every operation is a tool of its own, e.g. `get_session_state`. */
  tool: string;
  /** Where it sits among grouped tools, e.g. `{tool: "query", name: "search"}`; none when absent. */
  composite?: { tool: string; name: string };
}

/** Gives the names of an operation by its id. */
export type OperationNaming = (operationId: string) => OperationNames;

/**
 * The naming of a catalog given none: the id with `.` turned into `_` as
 * the tool name, and no grouped name.
 *
 * @example
 * ```ts
 * import { defaultNaming } from "./naming.ts";
 * defaultNaming("docs.search"); // { tool: "docs_search" }
 * ```
 */
export function defaultNaming(operationId: string): OperationNames {
  return { tool: operationId.replaceAll(".", "_") };
}
