/**
 * Helpers the build output parsers share: colour stripping, numbers, file URLs, severities and
 * the one constructor of a {@linkcode BuildError}.
 *
 * @module
 */
import type { BuildError, BuildErrorSeverity, BuildTool } from "./types.ts";

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/**
 * Removes ANSI escape sequences and resolves carriage-return overwrites (progress bars) the way
 * a terminal would show them; CRLF line ends become LF.
 *
 * @example
 * ```ts
 * stripAnsi("\x1b[31merror\x1b[0m: x"); // "error: x"
 * stripAnsi("10%\r50%\r100%\n");        // "100%\n"
 * ```
 */
export function stripAnsi(text: string): string {
  const plain = text.replace(ANSI, "").replace(/\r\n/g, "\n");
  if (!plain.includes("\r")) return plain;
  return plain
    .split("\n")
    .map((line) => {
      const parts = line.split("\r").filter((part) => part !== "");
      return parts.length === 0 ? "" : parts[parts.length - 1];
    })
    .join("\n");
}

/** A decimal number, or `undefined` when there is none. */
export function int(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** `file:///a/b%20c.ts` → `/a/b c.ts`; `file:///C:/x.ts` → `C:/x.ts`; other text unchanged. */
export function fromFileUrl(path: string): string {
  if (!path.startsWith("file://")) return path;
  let rest = path.slice("file://".length);
  if (/^\/[A-Za-z]:\//.test(rest)) rest = rest.slice(1);
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

/** `warning` for a word starting with "warn" (any case), `error` for anything else. */
export function severityOf(word: string): BuildErrorSeverity {
  return /^warn/i.test(word) ? "warning" : "error";
}

/**
 * A problem with a trimmed message and only the fields that are set; `./` is dropped from the
 * front of a file name.
 */
export function make(
  tool: BuildTool,
  message: string,
  fields: Partial<Omit<BuildError, "tool" | "message">> = {},
): BuildError {
  const error: BuildError = { message: message.trim(), severity: fields.severity ?? "error", tool };
  // `./main.go` and `main.go` are the same file; the short form matches other reports.
  if (fields.file !== undefined && fields.file !== "") {
    error.file = fields.file.replace(/^\.\//, "");
  }
  if (fields.line !== undefined) error.line = fields.line;
  if (fields.column !== undefined) error.column = fields.column;
  if (fields.code !== undefined) error.code = fields.code;
  if (fields.test !== undefined && fields.test !== "") error.test = fields.test;
  return error;
}

/** The problems, each without a message given "test failed" (test runners name only the test). */
export function withTestFailedMessage(errors: BuildError[]): BuildError[] {
  return errors.map((e) => (e.message === "" ? { ...e, message: "test failed" } : e));
}

/**
 * Sets where a test failed from a stack frame matched as (file, line, column): the first frame
 * only, and never one inside node_modules (the assertion library's own code).
 */
export function locateFailure(failure: BuildError, frame: RegExpExecArray | null): void {
  if (frame && failure.line === undefined && !frame[1].includes("node_modules")) {
    failure.file = frame[1];
    failure.line = int(frame[2]);
    failure.column = int(frame[3]);
  }
}
