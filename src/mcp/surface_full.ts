/**
 * The `full` surface: one MCP tool per operation the caller may run, each
 * with its input schema, a slim result schema (top-level fields and their
 * types) and its annotations, named as the catalog's naming says
 * (Vantage's: `operation_names.ts`, where the `agent` operations keep TMA1's
 * tool names verbatim).
 *
 * @module
 */
import type { Catalog } from "../ops/catalog.ts";
import { executeOperation, type ExecuteOptions } from "../ops/executor.ts";
import { slimSchema, toJsonSchema } from "../ops/json_schema.ts";
import type { Caller, Operation } from "../ops/operation.ts";
import { executeResult, jsonResult, type McpSurface, type McpTool, toolError } from "./surface.ts";

/** Builds the `full` surface for one caller. */
export function fullSurface(
  catalog: Catalog,
  caller: Caller,
  options: ExecuteOptions = {},
): McpSurface {
  const toolName = (operation: Operation) => catalog.namesOf(operation.id).tool;
  const byName = new Map<string, Operation>();
  for (const operation of catalog.operations()) byName.set(toolName(operation), operation);
  return {
    name: "full",
    tools(): McpTool[] {
      return catalog.visibleTo(caller).map((operation) => ({
        name: toolName(operation),
        title: operation.title,
        description: operation.description,
        inputSchema: toJsonSchema(operation.input, "input"),
        // The whole result schema is 60% of a full tool list; `dex_describe` gives it on demand.
        outputSchema: slimSchema(toJsonSchema(operation.output, "output")),
        annotations: { title: operation.title, ...operation.annotations },
      }));
    },
    async call(name, args) {
      const operation = byName.get(name);
      if (operation === undefined) {
        return toolError("unknown_operation", `no tool '${name}' on the full surface`, false);
      }
      const response = await executeOperation(catalog, operation.id, args ?? {}, caller, options);
      if ("result" in response) return jsonResult(response.result as Record<string, unknown>);
      // An error does not match the operation's output schema, so it travels as text only.
      return executeResult(response, { structured: false });
    },
  };
}
