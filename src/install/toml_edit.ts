/**
 * A line-based editor for one table of a TOML file (Codex's `config.toml`):
 * it reads the file statement by statement, refuses obviously malformed lines
 * with their line and column, and replaces or removes only the lines of the
 * named table and its subtables. Every other line, comments included, stays
 * byte for byte.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { malformedFileError, positionAt } from "./text_position.ts";

/** A decoded TOML value. Dates and times are kept as their source text. */
export type TomlValue = string | number | boolean | TomlValue[] | { [key: string]: TomlValue };

/** One statement: a blank line, a comment, a table header or a key/value pair. */
export interface TomlStatement {
  /** What the statement is. */
  kind: "blank" | "comment" | "table" | "array_table" | "keyvalue";
  /** Offset of the statement's first line. */
  start: number;
  /** Offset just past the statement's last line terminator (or the end of the file). */
  end: number;
  /** 1-based line of the statement's start. */
  line: number;
  /** The header's table path, or the key's dotted path; empty otherwise. */
  path: string[];
  /** The table a key/value belongs to (its header's path); empty at the top level. */
  table: string[];
  /** The decoded value of a key/value pair. */
  value?: TomlValue;
}

/** A span of text: `[start, end)`. */
export interface TomlRegion {
  /** First offset. */
  start: number;
  /** Offset just past the end. */
  end: number;
}

/**
 * Reads `text` into statements, throwing a message with the file, line and
 * column at the first obviously malformed line (unterminated strings or
 * arrays, a key without `=`, an unknown value, text after a value, a table
 * defined twice, a key set twice).
 *
 * @example
 * ```ts
 * import { scanToml } from "./toml_edit.ts";
 * scanToml('# c\nmodel = "gpt-5"\n', "config.toml").map((s) => s.kind); // ["comment", "keyvalue"]
 * ```
 */
export function scanToml(text: string, file: string): TomlStatement[] {
  return new TomlScanner(text, file).statements();
}

/**
 * The regions holding the table `path` and its subtables, each from its
 * header to its last key (comments and blank lines after the last key belong
 * to whatever follows).
 */
export function tableRegions(
  statements: readonly TomlStatement[],
  path: readonly string[],
): TomlRegion[] {
  const regions: TomlRegion[] = [];
  let current: TomlRegion | undefined;
  for (const statement of statements) {
    if (statement.kind === "table" || statement.kind === "array_table") {
      if (startsWith(statement.path, path)) {
        current ??= { start: statement.start, end: statement.end };
        current.end = statement.end;
        continue;
      }
      if (current !== undefined) regions.push(current);
      current = undefined;
      continue;
    }
    if (current !== undefined && statement.kind === "keyvalue") current.end = statement.end;
  }
  if (current !== undefined) regions.push(current);
  return regions;
}

/**
 * Replaces the table `path` (and its subtables) with `block`, or appends
 * `block` after a blank line when the table is absent. Returns `text` itself
 * when the table already reads exactly `block`.
 *
 * @example
 * ```ts
 * import { setTomlTable } from "./toml_edit.ts";
 * setTomlTable('model = "x"\n', "c.toml", ["mcp_servers", "v"], '[mcp_servers.v]\ncommand = "v"\n');
 * // 'model = "x"\n\n[mcp_servers.v]\ncommand = "v"\n'
 * ```
 */
export function setTomlTable(
  text: string,
  file: string,
  path: readonly string[],
  block: string,
): string {
  const statements = scanToml(text, file);
  refuseInlineDefinitions(statements, path, file);
  const regions = tableRegions(statements, path);
  if (regions.length === 0) return appendBlock(text, block);
  const first = regions[0];
  if (regions.length === 1 && text.slice(first.start, first.end) === block) return text;
  let result = text;
  for (let index = regions.length - 1; index >= 1; index -= 1) {
    result = removeRegion(result, regions[index]);
  }
  return result.slice(0, first.start) + block + result.slice(first.end);
}

/**
 * Removes the table `path` and its subtables, with the blank line that
 * separated them from the rest, and returns the new text.
 */
