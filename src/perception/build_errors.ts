/**
 * Turns the text output of compilers, linters and test runners into structured errors, so the
 * anomaly rules can tell which files a failing build names and the context block can quote the
 * first error instead of a wall of output.
 *
 * Recognised: `tsc` (plain and `--pretty`), `deno check`, `deno lint`, `deno test`, ESLint
 * (stylish and compact), `go build` / `go vet` / `go test`, `cargo` / `rustc` (including
 * `cargo test` panics), gcc / clang (and the linker), pytest, Jest and Vitest. ANSI colours are
 * stripped first. Unknown output falls back to the common `file:line:col: error: message` shape.
 *
 * Each tool's parser is a module in `build_errors/`, listed in the registry
 * `build_errors/tools.ts` (where adding a tool is described); this module is the public face.
 *
 * @module
 */

import { parseGcc } from "./build_errors/gcc.ts";
import { detectTools } from "./build_errors/detect.ts";
import { stripAnsi } from "./build_errors/helpers.ts";
import { TOOL_PARSERS } from "./build_errors/tools.ts";
import type { BuildError, BuildTool } from "./build_errors/types.ts";

export type { BuildError, BuildErrorSeverity, BuildTool } from "./build_errors/types.ts";
export { detectTool, detectTools } from "./build_errors/detect.ts";
export { stripAnsi } from "./build_errors/helpers.ts";
export { type ErrorSummary, formatBuildError, summarizeErrors } from "./build_errors/summary.ts";

/** Options for {@linkcode parseBuildErrors}. */
export interface ParseBuildErrorsOptions {
  /** Parse as this tool's output (skips detection). */
  tool?: BuildTool;
  /** The command that produced the output; helps detection (`npm test` says little, `tsc` a lot). */
  command?: string | readonly string[];
  /** Keep at most this many problems. Default 200. */
  maxErrors?: number;
}

/**
 * Extracts the problems reported in a tool's output. The tool is taken from `options.tool`, or
 * detected from the command and the output (several tools when the output mixes them); output
 * no parser recognises is read as generic `file:line:col: error: message` lines.
 *
 * @example
 * ```ts
 * parseBuildErrors("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.");
 * // [{ file: "src/a.ts", line: 3, column: 7, severity: "error", tool: "tsc", code: "TS2322",
 * //    message: "Type 'string' is not assignable to type 'number'." }]
 * ```
 */
export function parseBuildErrors(
  output: string,
  options: ParseBuildErrorsOptions = {},
): BuildError[] {
  const max = options.maxErrors ?? 200;
  const lines = stripAnsi(output).split("\n");
  const tools = options.tool !== undefined && options.tool !== "unknown"
    ? [options.tool]
    : detectTools(options.command ?? "", output);
  const out: BuildError[] = [];
  const seen = new Set<string>();
  const add = (errors: BuildError[]): void => {
    for (const error of errors) {
      const key = `${error.file}:${error.line}:${error.column}:${error.test}:${error.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(error);
      if (out.length >= max) return;
    }
  };
  for (const tool of tools) {
    if (tool === "unknown") continue;
    add(TOOL_PARSERS[tool].parse(lines, tool));
    if (out.length >= max) return out;
  }
  if (out.length === 0) add(parseGcc(lines, tools[0] ?? "unknown"));
  return out;
}
