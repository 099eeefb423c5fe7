/**
 * The default `dex` surface: two tools, `search` and `execute`, whatever the
 * size of the catalog.
 *
 * @module
 */
import type { Catalog } from "../ops/catalog.ts";
import {
  executeTool,
  handleExecute,
  handleSearch,
  type SearchResponse,
  searchTool,
  type ToolDefinition,
} from "../ops/dex_tools.ts";
import type { ExecuteOptions } from "../ops/executor.ts";
import type { Caller } from "../ops/operation.ts";
import { type CompactHit, hitText } from "../ops/signature.ts";
import { executeResult, jsonResult, type McpSurface, type McpTool, toolError } from "./surface.ts";

/** Turns a Tama.Dex definition into an MCP tool. */
export function definitionToTool(definition: ToolDefinition): McpTool {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: definition.input_schema,
    outputSchema: definition.output_schema,
    annotations: definition.annotations,
  };
}

/** Builds the `dex` surface for one caller. */
export function dexSurface(
  catalog: Catalog,
  caller: Caller,
  options: ExecuteOptions = {},
): McpSurface {
  const definitions = [searchTool(), executeTool()];
  return {
    name: "dex",
    tools: () => definitions.map(definitionToTool),
    async call(name, args) {
      if (name === "search") {
        const response = handleSearch(catalog, args ?? {}, caller);
        return jsonResult(response, { isError: "error" in response, text: searchText(response) });
      }
      if (name === "execute") {
        return executeResult(await handleExecute(catalog, args ?? {}, caller, options));
      }
      return toolError(
        "unknown_operation",
        `no tool '${name}' on the dex surface; tools: search, execute`,
      );
    },
  };
}

/**
 * Compact hits as lines a person or model reads at once: the signature with
 * the result's fields, then the description. Full hits and errors stay JSON.
 */
function searchText(response: SearchResponse): string | undefined {
  if (!("results" in response)) return undefined;
  const hits = response.results as unknown as CompactHit[];
  if (hits.some((hit) => typeof hit.signature !== "string")) return undefined;
  const lines = hits.map(hitText);
  if (hits.length === 0) lines.push("no match: try other words");
  if (response.truncated) lines.push("(more matched: raise limit)");
  return lines.join("\n");
}
