/**
 * Runs operations for every surface, enforcing everything once: argument
 * validation, lookup, scopes, time limit, output validation and result size.
 * Responses are the JSON-safe Tama.Dex shapes, so MCP, HTTP, the CLI and a
 * host program all see the same thing.
 *
 * @module
 */
import {
  type ErrorKind,
  type ErrorObject,
  OperationFailure,
  toErrorObject,
  VantageError,
} from "../core/errors.ts";
import type { Catalog } from "./catalog.ts";
import { toJsonSchema } from "./json_schema.ts";
import { type Caller, missingScopes, type Operation, type SchemaIssue } from "./operation.ts";
import { type ServiceKey, serviceKey, Services } from "./services.ts";

/** A successful run. */
export interface ExecuteSuccess {
  /** The cassette holding the operation. */
  cassette: string;
  /** The operation that ran. */
  operation_id: string;
  /** The cassette's source. */
  source: string;
  /** The operation's validated result. */
  result: unknown;
}

/**
 * An operation's own error. `kind` is the kind it raised (a `VantageError`'s:
 * `not_found`, `forbidden`, `conflict`, …) or `operation_error` for a plain
 * domain failure. A raised kind is also kept as `details.kind`, where it
 * travelled before `kind` existed, so older readers still find it.
 */
export interface OperationErrorObject {
  /** The kind the operation raised; `operation_error` for an `OperationFailure`. */
  kind: ErrorKind;
  /** One human sentence naming what was wrong. */
  message: string;
  /** Machine-readable specifics. */
  details?: Record<string, unknown>;
}

/** The operation ran and reported its own domain error. */
export interface ExecuteOperationError {
  /** The cassette holding the operation. */
  cassette: string;
  /** The operation that ran. */
  operation_id: string;
  /** The cassette's source. */
  source: string;
  /** The operation's error. */
  operation_error: OperationErrorObject;
  /** Always true: the operation ran and may have taken effect. */
  dispatched: true;
}

/** The executor could not run the operation, or its result was unusable. */
export interface ExecuteFailure {
  /** What went wrong. */
  error: ErrorObject;
}

/** Any response of {@linkcode executeOperation}. */
export type ExecuteResponse = ExecuteSuccess | ExecuteOperationError | ExecuteFailure;

/** What the executor needs besides the catalog and the caller. */
export interface ExecuteOptions {
  /** Services for the operations (default: none). */
  services?: Services;
  /** Cancels the run from outside. */
  signal?: AbortSignal;
}

/**
 * A service the executor tells about every error an operation throws (its
 * own domain failures and time limits aside), so a host can notice what it
 * cares about — Vantage records damaged-store errors as the store's health —
 * without every operation doing so. What the observer throws is ignored.
 */
export const FAILURE_OBSERVER: ServiceKey<(operationId: string, error: unknown) => void> =
  serviceKey<(operationId: string, error: unknown) => void>("operation failure observer");

function observeFailure(services: Services | undefined, operationId: string, error: unknown) {
  if (services === undefined || !services.has(FAILURE_OBSERVER)) return;
  try {
    services.get(FAILURE_OBSERVER)(operationId, error);
  } catch {
    // Observing must never change what the caller is told.
  }
}

/**
 * The error a response carries, as one error object: the executor's own, or
 * the operation's (its raised kind, `dispatched: true`); undefined for a
 * result. Every surface reads a failure's kind here, then maps it to its own
 * signal (HTTP status, exit code, MCP `isError`).
 *
 * @example
 * ```ts ignore
 * const failure = failureOf(await executeOperation(catalog, "docs.get", { name: "x" }, caller));
 * if (failure !== undefined) console.log(failure.kind); // e.g. "not_found"
 * ```
 */
export function failureOf(response: ExecuteResponse): ErrorObject | undefined {
  if ("error" in response) return response.error;
  if ("operation_error" in response) {
    const own = response.operation_error;
    const error: ErrorObject = { kind: own.kind, dispatched: true, message: own.message };
    if (own.details !== undefined) error.details = own.details;
    return error;
  }
  return undefined;
}

/**
 * Runs one operation by id for `caller`.
 *
 * @example
 * ```ts ignore
 * const response = await executeOperation(catalog, "dex.describe", {}, { scopes: ["dex:read"] });
 * if ("result" in response) console.log(response.result);
 * ```
 */
export async function executeOperation(
  catalog: Catalog,
  operationId: string,
  args: unknown,
  caller: Caller,
  options: ExecuteOptions = {},
): Promise<ExecuteResponse> {
  const operation = catalog.get(operationId);
  const preflight = checkArgumentSize(catalog, args, operation?.maxArgumentChars);
  if (preflight !== undefined) return { error: preflight };
  if (operation === undefined) {
    return { error: unknownOperation(catalog, operationId, caller) };
  }
  const missing = missingScopes(operation, caller);
  if (missing.length > 0) {
    return {
      error: {
        kind: "forbidden",
        dispatched: false,
        message: `operation '${operationId}' needs scope${missing.length > 1 ? "s" : ""} ${
          missing.join(", ")
        }, which the caller lacks`,
        details: { missing_scopes: missing, required_scopes: [...operation.scopes] },
      },
    };
  }
  const unknownKeys = unknownArgumentKeys(operation, args);
  if (unknownKeys !== undefined) {
    return {
      error: {
        kind: "invalid_arguments",
        dispatched: false,
        message: `invalid arguments for '${operationId}': unknown argument${
          unknownKeys.unknown.length > 1 ? "s" : ""
        } ${unknownKeys.unknown.map((k) => `'${k}'`).join(", ")}; allowed: ${
          unknownKeys.allowed.join(", ") || "none"
        }`,
        details: { unknown: unknownKeys.unknown, allowed: unknownKeys.allowed },
      },
    };
  }
  const parsed = operation.input.safeParse(args ?? {});
  if (!parsed.success) {
    return {
      error: {
        kind: "invalid_arguments",
        dispatched: false,
        message: `invalid arguments for '${operationId}': ${describeIssues(parsed.error)}`,
        details: { issues: issueList(parsed.error) },
      },
    };
  }
  return await runValidated(catalog, operation, parsed.data, caller, options);
}

