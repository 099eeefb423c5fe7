/**
 * What an operation is: the one unit every surface (MCP, HTTP, CLI,
 * library) exposes. Operations are grouped into cassettes, and a caller is
 * whatever presents a scope list.
 *
 * @module
 */
import type { OperationNames } from "./naming.ts";
import type { Services } from "./services.ts";

/** One validation problem: where, and what was wrong. */
export interface SchemaIssue {
  /** Path to the offending value. */
  readonly path: PropertyKey[];
  /** What was wrong. */
  readonly message: string;
}

/**
 * A schema as the catalog uses it: a zod 4 schema, described structurally
 * so hosts can bring their own copy of zod.
 */
export interface Schema<Out = unknown, In = unknown> {
  /** The parsed type (type-level only). */
  readonly _output: Out;
  /** The accepted type (type-level only). */
  readonly _input: In;
  /** Validates `data`. */
  safeParse(
    data: unknown,
  ): { success: true; data: Out } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/** Tool hints, carried verbatim to every MCP surface; `readOnlyHint` also gates read-only pipelines. */
export interface OperationAnnotations {
  /** The operation changes nothing. */
  readOnlyHint?: boolean;
  /** The operation may destroy or overwrite data. */
  destructiveHint?: boolean;
  /** Running it twice with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The operation reaches beyond the local machine. */
  openWorldHint?: boolean;
}

/** The hints of an operation that only reads local data. */
export const READ_ONLY_ANNOTATIONS: Readonly<OperationAnnotations> = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Who is calling: a verified scope list plus anything the host adds. */
export interface Caller {
  /** Scopes granted to the caller, e.g. `agent:read`; `*` grants everything. */
  scopes: readonly string[];
  /** Any further host-specific fields, passed to operations untouched. */
  [key: string]: unknown;
}

/** What an operation's `run` receives besides its input. */
export interface OperationContext {
  /** The caller, as given to the executor. */
  caller: Caller;
  /** Aborted when the executor's time limit passes. */
  signal: AbortSignal;
  /** The services this process provides (store, paths, clock, …). */
  services: Services;
  /** The catalog the operation was found in, for introspection operations. */
  catalog: CatalogView;
}

/** The read-only view of a catalog that operations may use. */
export interface CatalogView {
  /** Every cassette, in registration order. */
  readonly cassettes: readonly Cassette[];
  /** Every operation, in registration order. */
  operations(): readonly Operation[];
  /** The operation with this id, if any. */
  get(id: string): Operation | undefined;
  /** What the operation `id` is called on the surfaces that rename operations. */
  namesOf(id: string): OperationNames;
}

/**
 * One capability. Input and output are zod schemas: the executor validates
 * both, and every surface derives its JSON Schema from them.
 */
export interface Operation<I extends Schema = Schema, O extends Schema = Schema> {
  /** `<cassette>.<name>`, unique in a catalog. */
  id: string;
  /** Short human title. */
  title: string;
  /** What it does and when to reach for it. */
  description: string;
  /** Schema of the arguments. */
  input: I;
  /** Schema of the result (an object). */
  output: O;
  /** Every scope a caller needs to run it. */
  scopes: readonly string[];
  /** MCP tool hints. */
  annotations: OperationAnnotations;
  /** Per-operation time limit in milliseconds (default: the catalog's). */
  timeoutMs?: number;
  /**
   * Largest arguments it takes, in characters of their JSON form, when that is more than the
   * catalog's limit (a bulk upload); HTTP reads a body that large for it too.
   */
  maxArgumentChars?: number;
  /**
   * Ids the operation had before it was renamed: a call by one of them still
   * runs it, but listings and search show only `id`.
   */
  aliases?: readonly string[];
  /** Does the work. Throw `OperationFailure` for a domain error. */
  run(context: OperationContext, input: I["_output"]): Promise<O["_input"]> | O["_input"];
}

/** A named pack of operations. */
export interface Cassette {
  /** The cassette's name, the prefix of its operation ids. */
  name: string;
  /** Where it came from: `builtin`, a file path or a URL. */
  source: string;
  /** One line saying what the pack is for. */
  description: string;
  /** Its operations. */
  operations: readonly Operation[];
}

/**
 * Declares an operation with its input and output types inferred from the
 * schemas, so `run` is checked against both.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineOperation } from "./operation.ts";
 * const add = defineOperation({
 *   id: "math.add",
 *   title: "Add two numbers",
 *   description: "Returns a + b.",
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   output: z.object({ sum: z.number() }),
 *   scopes: ["math:read"],
 *   annotations: { readOnlyHint: true },
 *   run: (_ctx, { a, b }) => ({ sum: a + b }),
 * });
 * ```
 */
export function defineOperation<I extends Schema, O extends Schema>(
  operation: Operation<I, O>,
): Operation {
  return operation as unknown as Operation;
}

/** Whether `granted` covers `required`: exact, `*`, or a `prefix:*` wildcard. */
export function scopeGranted(granted: readonly string[], required: string): boolean {
  for (const scope of granted) {
    if (scope === "*" || scope === required) return true;
    if (scope.endsWith(":*") && required.startsWith(scope.slice(0, -1))) return true;
  }
  return false;
}

/** The scopes of `operation` that `caller` lacks (empty when it may run). */
export function missingScopes(operation: Operation, caller: Caller): string[] {
  return operation.scopes.filter((scope) => !scopeGranted(caller.scopes, scope));
}
