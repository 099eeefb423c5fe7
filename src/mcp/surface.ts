/**
 * What an MCP surface is: a list of tools for one caller and a way to call
 * them. The three surfaces (`dex`, `composite`, `full`) are views over the
 * one catalog; none holds logic of its own.
 *
 * @module
 */
import { type ErrorKind, VantageError } from "../core/errors.ts";
import { type ExecuteResponse, failureOf } from "../ops/executor.ts";
import type { PipelineResponse } from "../ops/pipeline.ts";
import type { JsonSchema } from "../ops/json_schema.ts";
import type { OperationAnnotations } from "../ops/operation.ts";

/** The names of the MCP surfaces. */
export type SurfaceName = "dex" | "composite" | "full";

/** Every surface name, for validation and help text. */
export const SURFACE_NAMES: readonly SurfaceName[] = ["dex", "composite", "full"];

/** Checks a surface name given on the command line or in config. */
export function parseSurfaceName(text: string): SurfaceName {
  if ((SURFACE_NAMES as readonly string[]).includes(text)) return text as SurfaceName;
  throw new VantageError(
    "invalid_arguments",
    `unknown surface '${text}'; choose one of: ${SURFACE_NAMES.join(", ")}`,
  );
}

/** An MCP tool as `tools/list` shows it. */
export interface McpTool {
  /** The tool's name. */
  name: string;
  /** Human title. */
  title?: string;
  /** What it does. */
  description: string;
  /** JSON Schema of the arguments (type object). */
  inputSchema: JsonSchema;
  /** JSON Schema of `structuredContent`, when the tool declares one. */
  outputSchema?: JsonSchema;
  /** MCP tool hints. */
  annotations?: OperationAnnotations & { title?: string };
}

/** An MCP `tools/call` result. */
export interface McpToolResult {
  /**
   * The result as text, for clients that read no structured content: compact
   * JSON, or a shorter rendering of the same facts; never longer than the
   * structured payload beside it.
   */
  content: Array<{ type: "text"; text: string }>;
  /** The result as JSON, matching the tool's output schema when it declares one. */
  structuredContent?: Record<string, unknown>;
  /** Set when the call failed. */
  isError?: boolean;
  /** Index signature required by the SDK's result type. */
  [key: string]: unknown;
}

/** One surface bound to a caller. */
export interface McpSurface {
  /** Which surface this is. */
  readonly name: SurfaceName;
  /** The tools this caller may see. */
  tools(): McpTool[];
  /** Calls one tool; never throws for a bad call, answers with `isError`. */
  call(name: string, args: Record<string, unknown> | undefined): Promise<McpToolResult>;
}

/**
 * Wraps a JSON object as a tool result. The text block is the object as
 * compact JSON, or `options.text` (a readable rendering of the same facts)
 * when that is no longer: clients forward one of the two to the model
 * (Claude Code, Codex and Copilot CLI the structured one when present, others
 * the text), and neither should cost more than the other.
 */
export function jsonResult(
  value: Record<string, unknown>,
  options: { isError?: boolean; structured?: boolean; text?: string } = {},
): McpToolResult {
  const json = JSON.stringify(value);
  const text = options.text !== undefined && options.text.length <= json.length
    ? options.text
    : json;
  const result: McpToolResult = { content: [{ type: "text", text }] };
  if (options.structured ?? true) result.structuredContent = value;
  if (options.isError === true) result.isError = true;
  return result;
}

/**
 * MCP's signal for a failure of each kind: every kind is `isError: true`,
 * with the kind itself in the body. Keyed by every kind, like the HTTP
 * status and exit code tables, so a new kind is decided here too.
 */
const IS_ERROR: Readonly<Record<ErrorKind, true>> = {
  invalid_arguments: true,
  unknown_operation: true,
  forbidden: true,
  timeout: true,
  result_too_large: true,
  invalid_result: true,
  operation_error: true,
  not_found: true,
  conflict: true,
  unavailable: true,
  internal_error: true,
};

/** Whether a tool result for a failure of `kind` is flagged `isError` (always). */
export function isErrorFor(kind: ErrorKind): boolean {
  return IS_ERROR[kind] ?? true;
}

/**
 * An executor response (one operation, or a dex pipeline) as a tool result:
 * the response itself as JSON, flagged `isError` when it carries a failure
 * — the executor's error, an operation's own, or a pipeline's failed step.
 */
export function executeResult(
  response: ExecuteResponse | PipelineResponse,
  options: { structured?: boolean } = {},
): McpToolResult {
  const failure = "steps" in response ? response.error : failureOf(response);
  return jsonResult(response as unknown as Record<string, unknown>, {
    isError: failure !== undefined && isErrorFor(failure.kind),
    structured: options.structured,
  });
}

/** A tool result for a call the surface could not route. */
export function toolError(kind: string, message: string, structured = true): McpToolResult {
  return jsonResult({ error: { kind, dispatched: false, message } }, { isError: true, structured });
}
