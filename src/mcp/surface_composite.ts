/**
 * The `composite` surface, in YAMS's shapes: `query` (a read-only pipeline
 * with `$prev` references and `describe`), `execute` (a write batch that
 * stops at the first error unless `continueOnError`), `session` (lifecycle
 * actions) and `mcp.echo`. Operation names are the bare YAMS names.
 *
 * @module
 */
import type { ErrorObject } from "../core/errors.ts";
import type { Catalog } from "../ops/catalog.ts";
import { executeOperation, type ExecuteOptions, type ExecuteResponse } from "../ops/executor.ts";
import type { Caller, CompositeName, Operation } from "../ops/operation.ts";
import { resolveReferences } from "../ops/prev_reference.ts";
import { jsonResult, type McpSurface, type McpTool, toolError } from "./surface.ts";

type CompositeTool = CompositeName["tool"];

/** Builds the `composite` surface for one caller. */
export function compositeSurface(
  catalog: Catalog,
  caller: Caller,
  options: ExecuteOptions = {},
): McpSurface {
  const named = (tool: CompositeTool): Map<string, Operation> => {
    const map = new Map<string, Operation>();
    for (const operation of catalog.visibleTo(caller)) {
      if (operation.composite?.tool !== tool) continue;
      // A query step must not write, whatever the operation claims elsewhere.
      if (tool === "query" && operation.annotations.readOnlyHint !== true) continue;
      map.set(operation.composite.name, operation);
    }
    return map;
  };
  const queryOps = named("query");
  const executeOps = named("execute");
  const sessionOps = named("session");

  const run = (operation: Operation, params: unknown): Promise<ExecuteResponse> =>
    executeOperation(catalog, operation.id, params ?? {}, caller, options);

  return {
    name: "composite",
    tools(): McpTool[] {
      const tools: McpTool[] = [];
      if (queryOps.size > 0) tools.push(queryTool([...queryOps.keys()]));
      if (executeOps.size > 0) tools.push(executeTool([...executeOps.keys()]));
      if (sessionOps.size > 0) tools.push(sessionTool([...sessionOps.keys()]));
      tools.push(ECHO_TOOL);
      return tools;
    },
    async call(name, args) {
      const input = args ?? {};
      switch (name) {
        case "query":
          return await callQuery(queryOps, input, run);
        case "execute":
          return await callExecute(executeOps, input, run);
        case "session":
          return await callSession(sessionOps, input, run);
        case "mcp.echo":
          if (typeof input.message !== "string") {
            return toolError("invalid_arguments", "'message' must be a string", false);
          }
          return jsonResult({ message: input.message }, { structured: false });
        default:
          return toolError(
            "unknown_operation",
            `no tool '${name}' on the composite surface; tools: query, execute, session, mcp.echo`,
            false,
          );
      }
    },
  };
}

type Runner = (operation: Operation, params: unknown) => Promise<ExecuteResponse>;

async function callQuery(
  ops: Map<string, Operation>,
  input: Record<string, unknown>,
  run: Runner,
) {
  const steps = input.steps;
  if (!Array.isArray(steps) || steps.length === 0) {
    return toolError(
      "invalid_arguments",
      "'steps' must be a non-empty array of {op, params}",
      false,
    );
  }
  const done: Array<{ op: string; result: unknown }> = [];
  let previous: unknown = {};
  for (const [index, step] of steps.entries()) {
    const shape = stepShape(step, "op");
    if (typeof shape === "string") {
      return failure({
        kind: "invalid_arguments",
        dispatched: false,
        message: `steps[${index}]: ${shape}`,
      }, done);
    }
    const operation = ops.get(shape.name);
    if (operation === undefined) {
      return failure(unknownName("query op", shape.name, ops, index), done);
    }
    const response = await run(operation, resolveReferences(shape.params, previous));
    const error = errorOf(response);
    if (error !== undefined) {
      return failure(
        { ...error, message: `steps[${index}] (${shape.name}): ${error.message}` },
        done,
      );
    }
    previous = (response as { result: unknown }).result;
    done.push({ op: shape.name, result: previous });
  }
  // YAMS's single-step shortcut: one step answers with its bare result.
  if (done.length === 1) {
    return jsonResult(done[0].result as Record<string, unknown>, { structured: false });
  }
  return jsonResult({ steps: done }, { structured: false });
}

