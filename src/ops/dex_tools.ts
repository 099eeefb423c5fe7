/**
 * The `search` + `execute` tool pair over a catalog, in the Tama.Dex shapes:
 * definitions a host can advertise from any MCP server, and handlers that
 * return JSON-safe maps for it to send as structured content.
 *
 * @module
 */
import type { ErrorObject } from "../core/errors.ts";
import type { Catalog } from "./catalog.ts";
import { executeOperation, type ExecuteOptions, type ExecuteResponse } from "./executor.ts";
import type { JsonSchema } from "./json_schema.ts";
import { type Caller, type OperationAnnotations, READ_ONLY_ANNOTATIONS } from "./operation.ts";
import { executePipeline, type PipelineResponse, type PipelineStep } from "./pipeline.ts";
import { compactHit } from "./signature.ts";

/** An MCP tool definition with JSON Schema 2020-12 input and output schemas. */
export interface ToolDefinition {
  /** The tool's name. */
  name: string;
  /** Human title. */
  title: string;
  /** What the tool does. */
  description: string;
  /** JSON Schema of the arguments. */
  input_schema: JsonSchema;
  /** JSON Schema of the structured result. */
  output_schema: JsonSchema;
  /** MCP tool hints. */
  annotations: OperationAnnotations;
}

const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    kind: { type: "string" },
    dispatched: { type: "boolean" },
    message: { type: "string" },
    details: { type: "object" },
  },
  required: ["kind", "dispatched", "message"],
};

/**
 * The `search` tool definition.
 *
 * @example
 * ```ts
 * import { searchTool } from "./dex_tools.ts";
 * searchTool().name; // "search"
 * ```
 */
