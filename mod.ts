/**
 * Vantage as a library: the typed operation catalog, the `search` +
 * `execute` tool pair with their handlers, and the MCP server over the
 * catalog, so another program can mount Vantage's operations — or its own —
 * without running Vantage's server.
 *
 * @example Search and execute over a host's own catalog
 * ```ts
 * import { z } from "zod";
 * import { createCatalog, defineOperation, handleExecute, handleSearch } from "@vantage/vantage";
 *
 * const catalog = createCatalog({
 *   cassettes: [{
 *     name: "math",
 *     source: "my-host",
 *     description: "Arithmetic",
 *     operations: [defineOperation({
 *       id: "math.add",
 *       title: "Add two numbers",
 *       description: "Returns the sum of a and b.",
 *       input: z.object({ a: z.number(), b: z.number() }),
 *       output: z.object({ sum: z.number() }),
 *       scopes: ["math:read"],
 *       annotations: { readOnlyHint: true },
 *       run: (_ctx, { a, b }) => ({ sum: a + b }),
 *     })],
 *   }],
 * });
 * const caller = { scopes: ["math:read"] };
 * handleSearch(catalog, { query: "sum numbers" }, caller);
 * await handleExecute(catalog, { operation_id: "math.add", arguments: { a: 1, b: 2 } }, caller);
 * ```
 *
 * @module
 */

export {
  ERROR_KINDS,
  type ErrorKind,
  type ErrorObject,
  isErrorKind,
  OperationFailure,
  toErrorObject,
  VantageError,
} from "./src/core/errors.ts";
export { VERSION } from "./src/core/version.ts";
export {
  type Caller,
  type Cassette,
  type CatalogView,
  defineOperation,
  type Operation,
  type OperationAnnotations,
  type OperationContext,
  type Schema,
  type SchemaIssue,
} from "./src/ops/operation.ts";
export {
  Catalog,
  type CatalogLimits,
  type CatalogOptions,
  createCatalog,
  DEFAULT_LIMITS,
  type OperationSummary,
  type SearchResult,
} from "./src/ops/catalog.ts";
export {
  type ExecuteFailure,
  executeOperation,
  type ExecuteOperationError,
  type ExecuteOptions,
  type ExecuteResponse,
  type ExecuteSuccess,
  failureOf,
  type OperationErrorObject,
} from "./src/ops/executor.ts";
export {
  byOperationId,
  executePipeline,
  type PipelineOptions,
  type PipelineResponse,
  type PipelineRun,
  type PipelineStep,
  runPipeline,
  type StepOutcome,
  type StepResolver,
} from "./src/ops/pipeline.ts";
export {
  executeTool,
  handleExecute,
  handleSearch,
  type SearchResponse,
  searchTool,
  type ToolDefinition,
} from "./src/ops/dex_tools.ts";
export type { JsonSchema } from "./src/ops/json_schema.ts";
export { defaultNaming, type OperationNames, type OperationNaming } from "./src/ops/naming.ts";
export { type ServiceKey, serviceKey, Services } from "./src/ops/services.ts";
export { DEFAULT_SCOPES, KNOWN_SCOPES, parseScopes } from "./src/ops/scopes.ts";
export { builtinCassettes, builtinCatalog } from "./src/ops/builtin.ts";
export {
  createMcpServer,
  type McpServerHandle,
  type McpServerOptions,
  type McpTransport,
} from "./src/mcp/server.ts";
export { buildSurface } from "./src/mcp/surfaces.ts";
export {
  COMPOSITE_NAMES,
  type CompositeName,
  FULL_TOOL_NAMES,
  mcpNaming,
  VANTAGE_NAMING,
} from "./src/mcp/operation_names.ts";
export {
  type McpSurface,
  type McpTool,
  type McpToolResult,
  parseSurfaceName,
  SURFACE_NAMES,
  type SurfaceName,
} from "./src/mcp/surface.ts";