export function removeTomlTable(text: string, file: string, path: readonly string[]): string {
  const statements = scanToml(text, file);
  refuseInlineDefinitions(statements, path, file);
  const regions = tableRegions(statements, path);
  let result = text;
  for (let index = regions.length - 1; index >= 0; index -= 1) {
    result = removeRegion(result, regions[index]);
  }
  return result;
}

/**
 * The keys of table `path`, with each subtable as a nested object, or
 * undefined when the file has no such table.
 */
export function readTomlTable(
  text: string,
  file: string,
  path: readonly string[],
): Record<string, TomlValue> | undefined {
  const statements = scanToml(text, file);
  let found = false;
  const table: Record<string, TomlValue> = {};
  for (const statement of statements) {
    if (statement.kind === "table" && startsWith(statement.path, path)) found = true;
    if (statement.kind !== "keyvalue" || !startsWith(statement.table, path)) continue;
    const keys = [...statement.table.slice(path.length), ...statement.path];
    let target = table;
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      if (next === undefined || typeof next !== "object" || Array.isArray(next)) target[key] = {};
      target = target[key] as Record<string, TomlValue>;
    }
    target[keys[keys.length - 1]] = statement.value as TomlValue;
  }
  return found ? table : undefined;
}

/**
 * Renders a table: its plain keys under `[path]`, then each object-valued key
 * as a subtable `[path.key]` after a blank line.
 *
 * @example
 * ```ts
 * import { renderTomlTable } from "./toml_edit.ts";
 * renderTomlTable(["mcp_servers", "v"], { command: "v", env: { A: "1" } });
 * // '[mcp_servers.v]\ncommand = "v"\n\n[mcp_servers.v.env]\nA = "1"\n'
 * ```
 */
export function renderTomlTable(
  path: readonly string[],
  entries: Record<string, TomlValue>,
  eol = "\n",
): string {
  const lines = [`[${path.map(tomlKey).join(".")}]`];
  const subtables: string[] = [];
  for (const [key, value] of Object.entries(entries)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      subtables.push(renderTomlTable([...path, key], value, eol));
    } else {
      lines.push(`${tomlKey(key)} = ${tomlValue(value)}`);
    }
  }
  return [lines.join(eol) + eol, ...subtables].join(eol);
}

/** A key, bare when TOML allows it and quoted otherwise. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** A TOML basic string, with quotes, backslashes and control characters escaped. */
export function tomlString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return out + '"';
}

