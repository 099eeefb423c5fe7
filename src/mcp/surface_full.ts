/**
 * The `full` surface: one MCP tool per operation the caller may run, each
 * with its own schemas and annotations. The `agent` operations keep TMA1's
 * tool names verbatim.
 *
 * @module
 */
import type { Catalog } from "../ops/catalog.ts";
import { executeOperation, type ExecuteOptions } from "../ops/executor.ts";
import { toJsonSchema } from "../ops/json_schema.ts";
import { type Caller, fullToolName, type Operation } from "../ops/operation.ts";
import { jsonResult, type McpSurface, type McpTool, toolError } from "./surface.ts";

/** Builds the `full` surface for one caller. */
export function fullSurface(
  catalog: Catalog,
  caller: Caller,
  options: ExecuteOptions = {},
): McpSurface {
  const byName = new Map<string, Operation>();
  for (const operation of catalog.operations()) byName.set(fullToolName(operation), operation);
  return {
    name: "full",
    tools(): McpTool[] {
      return catalog.visibleTo(caller).map((operation) => ({
        name: fullToolName(operation),
        title: operation.title,
        description: operation.description,
        inputSchema: toJsonSchema(operation.input, "input"),
        outputSchema: toJsonSchema(operation.output, "output"),
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
      return jsonResult(response as unknown as Record<string, unknown>, {
        isError: true,
        structured: false,
      });
    },
  };
}
