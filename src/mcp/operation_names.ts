/**
 * What Vantage's MCP surfaces call the built-in operations: the `full`
 * surface's tool names where they are not the id with `.` → `_` (TMA1's ten
 * agent tools keep their names verbatim), and each operation's place in the
 * YAMS-shaped `composite` surface. Operations know nothing of these tables;
 * a catalog is built with {@linkcode VANTAGE_NAMING} and `describe`, the
 * catalog's search and the surfaces read the names from it. A host names
 * its own operations with {@linkcode mcpNaming}.
 *
 * @module
 */
import { defaultNaming, type OperationNames, type OperationNaming } from "../ops/naming.ts";

/** Where an operation appears in the `composite` MCP surface. */
export interface CompositeName {
  /** The composite tool: read pipeline, write batch or session lifecycle. */
  tool: "query" | "execute" | "session";
  /** The bare name used as `op` (or `action`) there. */
  name: string;
}

/** `full` surface tool names that are not the operation id with `.` → `_`. */
export const FULL_TOOL_NAMES: Readonly<Record<string, string>> = {
  "agent.get_context_bundle": "get_context_bundle",
  "agent.get_session_state": "get_session_state",
  "agent.get_anomalies": "get_anomalies",
  "agent.get_build_status": "get_build_status",
  "agent.get_external_changes": "get_external_changes",
  "agent.get_project_state": "get_project_state",
  "agent.get_peer_sessions": "get_peer_sessions",
  "agent.search_sessions": "search_sessions",
  "agent.get_session_transcript": "get_session_transcript",
  "agent.exec_query": "exec_query",
};

/** Each built-in operation's place in the `composite` surface, by operation id (YAMS's names). */
export const COMPOSITE_NAMES: Readonly<Record<string, CompositeName>> = {
  "dex.describe": { tool: "query", name: "describe" },
  "dex.list_cassettes": { tool: "query", name: "list_cassettes" },
  "docs.search": { tool: "query", name: "search" },
  "docs.grep": { tool: "query", name: "grep" },
  "docs.list": { tool: "query", name: "list" },
  "docs.get": { tool: "query", name: "get" },
  "docs.graph": { tool: "query", name: "graph" },
  "docs.status": { tool: "query", name: "status" },
  "docs.verify": { tool: "query", name: "verify" },
  "docs.list_collections": { tool: "query", name: "list_collections" },
  "docs.list_snapshots": { tool: "query", name: "list_snapshots" },
  "docs.suggest_context": { tool: "query", name: "suggest_context" },
  "docs.semantic_dedupe": { tool: "query", name: "semantic_dedupe" },
  "docs.add": { tool: "execute", name: "add" },
  "docs.update": { tool: "execute", name: "update" },
  "docs.delete": { tool: "execute", name: "delete" },
  "docs.restore": { tool: "execute", name: "restore" },
  "docs.download": { tool: "execute", name: "download" },
  "docs.export": { tool: "execute", name: "export" },
  "docs.repair": { tool: "execute", name: "repair" },
  "doc_session.start": { tool: "session", name: "start" },
  "doc_session.stop": { tool: "session", name: "stop" },
  "doc_session.pin": { tool: "session", name: "pin" },
  "doc_session.unpin": { tool: "session", name: "unpin" },
  "doc_session.watch": { tool: "session", name: "watch" },
};

/**
 * A catalog naming from MCP tables: `tools` overrides the default `full`
 * tool names, `composite` places operations in the `composite` surface; an
 * operation in neither keeps the default name and has no composite place.
 *
 * @example
 * ```ts
 * import { mcpNaming } from "./operation_names.ts";
 * const naming = mcpNaming({ composite: { "notes.put": { tool: "execute", name: "put" } } });
 * naming("notes.put"); // { tool: "notes_put", composite: { tool: "execute", name: "put" } }
 * ```
 */
export function mcpNaming(tables: {
  tools?: Readonly<Record<string, string>>;
  composite?: Readonly<Record<string, CompositeName>>;
}): OperationNaming {
  return (operationId) => {
    const names: OperationNames = {
      tool: lookup(tables.tools, operationId) ?? defaultNaming(operationId).tool,
    };
    const composite = lookup(tables.composite, operationId);
    if (composite !== undefined) names.composite = { ...composite };
    return names;
  };
}

/** The naming of Vantage's built-in catalog on its MCP surfaces. */
export const VANTAGE_NAMING: OperationNaming = mcpNaming({
  tools: FULL_TOOL_NAMES,
  composite: COMPOSITE_NAMES,
});

/** An own entry of a table (never one inherited from `Object.prototype`). */
function lookup<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
