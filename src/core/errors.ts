/**
 * The one error vocabulary shared by every surface. Each kind maps to the
 * Tama.Dex error object `{kind, dispatched, message, details?}`, to an HTTP
 * status and to a CLI exit code, so a failure reads the same wherever it
 * surfaces.
 *
 * @module
 */

/**
 * Every kind of failure the catalog's executor and its surfaces report: the
 * one list. Each surface maps a kind to its own signal through one table
 * keyed by it ({@linkcode httpStatusFor}, {@linkcode exitCodeFor}, MCP's
 * `isError`), so a kind added here must be mapped there before the code
 * type-checks.
 */
export const ERROR_KINDS = [
  "invalid_arguments",
  "unknown_operation",
  "forbidden",
  "timeout",
  "result_too_large",
  "invalid_result",
  "operation_error",
  "not_found",
  "conflict",
  "unavailable",
  "internal_error",
] as const;

/** One of {@linkcode ERROR_KINDS}. */
export type ErrorKind = typeof ERROR_KINDS[number];

/**
 * Whether `value` names a kind of {@linkcode ERROR_KINDS}.
 *
 * @example
 * ```ts
 * import { isErrorKind } from "./errors.ts";
 * isErrorKind("forbidden"); // true
 * isErrorKind("teapot"); // false
 * ```
 */
export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === "string" && (ERROR_KINDS as readonly string[]).includes(value);
}

/** The JSON-safe error object every surface returns. */
export interface ErrorObject {
  /** What went wrong, as one of {@linkcode ErrorKind}. */
  kind: ErrorKind;
  /** True when the operation may have taken effect: reconcile rather than retry. */
  dispatched: boolean;
  /** One human sentence naming what was wrong with which input. */
  message: string;
  /** Machine-readable specifics, e.g. the missing scopes or the failing path. */
  details?: Record<string, unknown>;
}

/**
 * An error that knows its kind. Library code throws it; surfaces turn it into
 * their own shape with {@linkcode VantageError.toObject}.
 *
 * @example
 * ```ts
 * import { VantageError } from "./errors.ts";
 * const e = new VantageError("not_found", "no session 'abc'", { details: { session_id: "abc" } });
 * e.toObject().kind; // "not_found"
 * ```
 */
export class VantageError extends Error {
  /** The error's kind. */
  readonly kind: ErrorKind;
  /** Whether the operation may have taken effect. */
  readonly dispatched: boolean;
  /** Machine-readable specifics. */
  readonly details?: Record<string, unknown>;

  /** Creates an error of `kind` with a message that says what was wrong. */
  constructor(
    kind: ErrorKind,
    message: string,
    options: { details?: Record<string, unknown>; dispatched?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "VantageError";
    this.kind = kind;
    this.dispatched = options.dispatched ?? false;
    if (options.details !== undefined) this.details = options.details;
  }

  /** The JSON-safe error object. */
  toObject(): ErrorObject {
    const object: ErrorObject = {
      kind: this.kind,
      dispatched: this.dispatched,
      message: this.message,
    };
    if (this.details !== undefined) object.details = this.details;
    return object;
  }
}

/**
 * A domain failure raised by an operation's own `run`: the executor reports it
 * as `operation_error` with `dispatched: true`.
 *
 * @example
 * ```ts
 * import { OperationFailure } from "./errors.ts";
 * throw new OperationFailure("session 'abc' has no transcript", { session_id: "abc" });
 * ```
 */
export class OperationFailure extends Error {
  /** Machine-readable specifics. */
  readonly details?: Record<string, unknown>;

  /** Creates a domain failure with a message and optional details. */
  constructor(message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "OperationFailure";
    if (details !== undefined) this.details = details;
  }
}

/** Turns anything thrown into an {@linkcode ErrorObject}. */
export function toErrorObject(error: unknown, dispatched = false): ErrorObject {
  if (error instanceof VantageError) return error.toObject();
  if (error instanceof OperationFailure) {
    const object: ErrorObject = {
      kind: "operation_error",
      dispatched: true,
      message: error.message,
    };
    if (error.details !== undefined) object.details = error.details;
    return object;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "internal_error", dispatched, message };
}

// Keyed by every kind, so a kind added to ERROR_KINDS without a code here does not type-check.
const EXIT_CODES: Readonly<Record<ErrorKind, number>> = {
  invalid_arguments: 2,
  unknown_operation: 2,
  forbidden: 3,
  not_found: 4,
  unavailable: 5,
  timeout: 1,
  result_too_large: 1,
  invalid_result: 1,
  operation_error: 1,
  conflict: 1,
  internal_error: 1,
};

const HTTP_STATUSES: Readonly<Record<ErrorKind, number>> = {
  invalid_arguments: 400,
  forbidden: 403,
  unknown_operation: 404,
  not_found: 404,
  conflict: 409,
  result_too_large: 413,
  operation_error: 422,
  unavailable: 503,
  timeout: 504,
  invalid_result: 500,
  internal_error: 500,
};

/**
 * The process exit code the CLI uses for each kind.
 *
 * @example
 * ```ts
 * import { exitCodeFor } from "./errors.ts";
 * exitCodeFor("forbidden"); // 3
 * ```
 */
export function exitCodeFor(kind: ErrorKind): number {
  return EXIT_CODES[kind] ?? 1;
}

/**
 * The HTTP status each kind maps to.
 *
 * @example
 * ```ts
 * import { httpStatusFor } from "./errors.ts";
 * httpStatusFor("forbidden"); // 403
 * ```
 */
export function httpStatusFor(kind: ErrorKind): number {
  return HTTP_STATUSES[kind] ?? 500;
}
