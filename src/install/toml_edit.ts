/**
 * Edits one table of a TOML file (Codex's `config.toml`): the lines of the
 * named table and its subtables are replaced or removed, and every other
 * line, comments included, stays byte for byte. The file is parsed by
 * {@linkcode parseTomlDocument} first, so a malformed file is refused with
 * its line and column and never rewritten.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { parseTomlDocument, type TomlStatement } from "./toml_syntax.ts";

/** A value Vantage writes into a TOML file. */
export type TomlValue = string | number | boolean | TomlValue[] | { [key: string]: TomlValue };

/** A span of text: `[start, end)`. */
interface TomlRegion {
  /** First offset. */
  start: number;
  /** Offset just past the end. */
  end: number;
}

/**
 * The regions holding the table `path` and its subtables, each from its
 * header to its last key (comments and blank lines after the last key belong
 * to whatever follows).
 */
function tableRegions(
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
 * when the table already reads exactly `block`. In a file written with CRLF
 * line endings, the block's lines end with CRLF too.
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
  const written = text.includes("\r\n") ? block.replace(/\r?\n/g, "\r\n") : block;
  const { statements } = parseTomlDocument(text, file);
  refuseInlineDefinitions(statements, path, file);
  const regions = tableRegions(statements, path);
  if (regions.length === 0) return appendBlock(text, written);
  const first = regions[0];
  if (regions.length === 1 && text.slice(first.start, first.end) === written) return text;
  let result = text;
  for (let index = regions.length - 1; index >= 1; index -= 1) {
    result = removeRegion(result, regions[index]);
  }
  return result.slice(0, first.start) + written + result.slice(first.end);
}

/**
 * Removes the table `path` and its subtables, with the blank line that
 * separated them from the rest, and returns the new text.
 */
export function removeTomlTable(text: string, file: string, path: readonly string[]): string {
  const { statements } = parseTomlDocument(text, file);
  refuseInlineDefinitions(statements, path, file);
  const regions = tableRegions(statements, path);
  let result = text;
  for (let index = regions.length - 1; index >= 0; index -= 1) {
    result = removeRegion(result, regions[index]);
  }
  return result;
}

/**
 * The table at `path` as a JavaScript object (its subtables nested), or
 * undefined when the file has no table there.
 *
 * @example
 * ```ts
 * import { readTomlTable } from "./toml_edit.ts";
 * readTomlTable('[mcp_servers.v]\ncommand = "v"\n', "c.toml", ["mcp_servers", "v"]); // { command: "v" }
 * ```
 */
export function readTomlTable(
  text: string,
  file: string,
  path: readonly string[],
): Record<string, unknown> | undefined {
  let value: unknown = parseTomlDocument(text, file).value;
  for (const key of path) {
    if (!isTable(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return isTable(value) ? value : undefined;
}

/** Whether `text` has a value at `path` (a table, or a key of one); true when it does not parse. */
export function tomlHas(text: string, file: string, path: readonly string[]): boolean {
  try {
    let value: unknown = parseTomlDocument(text, file).value;
    for (const key of path) {
      if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return false;
      value = (value as Record<string, unknown>)[key];
    }
    return true;
  } catch {
    // An original that does not parse: everything in it counts as the user's.
    return true;
  }
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

/**
 * One `key = value` line (without its line ending), nested tables inline.
 *
 * @example
 * ```ts
 * import { renderTomlKeyValue } from "./toml_edit.ts";
 * renderTomlKeyValue("exporter", { "otlp-http": { protocol: "binary" } });
 * // 'exporter = { otlp-http = { protocol = "binary" } }'
 * ```
 */
export function renderTomlKeyValue(key: string, value: TomlValue): string {
  return `${tomlKey(key)} = ${tomlValue(value)}`;
}

/** A key, bare when TOML allows it and quoted otherwise. */
function tomlKey(key: string): string {
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

/**
 * Throws when the table `path` is defined with dotted keys or an inline
 * table outside its own `[path]` header: Vantage edits only the header form.
 */
export function refuseInlineDefinitions(
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

/**
 * Appends `block` at the end of `text` after one blank line (the inverse of
 * removing the block's table with {@linkcode removeTomlTable}).
 */
export function appendBlock(text: string, block: string): string {
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

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    !(value instanceof Date);
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return path.length >= prefix.length && prefix.every((key, index) => path[index] === key);
}