function tomlValue(value: TomlValue): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  const pairs = Object.entries(value).map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item)}`);
  return `{ ${pairs.join(", ")} }`;
}

function refuseInlineDefinitions(
  statements: readonly TomlStatement[],
  path: readonly string[],
  file: string,
): void {
  for (const statement of statements) {
    if (statement.kind !== "keyvalue" || startsWith(statement.table, path)) continue;
    if (startsWith([...statement.table, ...statement.path], path)) {
      throw new VantageError(
        "conflict",
        `${file}:${statement.line}: [${path.join(".")}] is defined there with dotted keys or an ` +
          `inline table; Vantage only manages it as its own [${path.join(".")}] table: remove ` +
          `that line (or turn it into the table) and run the command again`,
        { details: { file, line: statement.line } },
      );
    }
  }
}

function appendBlock(text: string, block: string): string {
  if (text === "") return block;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (/\n[ \t]*\r?\n$/.test(text) || /^[ \t]*\r?\n$/.test(text)) return text + block;
  if (text.endsWith("\n")) return text + eol + block;
  return text + eol + eol + block;
}

function removeRegion(text: string, region: TomlRegion): string {
  let before = text.slice(0, region.start);
  let after = text.slice(region.end);
  const blankBefore = /(^|\n)[ \t]*\r?\n$/.test(before);
  const blankAfter = after === "" || /^[ \t]*(\r?\n|$)/.test(after);
  if (blankBefore && blankAfter) before = before.replace(/[ \t]*\r?\n$/, "");
  else if (before === "" && blankAfter) after = after.replace(/^[ \t]*\r?\n/, "");
  return before + after;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return path.length >= prefix.length && prefix.every((key, index) => path[index] === key);
}

const BARE_KEY = /[A-Za-z0-9_-]+/y;
const SCALAR = /[A-Za-z0-9_:.+-]+/y;
const INTEGER = /^[+-]?(?:0|[1-9](?:_?\d)*)$/;
const RADIX = /^(?:0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0o[0-7](?:_?[0-7])*|0b[01](?:_?[01])*)$/;
const FLOAT = /^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL_FLOAT = /^[+-]?(?:inf|nan)$/;
const DATE_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

class TomlScanner {
  pos = 0;

  constructor(readonly text: string, readonly file: string) {}

  fail(reason: string, offset = this.pos): never {
    throw malformedFileError(this.file, "TOML", positionAt(this.text, offset), reason);
  }

  statements(): TomlStatement[] {
    const text = this.text;
    const result: TomlStatement[] = [];
    const tables = new Set<string>();
    let table: string[] = [];
    let keys = new Set<string>();
    let line = 1;
    if (text.startsWith("\uFEFF")) this.pos = 1;
    while (this.pos < text.length) {
      const start = this.pos === 1 && text.startsWith("\uFEFF") ? 0 : this.pos;
      this.skipSpaces();
      const char = text[this.pos];
      let statement: TomlStatement;
      if (char === undefined || char === "\n" || text.startsWith("\r\n", this.pos)) {
        this.endOfLine("blank line");
        statement = { kind: "blank", start, end: this.pos, line, path: [], table };
      } else if (char === "#") {
        this.endOfLine("comment");
        statement = { kind: "comment", start, end: this.pos, line, path: [], table };
      } else if (char === "[") {
        const array = text[this.pos + 1] === "[";
        const headerAt = this.pos;
        this.pos += array ? 2 : 1;
        this.skipSpaces();
        const path = this.key();
        this.skipSpaces();
        const close = array ? "]]" : "]";
        if (!text.startsWith(close, this.pos)) {
          this.fail(`expected '${close}' to close the table header`);
        }
        this.pos += close.length;
        this.endOfLine("table header");
        const id = path.join("\u0000");
        if (!array) {
          if (tables.has(id)) this.fail(`table [${path.join(".")}] is defined twice`, headerAt);
          tables.add(id);
        }
        table = path;
        keys = new Set();
        statement = {
          kind: array ? "array_table" : "table",
          start,
          end: this.pos,
          line,
          path,
          table: path,
        };
      } else {
        const keyAt = this.pos;
        const path = this.key();
        this.skipSpaces();
        if (text[this.pos] !== "=") this.fail("expected '=' after the key");
        this.pos += 1;
        this.skipSpaces();
        const value = this.value();
        this.endOfLine("value");
        const id = path.join("\u0000");
        if (keys.has(id)) {
          this.fail(`key '${path.join(".")}' is set twice in the same table`, keyAt);
        }
        keys.add(id);
        statement = { kind: "keyvalue", start, end: this.pos, line, path, table, value };
      }
      result.push(statement);
      line += countNewlines(text, statement.start, statement.end);
    }
    return result;
  }

  skipSpaces(): void {
    while (this.text[this.pos] === " " || this.text[this.pos] === "\t") this.pos += 1;
  }

  /** Skips spaces, newlines and comments inside arrays. */
  skipBlank(): void {
    for (;;) {
      this.skipSpaces();
      const char = this.text[this.pos];
      if (char === "\n") this.pos += 1;
      else if (this.text.startsWith("\r\n", this.pos)) this.pos += 2;
      else if (char === "#") {
        const end = this.text.indexOf("\n", this.pos);
        this.pos = end === -1 ? this.text.length : end;
      } else return;
    }
  }

  endOfLine(after: string): void {
    this.skipSpaces();
    const text = this.text;
    if (text[this.pos] === "#") {
      const end = text.indexOf("\n", this.pos);
      const comment = text.slice(this.pos, end === -1 ? text.length : end).replace(/\r$/, "");
      const bad = comment.split("").findIndex(isControl);
      if (bad !== -1) this.fail("control character in a comment", this.pos + bad);
      this.pos = end === -1 ? text.length : end;
    }
    if (this.pos >= text.length) return;
    if (text[this.pos] === "\n") {
      this.pos += 1;
      return;
    }
    if (text.startsWith("\r\n", this.pos)) {
      this.pos += 2;
      return;
    }
    this.fail(`unexpected text after the ${after}`);
  }

  key(): string[] {
    const path: string[] = [];
    for (;;) {
      const char = this.text[this.pos];
      if (char === '"') path.push(this.basicString());
      else if (char === "'") path.push(this.literalString());
      else {
        BARE_KEY.lastIndex = this.pos;
        const match = BARE_KEY.exec(this.text);
        if (match === null) this.fail("expected a key");
        path.push(match[0]);
        this.pos = BARE_KEY.lastIndex;
      }
      this.skipSpaces();
      if (this.text[this.pos] !== ".") return path;
      this.pos += 1;
      this.skipSpaces();
    }
  }

  value(): TomlValue {
    const text = this.text;
    const char = text[this.pos];
    if (text.startsWith('"""', this.pos)) return this.multilineString('"""');
    if (text.startsWith("'''", this.pos)) return this.multilineString("'''");
    if (char === '"') return this.basicString();
    if (char === "'") return this.literalString();
    if (char === "[") return this.array();
    if (char === "{") return this.inlineTable();
    SCALAR.lastIndex = this.pos;
    const match = SCALAR.exec(text);
    if (match === null) {
      this.fail(
        char === undefined || char === "\n" || char === "\r" || char === "#"
          ? "missing value after '='"
          : `unexpected character ${JSON.stringify(char)} where a value should start`,
      );
    }
    let token = match[0];
    let end = SCALAR.lastIndex;
    // A date and a time may be separated by one space.
    const time = /^ (\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)/.exec(
      text.slice(end),
    );
    if (/^\d{4}-\d{2}-\d{2}$/.test(token) && time !== null) {
      token += time[0];
      end += time[0].length;
    }
    const at = this.pos;
    this.pos = end;
    if (token === "true") return true;
    if (token === "false") return false;
    if (INTEGER.test(token) || FLOAT.test(token)) return Number(token.replaceAll("_", ""));
    if (RADIX.test(token)) {
      const digits = token.slice(2).replaceAll("_", "");
      return parseInt(digits, token[1] === "x" ? 16 : token[1] === "o" ? 8 : 2);
    }
    if (SPECIAL_FLOAT.test(token)) {
      return token.endsWith("nan") ? NaN : token.startsWith("-") ? -Infinity : Infinity;
    }
    if (DATE_TIME.test(token) || TIME.test(token)) return token;
    this.fail(`'${token}' is not a TOML value (strings need quotes)`, at);
  }

  array(): TomlValue[] {
    const start = this.pos;
    this.pos += 1;
    const items: TomlValue[] = [];
    for (;;) {
      this.skipBlank();
      if (this.pos >= this.text.length) this.fail("unterminated array (missing ']')", start);
      if (this.text[this.pos] === "]") {
        this.pos += 1;
        return items;
      }
      items.push(this.value());
      this.skipBlank();
      const char = this.text[this.pos];
      if (char === ",") {
        this.pos += 1;
        continue;
      }
      if (char === "]") {
        this.pos += 1;
        return items;
      }
      if (char === undefined) this.fail("unterminated array (missing ']')", start);
      this.fail(
        `expected ',' or ']' in the array opened at line ${positionAt(this.text, start).line}`,
      );
    }
  }

  inlineTable(): Record<string, TomlValue> {
    const start = this.pos;
    this.pos += 1;
    const table: Record<string, TomlValue> = {};
    for (;;) {
      this.skipBlank();
      const char = this.text[this.pos];
      if (char === undefined) this.fail("unterminated inline table (missing '}')", start);
      if (char === "}") {
        this.pos += 1;
        return table;
      }
      const path = this.key();
      this.skipSpaces();
      if (this.text[this.pos] !== "=") this.fail("expected '=' after the key");
      this.pos += 1;
      this.skipSpaces();
      const value = this.value();
      let target = table;
      for (const key of path.slice(0, -1)) {
        const next = target[key];
        if (next === undefined || typeof next !== "object" || Array.isArray(next)) target[key] = {};
        target = target[key] as Record<string, TomlValue>;
      }
      target[path[path.length - 1]] = value;
      this.skipBlank();
      const after = this.text[this.pos];
      if (after === ",") {
        this.pos += 1;
        continue;
      }
      if (after === "}") {
        this.pos += 1;
        return table;
      }
      this.fail("expected ',' or '}' in the inline table");
    }
  }

  basicString(): string {
    const text = this.text;
    const start = this.pos;
    this.pos += 1;
    let value = "";
    for (;;) {
      const char = text[this.pos];
      if (char === undefined || char === "\n" || char === "\r") {
        this.fail("unterminated string (missing closing '\"')", start);
      }
      if (char === '"') {
        this.pos += 1;
        return value;
      }
      if (char === "\\") {
        value += this.escape();
        continue;
      }
      if (isControl(char)) {
        this.fail("control character in a string");
      }
      value += char;
      this.pos += 1;
    }
  }

  literalString(): string {
    const text = this.text;
    const start = this.pos;
    const end = text.slice(start + 1).search(/['\n]/);
    if (end === -1 || text[start + 1 + end] !== "'") {
      this.fail('unterminated string (missing closing "\'")', start);
    }
    this.pos = start + 1 + end + 1;
    return text.slice(start + 1, start + 1 + end);
  }

  multilineString(quote: string): string {
    const text = this.text;
    const start = this.pos;
    let index = start + 3;
    let value = "";
    if (text.startsWith("\r\n", index)) index += 2;
    else if (text[index] === "\n") index += 1;
    for (;;) {
      if (index >= text.length) {
        this.fail(`unterminated multi-line string (missing ${quote})`, start);
      }
      if (text.startsWith(quote, index)) {
        // Up to two quotes right before the closing three belong to the string.
        let close = index + 3;
        while (text[close] === quote[0] && close - index < 5) close += 1;
        value += text.slice(index, close - 3);
        this.pos = close;
        return value;
      }
      if (quote === '"""' && text[index] === "\\") {
        const rest = /^\\[ \t]*\r?\n[\s]*/.exec(text.slice(index));
        if (rest !== null) {
          index += rest[0].length;
          continue;
        }
        this.pos = index;
        value += this.escape();
        index = this.pos;
        continue;
      }
      value += text[index];
      index += 1;
    }
  }

  escape(): string {
    const text = this.text;
    const at = this.pos;
    const char = text[at + 1];
    this.pos += 2;
    const simple: Record<string, string> = {
      b: "\b",
      t: "\t",
      n: "\n",
      f: "\f",
      r: "\r",
      e: "\u001b",
      '"': '"',
      "\\": "\\",
    };
    if (char !== undefined && char in simple) return simple[char];
    const length = char === "u" ? 4 : char === "U" ? 8 : char === "x" ? 2 : 0;
    const hex = text.slice(this.pos, this.pos + length);
    if (length > 0 && new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(hex)) {
      const code = parseInt(hex, 16);
      if (code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) {
        this.pos += length;
        return String.fromCodePoint(code);
      }
    }
    this.fail(`invalid escape '\\${char ?? ""}' in a string`, at);
  }
}

/** Control characters TOML forbids unescaped in strings and comments (tab is allowed). */
function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code < 0x20 && code !== 0x09) || code === 0x7f;
}

function countNewlines(text: string, start: number, end: number): number {
  let count = 0;
  for (let index = text.indexOf("\n", start); index !== -1 && index < end;) {
    count += 1;
    index = text.indexOf("\n", index + 1);
  }
  return count;
}