async function runValidated(
  catalog: Catalog,
  operation: Operation,
  input: unknown,
  caller: Caller,
  options: ExecuteOptions,
): Promise<ExecuteResponse> {
  const cassette = catalog.cassetteOf(operation.id)!;
  const envelope = { cassette: cassette.name, operation_id: operation.id, source: cassette.source };
  const timeoutMs = operation.timeoutMs ?? catalog.limits.timeoutMs;
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new VantageError(
        "timeout",
        `operation '${operation.id}' did not finish within ${timeoutMs} ms`,
        { dispatched: true, details: { timeout_ms: timeoutMs } },
      );
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  let raw: unknown;
  try {
    raw = await Promise.race([
      Promise.resolve().then(() =>
        operation.run({
          caller,
          signal: controller.signal,
          services: options.services ?? new Services(),
          catalog,
        }, input)
      ),
      timedOut,
    ]);
  } catch (error) {
    if (error instanceof OperationFailure) {
      const operationError: OperationErrorObject = {
        kind: "operation_error",
        message: error.message,
      };
      if (error.details !== undefined) operationError.details = error.details;
      return { ...envelope, operation_error: operationError, dispatched: true };
    }
    if (error instanceof VantageError) {
      // A kind the operation raised itself (not_found, conflict, …) is still its own domain answer.
      if (error.kind === "timeout") return { error: error.toObject() };
      observeFailure(options.services, operation.id, error);
      const operationError: OperationErrorObject = {
        kind: error.kind,
        message: error.message,
        // Kept beside `kind` for readers from before it was a field of its own.
        details: { kind: error.kind, ...error.details },
      };
      return { ...envelope, operation_error: operationError, dispatched: true };
    }
    observeFailure(options.services, operation.id, error);
    return { error: toErrorObject(error, true) };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onOuterAbort);
  }
  const checked = operation.output.safeParse(raw);
  if (!checked.success) {
    return {
      error: {
        kind: "invalid_result",
        dispatched: true,
        message:
          `operation '${operation.id}' returned a result that does not match its output schema: ${
            describeIssues(checked.error)
          }`,
      },
    };
  }
  const size = jsonLength(checked.data);
  if (size > catalog.limits.maxResultChars) {
    return {
      error: {
        kind: "result_too_large",
        dispatched: true,
        message:
          `operation '${operation.id}' produced ${size} characters of JSON; the limit is ${catalog.limits.maxResultChars} — ask for less (a smaller limit, fewer fields)`,
        details: { size, limit: catalog.limits.maxResultChars },
      },
    };
  }
  return { ...envelope, result: checked.data };
}

function checkArgumentSize(
  catalog: Catalog,
  args: unknown,
  ownLimit?: number,
): ErrorObject | undefined {
  const limit = Math.max(catalog.limits.maxArgumentChars, ownLimit ?? 0);
  let size: number;
  try {
    size = jsonLength(args ?? {});
  } catch (error) {
    return {
      kind: "invalid_arguments",
      dispatched: false,
      message: `arguments are not JSON-serialisable: ${
        error instanceof Error ? error.message : error
      }`,
    };
  }
  if (size > limit) {
    return {
      kind: "invalid_arguments",
      dispatched: false,
      message: `arguments are ${size} characters of JSON; the limit is ${limit}`,
      details: { size, limit },
    };
  }
  return undefined;
}

function unknownOperation(catalog: Catalog, operationId: string, caller: Caller): ErrorObject {
  const suggestions = catalog.search(operationId, caller, { limit: 3 }).results.map((r) =>
    r.operation_id
  );
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(", ")}?` : "";
  return {
    kind: "unknown_operation",
    dispatched: false,
    message: `no operation '${operationId}' in the catalog${hint}`,
    details: { operation_id: operationId, suggestions },
  };
}

/**
 * Names an argument the schema does not declare: zod would drop it silently,
 * and a misspelt `limt` quietly ignored is worse than a clear refusal.
 */
function unknownArgumentKeys(
  operation: Operation,
  args: unknown,
): { unknown: string[]; allowed: string[] } | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  const schema = toJsonSchema(operation.input, "input");
  const properties = schema.properties;
  if (schema.type !== "object" || properties === null || typeof properties !== "object") {
    return undefined;
  }
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    return undefined;
  }
  const allowed = Object.keys(properties);
  const unknown = Object.keys(args).filter((key) => !allowed.includes(key));
  return unknown.length === 0 ? undefined : { unknown, allowed };
}

function jsonLength(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/** Validation issues as `path: message` items. */
export function issueList(
  error: { issues: readonly SchemaIssue[] },
): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? "(root)" : issue.path.map(String).join("."),
    message: issue.message,
  }));
}

/** Validation issues as one readable line. */
export function describeIssues(error: { issues: readonly SchemaIssue[] }): string {
  return issueList(error).map((issue) => `${issue.path}: ${issue.message}`).join("; ");
}