async function callExecute(
  ops: Map<string, Operation>,
  input: Record<string, unknown>,
  run: Runner,
) {
  const operations = input.operations;
  if (!Array.isArray(operations) || operations.length === 0) {
    return toolError(
      "invalid_arguments",
      "'operations' must be a non-empty array of {op, params}",
      false,
    );
  }
  if (input.continueOnError !== undefined && typeof input.continueOnError !== "boolean") {
    return toolError("invalid_arguments", "'continueOnError' must be a boolean", false);
  }
  const continueOnError = input.continueOnError === true;
  const results: Array<Record<string, unknown>> = [];
  let succeeded = 0;
  let failed = 0;
  let previous: unknown = {};
  for (const [index, entry] of operations.entries()) {
    const shape = stepShape(entry, "op");
    let error: ErrorObject | undefined;
    let opName = "";
    if (typeof shape === "string") {
      error = {
        kind: "invalid_arguments",
        dispatched: false,
        message: `operations[${index}]: ${shape}`,
      };
    } else {
      opName = shape.name;
      const operation = ops.get(shape.name);
      if (operation === undefined) {
        error = unknownName("execute op", shape.name, ops, index);
      } else {
        const response = await run(operation, resolveReferences(shape.params, previous));
        error = errorOf(response);
        if (error === undefined) {
          const result = (response as { result: unknown }).result;
          previous = result;
          succeeded++;
          const fields = result !== null && typeof result === "object" && !Array.isArray(result)
            ? result as Record<string, unknown>
            : { result };
          results.push({ op: opName, success: true, ...fields });
          continue;
        }
      }
    }
    failed++;
    results.push({ op: opName, success: false, error });
    if (!continueOnError) break;
  }
  const body = { results, totalOps: operations.length, succeeded, failed };
  return jsonResult(body, { isError: failed > 0, structured: false });
}

async function callSession(
  ops: Map<string, Operation>,
  input: Record<string, unknown>,
  run: Runner,
) {
  const shape = stepShape(input, "action");
  if (typeof shape === "string") return toolError("invalid_arguments", shape, false);
  const operation = ops.get(shape.name);
  if (operation === undefined) return failure(unknownName("session action", shape.name, ops), []);
  const response = await run(operation, shape.params);
  const error = errorOf(response);
  if (error !== undefined) return failure(error, []);
  return jsonResult((response as { result: Record<string, unknown> }).result, {
    structured: false,
  });
}

function stepShape(
  value: unknown,
  key: "op" | "action",
): { name: string; params: unknown } | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return "must be an object";
  }
  const record = value as Record<string, unknown>;
  if (typeof record[key] !== "string") return `'${key}' must be a string`;
  const params = record.params ?? {};
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    return "'params' must be an object";
  }
  return { name: record[key] as string, params };
}

function errorOf(response: ExecuteResponse): ErrorObject | undefined {
  if ("error" in response) return response.error;
  if ("operation_error" in response) {
    const error: ErrorObject = {
      kind: "operation_error",
      dispatched: true,
      message: response.operation_error.message,
    };
    if (response.operation_error.details !== undefined) {
      error.details = response.operation_error.details;
    }
    return error;
  }
  return undefined;
}

function unknownName(
  what: string,
  name: string,
  ops: Map<string, Operation>,
  index?: number,
): ErrorObject {
  const where = index === undefined ? "" : `steps[${index}]: `;
  return {
    kind: "unknown_operation",
    dispatched: false,
    message: `${where}unknown ${what} '${name}'; available: ${
      [...ops.keys()].join(", ") || "none"
    }`,
    details: { available: [...ops.keys()] },
  };
}

function failure(error: ErrorObject, done: Array<{ op: string; result: unknown }>) {
  const body: Record<string, unknown> = { error };
  if (done.length > 0) body.completed = done;
  return jsonResult(body, { isError: true, structured: false });
}

function queryTool(names: string[]): McpTool {
  return {
    name: "query",
    title: "Query (read pipeline)",
    description:
      "Read-only pipeline. steps:[{op, params}]; a string param `$prev.results[0].hash` takes that field of the previous step's result. One step returns its bare result. Use op `describe` with {target} for any op's parameters.",
    inputSchema: {
      type: "object",
      properties: {
        steps: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            properties: { op: { type: "string", enum: names }, params: { type: "object" } },
            required: ["op"],
          },
        },
      },
      required: ["steps"],
    },
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  };
}

function executeTool(names: string[]): McpTool {
  return {
    name: "execute",
    title: "Execute (write batch)",
    description:
      "Write operations run in order; stops at the first error unless continueOnError. Returns {results, totalOps, succeeded, failed}.",
    inputSchema: {
      type: "object",
      properties: {
        operations: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            properties: { op: { type: "string", enum: names }, params: { type: "object" } },
            required: ["op", "params"],
          },
        },
        continueOnError: { type: "boolean", default: false },
      },
      required: ["operations"],
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  };
}

function sessionTool(names: string[]): McpTool {
  return {
    name: "session",
    title: "Session lifecycle",
    description: "Start, stop, pin, unpin or watch within a work session: {action, params}.",
    inputSchema: {
      type: "object",
      properties: { action: { type: "string", enum: names }, params: { type: "object" } },
      required: ["action"],
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
  };
}

const ECHO_TOOL: McpTool = {
  name: "mcp.echo",
  title: "Echo",
  description: "Echoes {message} back, for protocol testing.",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
};
