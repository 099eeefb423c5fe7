/**
 * Problems as text: one line per problem, and a count with the first problem for a context
 * block or a log.
 *
 * @module
 */
import type { BuildError, BuildTool } from "./types.ts";

/**
 * One line for a problem: `file:line:col: [code] message (test)`.
 *
 * @example
 * ```ts
 * formatBuildError({ file: "a.ts", line: 1, column: 2, message: "bad", severity: "error", tool: "tsc" });
 * // "a.ts:1:2: bad"
 * ```
 */
export function formatBuildError(error: BuildError): string {
  let where = "";
  if (error.file !== undefined) {
    where = error.file;
    if (error.line !== undefined) where += `:${error.line}`;
    if (error.line !== undefined && error.column !== undefined) where += `:${error.column}`;
    where += ": ";
  }
  const code = error.code !== undefined ? `${error.code} ` : "";
  const test = error.test !== undefined && !error.message.includes(error.test)
    ? ` (${error.test})`
    : "";
  return `${where}${code}${error.message}${test}`;
}

/** What {@linkcode summarizeErrors} reports. */
export interface ErrorSummary {
  /** Problems of severity `error`. */
  errors: number;
  /** Problems of severity `warning`. */
  warnings: number;
  /** Distinct files named, in order of first appearance. */
  files: string[];
  /** Distinct failing tests, in order of first appearance. */
  tests: string[];
  /** Tools that reported something. */
  tools: BuildTool[];
  /** The first error (or warning when there is no error), formatted. */
  first?: string;
  /** One line: `2 errors, 1 warning in 2 files — a.ts:1:2: bad`, at most `maxChars` long. */
  text: string;
}

/**
 * Counts and condenses a list of problems into one line for a context block or a log.
 *
 * @example
 * ```ts
 * summarizeErrors([]).text; // "no errors"
 * ```
 */
export function summarizeErrors(
  errors: readonly BuildError[],
  options: { maxChars?: number } = {},
): ErrorSummary {
  const maxChars = options.maxChars ?? 200;
  const files: string[] = [];
  const tests: string[] = [];
  const tools: BuildTool[] = [];
  let errorCount = 0;
  let warningCount = 0;
  for (const error of errors) {
    if (error.severity === "error") errorCount++;
    else warningCount++;
    if (error.file !== undefined && !files.includes(error.file)) files.push(error.file);
    if (error.test !== undefined && !tests.includes(error.test)) tests.push(error.test);
    if (!tools.includes(error.tool)) tools.push(error.tool);
  }
  const firstError = errors.find((e) => e.severity === "error") ?? errors[0];
  const first = firstError === undefined ? undefined : formatBuildError(firstError);
  const parts: string[] = [];
  if (errorCount > 0) parts.push(`${errorCount} error${errorCount === 1 ? "" : "s"}`);
  if (warningCount > 0) parts.push(`${warningCount} warning${warningCount === 1 ? "" : "s"}`);
  let text = parts.length === 0 ? "no errors" : parts.join(", ");
  if (files.length > 0) text += ` in ${files.length} file${files.length === 1 ? "" : "s"}`;
  if (first !== undefined) text += ` — ${first}`;
  if (text.length > maxChars) text = `${text.slice(0, Math.max(0, maxChars - 1))}…`;
  const summary: ErrorSummary = {
    errors: errorCount,
    warnings: warningCount,
    files,
    tests,
    tools,
    text,
  };
  if (first !== undefined) summary.first = first;
  return summary;
}