export function searchTool(): ToolDefinition {
  return {
    name: "search",
    title: "Search operations",
    description:
      "Find operations you may run, best first: each one's signature (`?` or `= default`: optional; `1..10` a range; flags off unless `= true`) and result fields. Then `execute` its operation_id.",
    input_schema: {
      $schema: SCHEMA_DIALECT,
      type: "object",
      properties: {
        query: { type: "string", description: "What you want to do, in words" },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 5 },
        cassette: { type: "string", description: "Only this pack (e.g. agent, docs)" },
        detail: {
          type: "string",
          enum: ["compact", "full"],
          default: "compact",
          description: "full: whole JSON Schemas",
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    output_schema: {
      $schema: SCHEMA_DIALECT,
      type: "object",
      properties: {
        results: { type: "array", items: { type: "object" } },
        truncated: { type: "boolean" },
        error: ERROR_SCHEMA,
      },
    },
    annotations: READ_ONLY_ANNOTATIONS,
  };
}

/**
 * The `execute` tool definition: one operation, or a pipeline of steps whose
 * string params may say `$prev`, `$prev.field` or `$prev.list[0].field`.
 */
export function executeTool(): ToolDefinition {
  return {
    name: "execute",
    title: "Execute an operation",
    description:
      "Run one operation found with `search`: {operation_id, arguments}. Or a pipeline: {steps:[{op, params}]}; a string param `$prev.results[0].id` takes that field of the previous step's result.",
    input_schema: {
      $schema: SCHEMA_DIALECT,
      type: "object",
      properties: {
        operation_id: { type: "string" },
        arguments: { type: "object" },
        steps: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            properties: { op: { type: "string" }, params: { type: "object" } },
            required: ["op"],
          },
        },
      },
      additionalProperties: false,
    },
    output_schema: {
      $schema: SCHEMA_DIALECT,
      type: "object",
      properties: {
        cassette: { type: "string" },
        operation_id: { type: "string" },
        source: { type: "string" },
        result: {},
        operation_error: { type: "object" },
        dispatched: { type: "boolean" },
        steps: { type: "array" },
        completed: { type: "integer" },
        error: ERROR_SCHEMA,
      },
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  };
}

/** The response of {@linkcode handleSearch}. */
export type SearchResponse =
  | { results: Record<string, unknown>[]; truncated: boolean }
  | { error: ErrorObject };

/**
 * Handles a `search` tool call: validates the arguments, then searches the
 * operations `caller` may run. Each hit is compact (id, one line, signature,
 * result fields) unless `detail` is `full`, which gives the whole schemas.
 */
export function handleSearch(catalog: Catalog, args: unknown, caller: Caller): SearchResponse {
  assertCaller(caller);
  const problem = checkObject(
    args,
    { query: "string", limit: "integer", cassette: "string", detail: "string" },
    ["query"],
  );
  if (problem !== undefined) return { error: invalid(problem) };
  const { query, limit, cassette, detail } = args as {
    query: string;
    limit?: number;
    cassette?: string;
    detail?: string;
  };
  if (limit !== undefined && (limit < 1 || limit > 50)) {
    return { error: invalid(`'limit' must be between 1 and 50; got ${limit}`) };
  }
  if (detail !== undefined && detail !== "compact" && detail !== "full") {
    return { error: invalid(`'detail' must be 'compact' or 'full'; got '${detail}'`) };
  }
  const found = catalog.search(query, caller, { limit: limit ?? 5, cassette });
  const results = detail === "full"
    ? found.results
    : found.results.map((hit) =>
      compactHit(hit.operation_id, hit.description, hit.input_schema, hit.output_schema)
    );
  return {
    results: results as unknown as Record<string, unknown>[],
    truncated: found.truncated,
  };
}

/**
 * Handles an `execute` tool call: `{operation_id, arguments}` runs one
 * operation, `{steps}` runs a pipeline. Validation, scopes, limits and error
 * shapes are the executor's.
 */
export async function handleExecute(
  catalog: Catalog,
  args: unknown,
  caller: Caller,
  options: ExecuteOptions = {},
): Promise<ExecuteResponse | PipelineResponse> {
  assertCaller(caller);
  const problem = checkObject(
    args,
    { operation_id: "string", arguments: "object", steps: "array" },
    [],
  );
  if (problem !== undefined) return { error: invalid(problem) };
  const input = args as {
    operation_id?: string;
    arguments?: Record<string, unknown>;
    steps?: unknown[];
  };
  if (input.steps !== undefined) {
    if (input.operation_id !== undefined || input.arguments !== undefined) {
      return {
        error: invalid("give either 'operation_id' (with 'arguments') or 'steps', not both"),
      };
    }
    if (input.steps.length === 0) return { error: invalid("'steps' must hold at least one step") };
    for (const [index, step] of input.steps.entries()) {
      const stepProblem = checkObject(step, { op: "string", params: "object" }, ["op"]);
      if (stepProblem !== undefined) return { error: invalid(`steps[${index}]: ${stepProblem}`) };
    }
    return await executePipeline(catalog, input.steps as PipelineStep[], caller, options);
  }
  if (input.operation_id === undefined) {
    return { error: invalid("'operation_id' is required (or give 'steps')") };
  }
  return await executeOperation(
    catalog,
    input.operation_id,
    input.arguments ?? {},
    caller,
    options,
  );
}

type FieldType = "string" | "integer" | "object" | "array";

/** Checks a plain argument object against a small field-type map. */
function checkObject(
  value: unknown,
  fields: Record<string, FieldType>,
  required: string[],
): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return `arguments must be a JSON object; got ${
      value === null ? "null" : Array.isArray(value) ? "an array" : typeof value
    }`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(key in fields)) {
      return `unknown field '${key}'; allowed: ${Object.keys(fields).join(", ")}`;
    }
  }
  for (const key of required) {
    if (record[key] === undefined) return `'${key}' is required`;
  }
  for (const [key, type] of Object.entries(fields)) {
    const field = record[key];
    if (field === undefined) continue;
    const ok = type === "string"
      ? typeof field === "string"
      : type === "integer"
      ? Number.isInteger(field)
      : type === "array"
      ? Array.isArray(field)
      : field !== null && typeof field === "object" && !Array.isArray(field);
    if (!ok) {
      return `'${key}' must be ${
        type === "integer"
          ? "an integer"
          : `a${type === "object" || type === "array" ? "n" : ""} ${type}`
      }`;
    }
  }
  return undefined;
}

function invalid(message: string): ErrorObject {
  return { kind: "invalid_arguments", dispatched: false, message };
}

function assertCaller(caller: Caller): void {
  if (caller === null || typeof caller !== "object" || !Array.isArray(caller.scopes)) {
    throw new TypeError("caller must be an object with a 'scopes' array");
  }
}
