/**
 * The `composite` surface, in YAMS's shapes: `query` (a read-only pipeline
 * with `$prev` references and `describe`), `execute` (a write batch that
 * stops at the first error unless `continueOnError`), `session` (lifecycle
 * actions) and `mcp.echo`. Operation names are the bare YAMS names, read
 * from the catalog's naming (`operation_names.ts`). Both pipelines run on the
 * one engine (`src/ops/pipeline.ts`); this file only parses the tools'
 * arguments and shapes their answers.
 *
 * @module
 */
import type { ErrorObject } from "../core/errors.ts";
import type { Catalog } from "../ops/catalog.ts";
import { executeOperation, type ExecuteOptions, failureOf } from "../ops/executor.ts";
import type { Caller, Operation } from "../ops/operation.ts";
import { runPipeline, type StepOutcome, type StepResolver } from "../ops/pipeline.ts";
import type { CompositeName } from "./operation_names.ts";
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
      const place = catalog.namesOf(operation.id).composite;
      if (place?.tool === tool) map.set(place.name, operation);
    }
    return map;
  };
  const executeOps = named("execute");
  const sessionOps = named("session");
  // The query tool offers only read-only operations; one placed there that may write is
  // still named, so that the read-only pipeline refuses it for what it is.
  const queryOps = new Map<string, Operation>();
  const queryWrites = new Map<string, Operation>();
  for (const [opName, op] of named("query")) {
    (op.annotations.readOnlyHint === true ? queryOps : queryWrites).set(opName, op);
  }

  const surface = { catalog, caller, options };
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
          return await callQuery(surface, queryOps, [queryWrites, executeOps, sessionOps], input);
        case "execute":
          return await callExecute(surface, executeOps, input);
        case "session":
          return await callSession(surface, sessionOps, input);
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

/** What every composite tool runs against. */
interface SurfaceContext {
  catalog: Catalog;
  caller: Caller;
  options: ExecuteOptions;
}

/**
 * A step resolver over the composite's `{op, params}` entries: the entry's
 * shape is checked, then its name looked up in `ops`, then in `elsewhere`
 * (so a read pipeline names a write it was given, and the engine refuses
 * it for what it is, instead of calling it unknown).
 */
function compositeResolver(
  what: string,
  list: "steps" | "operations",
  ops: Map<string, Operation>,
  elsewhere: ReadonlyArray<Map<string, Operation>> = [],
): StepResolver<unknown> {
  return (entry, index) => {
    const shape = stepShape(entry, "op");
    if (typeof shape === "string") {
      return { error: invalidArguments(`${list}[${index}]: ${shape}`) };
    }
    const operation = ops.get(shape.name) ??
      elsewhere.map((other) => other.get(shape.name)).find((op) => op !== undefined);
    if (operation === undefined) {
      return { error: unknownName(what, shape.name, ops, `${list}[${index}]: `) };
    }
    return { operationId: operation.id, params: shape.params };
  };
}

async function callQuery(
  surface: SurfaceContext,
  ops: Map<string, Operation>,
  writes: ReadonlyArray<Map<string, Operation>>,
  input: Record<string, unknown>,
) {
  const steps = input.steps;
  if (!Array.isArray(steps) || steps.length === 0) {
    return toolError(
      "invalid_arguments",
      "'steps' must be a non-empty array of {op, params}",
      false,
    );
  }
  const resolve = compositeResolver("query op", "steps", ops, writes);
  const run = await runPipeline(surface.catalog, steps, surface.caller, resolve, {
    ...surface.options,
    readOnly: true,
  });
  if (run.refused !== undefined) return failure(run.refused, []);
  const done = run.outcomes.filter((outcome) => failureOf(outcome.response) === undefined)
    .map((outcome) => ({ op: nameOf(outcome.step), result: resultOf(outcome) }));
  const failed = run.outcomes.find((outcome) => failureOf(outcome.response) !== undefined);
  if (failed !== undefined) {
    const error = failureOf(failed.response)!;
    // The resolver's own refusals already say which step; the rest are prefixed with it here.
    const message = failed.operationId === undefined
      ? error.message
      : `steps[${failed.index}] (${nameOf(failed.step)}): ${error.message}`;
    return failure({ ...error, message }, done);
  }
  // YAMS's single-step shortcut: one step answers with its bare result.
  if (done.length === 1) {
    return jsonResult(done[0].result as Record<string, unknown>, { structured: false });
  }
  return jsonResult({ steps: done }, { structured: false });
}

async function callExecute(
  surface: SurfaceContext,
  ops: Map<string, Operation>,
  input: Record<string, unknown>,
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
  const resolve = compositeResolver("execute op", "operations", ops);
  const run = await runPipeline(surface.catalog, operations, surface.caller, resolve, {
    ...surface.options,
    continueOnError: input.continueOnError === true,
  });
  if (run.refused !== undefined) return failure(run.refused, []);
  const results = run.outcomes.map((outcome): Record<string, unknown> => {
    const op = nameOf(outcome.step);
    const error = failureOf(outcome.response);
    if (error !== undefined) return { op, success: false, error };
    const result = resultOf(outcome);
    const fields = result !== null && typeof result === "object" && !Array.isArray(result)
      ? result as Record<string, unknown>
      : { result };
    return { op, success: true, ...fields };
  });
  const body = {
    results,
    totalOps: operations.length,
    succeeded: run.succeeded,
    failed: run.failed,
  };
  return jsonResult(body, { isError: run.failed > 0, structured: false });
}

async function callSession(
  surface: SurfaceContext,
  ops: Map<string, Operation>,
  input: Record<string, unknown>,
) {
  const shape = stepShape(input, "action");
  if (typeof shape === "string") return toolError("invalid_arguments", shape, false);
  const operation = ops.get(shape.name);
  if (operation === undefined) return failure(unknownName("session action", shape.name, ops), []);
  const response = await executeOperation(
    surface.catalog,
    operation.id,
    shape.params,
    surface.caller,
    surface.options,
  );
  const error = failureOf(response);
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

/** The name a step gave, or "" when it gave none. */
function nameOf(step: unknown): string {
  const op = (step as { op?: unknown } | null)?.op;
  return typeof op === "string" ? op : "";
}

function resultOf(outcome: StepOutcome<unknown>): unknown {
  return (outcome.response as { result: unknown }).result;
}

function invalidArguments(message: string): ErrorObject {
  return { kind: "invalid_arguments", dispatched: false, message };
}

function unknownName(
  what: string,
  name: string,
  ops: Map<string, Operation>,
  where = "",
): ErrorObject {
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
    description: "Start, stop, pin, unpin or watch within a document session: {action, params}.",
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
