/**
 * Offsets in a config file turned into the line and column a person looks
 * for, and the one message shape Vantage uses when it refuses to touch a file
 * it cannot parse.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";

/** A 1-based line and column. */
export interface TextPosition {
  /** 1-based line number. */
  line: number;
  /** 1-based column, in UTF-16 code units like an editor's status bar. */
  column: number;
}

/**
 * The line and column of `offset` in `text` (both 1-based).
 *
 * @example
 * ```ts
 * import { positionAt } from "./text_position.ts";
 * positionAt('{\n  "a": }', 9); // { line: 2, column: 8 }
 * ```
 */
export function positionAt(text: string, offset: number): TextPosition {
  const clamped = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < clamped;) {
    line += 1;
    lineStart = index + 1;
    index = text.indexOf("\n", lineStart);
  }
  return { line, column: clamped - lineStart + 1 };
}

/**
 * Where to report a parse error found at `offset`: like {@linkcode positionAt},
 * except that the end of a file that ends with a line break is reported at
 * the end of its last line, which is where an editor shows the unfinished
 * text (an unclosed header or string), not on the empty line after it.
 *
 * @example
 * ```ts
 * import { errorPositionAt } from "./text_position.ts";
 * errorPositionAt("[mcp_servers.x\n", 15); // { line: 1, column: 15 }
 * ```
 */
export function errorPositionAt(text: string, offset: number): TextPosition {
  if (offset >= text.length && text.endsWith("\n")) {
    return positionAt(text, text.length - (text.endsWith("\r\n") ? 2 : 1));
  }
  return positionAt(text, offset);
}

/**
 * The error for a config file Vantage will not overwrite because it does not
 * parse: it names the file, the line and the column, and says what to do.
 *
 * @example
 * ```ts
 * import { malformedFileError } from "./text_position.ts";
 * const error = malformedFileError("/home/me/.claude.json", "JSON", { line: 3, column: 5 }, "expected ','");
 * error.message.startsWith("/home/me/.claude.json:3:5:"); // true
 * ```
 */
export function malformedFileError(
  file: string,
  format: string,
  position: TextPosition | undefined,
  reason: string,
): VantageError {
  const where = position === undefined ? file : `${file}:${position.line}:${position.column}`;
  const at = position === undefined ? "" : ` at line ${position.line}, column ${position.column}`;
  return new VantageError(
    "conflict",
    `${where}: not valid ${format}${at} (${reason}); Vantage never overwrites a file it cannot ` +
      `parse: fix that line (or move the file aside) and run the command again`,
    {
      details: {
        file,
        ...(position === undefined ? {} : { line: position.line, column: position.column }),
      },
    },
  );
}
