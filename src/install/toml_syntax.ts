/**
 * A TOML config (Codex's `config.toml`) read into line-aligned statements,
 * so Vantage can replace or remove the lines of one table and leave every
 * other byte as the user wrote it. The parsing is `toml-eslint-parser`'s (a
 * TOML 1.0 parser that keeps every node's position, the one behind
 * eslint-plugin-toml); this module only turns its tree into whole-line spans
 * and its errors into Vantage's.
 *
 * @module
 */
import { type AST, getStaticTOMLValue, parseTOML } from "toml-eslint-parser";
import { errorPositionAt, malformedFileError } from "./text_position.ts";

/** One statement: a table header or a key/value pair, as whole lines. */
export interface TomlStatement {
  /** What the statement is. */
  kind: "table" | "array_table" | "keyvalue";
  /** Offset of the start of the statement's first line. */
  start: number;
  /** Offset just past the statement's last line terminator (or the end of the file). */
  end: number;
  /** 1-based line of the statement's start. */
  line: number;
  /** The header's table path, or the key's dotted path. */
  path: string[];
  /** The table a key/value belongs to (its header's path); empty at the top level. */
  table: string[];
}

/** A parsed TOML file: its statements in source order and its decoded value. */
export interface TomlDocument {
  /** Headers and key/value pairs in source order (comments and blank lines are not statements). */
  statements: TomlStatement[];
  /** The whole file as a JavaScript value (dates as `Date`s). */
  value: Record<string, unknown>;
}

/**
 * Parses `text`, refusing malformed TOML with a message that names the file,
 * line and column.
 *
 * @example
 * ```ts
 * import { parseTomlDocument } from "./toml_syntax.ts";
 * const document = parseTomlDocument('# c\nmodel = "gpt-5"\n', "config.toml");
 * document.statements.map((s) => s.kind); // ["keyvalue"]
 * ```
 */
export function parseTomlDocument(text: string, file: string): TomlDocument {
  // A byte-order mark becomes a space of the same length, so every offset still fits `text`.
  const source = text.startsWith("\uFEFF") ? " " + text.slice(1) : text;
  let program: AST.TOMLProgram;
  try {
    program = parseTOML(source);
  } catch (error) {
    const offset = (error as { index?: unknown }).index;
    if (typeof offset !== "number") throw error;
    let reason = (error as Error).message;
    // The parser does not say which character; the line and column do, and so does this.
    if (reason === "Unexpected character" && offset < text.length) {
      reason += ` ${JSON.stringify(text[offset])}`;
    }
    throw malformedFileError(
      file,
      "TOML",
      errorPositionAt(text, offset),
      reason.charAt(0).toLowerCase() + reason.slice(1),
    );
  }
  const statements: TomlStatement[] = [];
  for (const node of program.body[0].body) {
    if (node.type === "TOMLKeyValue") {
      statements.push(keyValue(text, node, []));
      continue;
    }
    const path = keyNames(node.key);
    statements.push({
      kind: node.kind === "array" ? "array_table" : "table",
      start: lineStart(text, node.range[0]),
      end: lineEnd(text, node.key.range[1]),
      line: node.loc.start.line,
      path,
      table: path,
    });
    for (const pair of node.body) statements.push(keyValue(text, pair, path));
  }
  return { statements, value: getStaticTOMLValue(program) as Record<string, unknown> };
}

function keyValue(text: string, node: AST.TOMLKeyValue, table: string[]): TomlStatement {
  return {
    kind: "keyvalue",
    start: lineStart(text, node.range[0]),
    end: lineEnd(text, node.range[1]),
    line: node.loc.start.line,
    path: keyNames(node.key),
    table,
  };
}

function keyNames(key: AST.TOMLKey): string[] {
  return key.keys.map((part) => part.type === "TOMLBare" ? part.name : part.value);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** Past the line terminator of the line holding `offset` (a trailing comment included). */
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline === -1 ? text.length : newline + 1;
}
