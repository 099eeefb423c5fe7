/**
 * What the build output parsers produce: the tools, and one reported problem.
 *
 * @module
 */

/** The tools whose output this module understands. */
export type BuildTool =
  | "tsc"
  | "deno_check"
  | "deno_lint"
  | "deno_test"
  | "eslint"
  | "go"
  | "cargo"
  | "gcc"
  | "pytest"
  | "jest"
  | "vitest"
  | "unknown";

/** How bad a reported problem is. */
export type BuildErrorSeverity = "error" | "warning";

/** One problem reported by a build, lint or test tool. */
export interface BuildError {
  /** File the tool points at, as printed (relative or absolute; `file://` URLs are decoded). */
  file?: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
  /** First line of the message. */
  message: string;
  /** `error` or `warning`. */
  severity: BuildErrorSeverity;
  /** Tool that printed it. */
  tool: BuildTool;
  /** Diagnostic code or lint rule (`TS2322`, `E0308`, `no-unused-vars`). */
  code?: string;
  /** Failing test, for test runners (`Math › adds`, `tests/x.py::test_y`, `TestAdd`). */
  test?: string;
}

/** Reads one tool's output, split into lines with colours stripped, into problems. */
export type Parser = (lines: readonly string[], tool: BuildTool) => BuildError[];

/** One tool's entry in the registry: how its output is read and how it is recognised. */
export interface ToolParser {
  /** Reads the tool's output. */
  parse: Parser;
  /**
   * Commands that name the tool on their own: a program (`tsc`, `vue-tsc`), or a launcher and the
   * word that picks the tool (`deno check`, `python -m pytest`).
   */
  programs: readonly string[];
  /** A fingerprint of the tool's output, strict enough not to fire on the other tools' output. */
  signature: RegExp;
}
