/**
 * The one error vocabulary shared by every surface. Each kind maps to the
 * Tama.Dex error object `{kind, dispatched, message, details?}`, to an HTTP
 * status and to a CLI exit code, so a failure reads the same wherever it
 * surfaces.
 *
 * @module
 */

/** The kinds of failure the catalog's executor and its surfaces report. */
export type ErrorKind =
  | "invalid_arguments"
  | "unknown_operation"
  | "forbidden"
  | "timeout"
  | "result_too_large"
  | "invalid_result"
  | "operation_error"
  | "not_found"
  | "conflict"
  | "unavailable"
  | "internal_error";

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

/** The process exit code the CLI uses for each kind. */
export function exitCodeFor(kind: ErrorKind): number {
  switch (kind) {
    case "invalid_arguments":
    case "unknown_operation":
      return 2;
    case "forbidden":
      return 3;
    case "not_found":
      return 4;
    case "unavailable":
      return 5;
    default:
      return 1;
  }
}

/** The HTTP status each kind maps to. */
export function httpStatusFor(kind: ErrorKind): number {
  switch (kind) {
    case "invalid_arguments":
      return 400;
    case "forbidden":
      return 403;
    case "unknown_operation":
    case "not_found":
      return 404;
    case "conflict":
      return 409;
    case "result_too_large":
      return 413;
    case "operation_error":
      return 422;
    case "unavailable":
      return 503;
    case "timeout":
      return 504;
    default:
      return 500;
  }
}
