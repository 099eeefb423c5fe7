/**
 * Surgical edits to a JSON (or JSON5) config: each edit splices new text into
 * the original at the right offset, so the user's other keys, their order,
 * comments, indentation and trailing newline stay exactly as they were. An
 * insertion and the matching removal are inverses: removing what was inserted
 * gives back the original bytes.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import {
  findMember,
  type JsonArrayNode,
  type JsonFlavor,
  type JsonNode,
  type JsonObjectNode,
  nodeValue,
  parseJsonDocument,
} from "./json_syntax.ts";

/** How a file is laid out, so new text matches it. */
export interface JsonStyle {
  /** One level of indentation ("  ", "    " or "\t"). */
  unit: string;
  /** The line ending ("\n" or "\r\n"). */
  eol: string;
  /** Whether the whole document sits on one line (new text is then written compactly). */
  compact: boolean;
}

/**
 * Detects the indentation unit, line ending and compactness of `text`.
 *
 * @example
 * ```ts
 * import { detectJsonStyle } from "./json_edit.ts";
 * detectJsonStyle('{\n    "a": 1\n}\n').unit; // "    "
 * ```
 */
export function detectJsonStyle(text: string): JsonStyle {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = /^([ \t]+)\S/m.exec(text);
  const unit = indented === null ? "  " : indented[1].startsWith("\t") ? "\t" : indented[1];
  const trimmed = text.trim();
  const compact = trimmed.length > 2 && !trimmed.includes("\n");
  return { unit, eol, compact };
}

/**
 * Formats `value` as JSON indented by `unit`, with every line after the first
 * starting at `baseIndent`, ready to splice into a file at that depth.
 */
function formatJson(value: unknown, style: JsonStyle, baseIndent: string): string {
  if (style.compact) return JSON.stringify(value);
  return JSON.stringify(value, null, style.unit).split("\n").join(style.eol + baseIndent);
}

/**
 * A new document holding `value` at `path`, pretty-printed with two spaces
 * and a trailing newline: what Vantage writes when the file does not exist.
 *
 * @example
 * ```ts
 * import { newJsonDocument } from "./json_edit.ts";
 * newJsonDocument(["mcpServers", "vantage"], { type: "stdio" });
 * ```
 */
export function newJsonDocument(path: readonly string[], value: unknown): string {
  return JSON.stringify(nest(path, value), null, 2) + "\n";
}

/** Whether two JSON values are equal, ignoring the order of object keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/**
 * The value at `path` in a document, or undefined when any step is missing.
 * Throws (naming file, line and column) when the text does not parse.
 */
export function getJsonValue(
  text: string,
  flavor: JsonFlavor,
  path: readonly string[],
  file: string,
): unknown {
  if (text.trim() === "") return undefined;
  let node: JsonNode = parseJsonDocument(text, flavor, file);
  for (const key of path) {
    if (node.kind !== "object") return undefined;
    const member = findMember(node, key);
    if (member === undefined) return undefined;
    node = member.value;
  }
  return nodeValue(node);
}

/**
 * Sets `path` to `value`, creating the objects on the way, and returns the
 * new text. When the value is already there (keys in any order) the text is
 * returned unchanged, so running an install twice changes nothing.
 *
 * @example
 * ```ts
 * import { setJsonValue } from "./json_edit.ts";
 * setJsonValue('{\n  "theme": "dark"\n}\n', "json", ["mcpServers", "vantage"], { type: "stdio" }, "x.json");
 * // '{\n  "theme": "dark",\n  "mcpServers": {\n    "vantage": {\n      "type": "stdio"\n    }\n  }\n}\n'
 * ```
 */
export function setJsonValue(
  text: string,
  flavor: JsonFlavor,
  path: readonly string[],
  value: unknown,
  file: string,
): string {
  if (text.trim() === "") return newJsonDocument(path, value);
  const style = detectJsonStyle(text);
  let node = expectObject(parseJsonDocument(text, flavor, file), file, []);
  for (let depth = 0; depth < path.length; depth += 1) {
    const member = findMember(node, path[depth]);
    if (member === undefined) {
      return insertMember(text, style, node, path[depth], nest(path.slice(depth + 1), value));
    }
    if (depth === path.length - 1) {
      if (sameJson(nodeValue(member.value), value)) return text;
      return replaceNode(text, style, member.value, value);
    }
    node = expectObject(member.value, file, path.slice(0, depth + 1));
  }
  return text;
}

/**
 * Removes the member at `path` when present, then removes each enclosing
 * object that became empty and that `prune` says Vantage created, so a file
 * goes back to the shape it had before Vantage touched it.
 */
export function removeJsonValue(
  text: string,
  flavor: JsonFlavor,
  path: readonly string[],
  file: string,
  prune: (path: readonly string[]) => boolean,
): string {
  if (text.trim() === "" || path.length === 0) return text;
  const located = locate(text, flavor, path, file);
  if (located === undefined) return text;
  const removed = removeMemberAt(text, located.parent, located.index);
  return pruneEmptyObjects(removed, flavor, path.slice(0, -1), file, prune);
}

/**
 * Removes, from the innermost outwards, every object along `path` that is
 * empty and that `prune` says Vantage created.
 */
export function pruneEmptyObjects(
  text: string,
  flavor: JsonFlavor,
  path: readonly string[],
  file: string,
  prune: (path: readonly string[]) => boolean,
): string {
  let result = text;
  for (let length = path.length; length > 0; length -= 1) {
    const prefix = path.slice(0, length);
    const located = locate(result, flavor, prefix, file);
    if (located === undefined) break;
    const value = located.parent.members[located.index].value;
    const empty = (value.kind === "object" && value.members.length === 0) ||
      (value.kind === "array" && value.items.length === 0);
    if (!empty || !prune(prefix)) break;
    result = removeMemberAt(result, located.parent, located.index);
  }
  return result;
}

/** The object holding the member at `path`, and that member's index, or undefined. */
function locate(
  text: string,
  flavor: JsonFlavor,
  path: readonly string[],
  file: string,
): { parent: JsonObjectNode; index: number } | undefined {
  let node: JsonNode = parseJsonDocument(text, flavor, file);
  for (let depth = 0; depth < path.length; depth += 1) {
    if (node.kind !== "object") return undefined;
    const member = findMember(node, path[depth]);
    if (member === undefined) return undefined;
    if (depth === path.length - 1) return { parent: node, index: node.members.indexOf(member) };
    node = member.value;
  }
  return undefined;
}

/** Inserts `"key": value` as the last member of `object`. */
function insertMember(
  text: string,
  style: JsonStyle,
  object: JsonObjectNode,
  key: string,
  value: unknown,
): string {
  const keyText = JSON.stringify(key);
  if (object.members.length === 0) {
    const commented = afterTrivia(text, object.start + 1, object.end - 1);
    if (commented !== undefined) {
      // Comments inside: the member goes after them, so they stay where the user put them.
      const inner = lineIndentAt(text, object.start) + style.unit;
      return splice(
        text,
        commented,
        commented,
        `${style.eol}${inner}${keyText}: ${formatJson(value, { ...style, compact: false }, inner)}`,
      );
    }
    if (style.compact) {
      return splice(text, object.start + 1, object.end - 1, `${keyText}:${JSON.stringify(value)}`);
    }
    const outer = lineIndentAt(text, object.start);
    const inner = outer + style.unit;
    const body = `${style.eol}${inner}${keyText}: ${
      formatJson(value, style, inner)
    }${style.eol}${outer}`;
    return splice(text, object.start + 1, object.end - 1, body);
  }
  const last = object.members[object.members.length - 1];
  if (isInline(text, object)) {
    const source = text.slice(object.start, object.end);
    const comma = source.includes(", ") ? ", " : ",";
    const colon = source.includes(": ") ? ": " : ":";
    return splice(
      text,
      last.value.end,
      last.value.end,
      `${comma}${keyText}${colon}${JSON.stringify(value)}`,
    );
  }
  const indent = startsLine(text, last.keyStart)
    ? lineIndentAt(text, last.keyStart)
    : lineIndentAt(text, object.start) + style.unit;
  const inserted = `,${style.eol}${indent}${keyText}: ${
    formatJson(value, { ...style, compact: false }, indent)
  }`;
  return splice(text, last.value.end, last.value.end, inserted);
}

/** Appends `value` as the last item of `array`. */
export function appendItem(
  text: string,
  style: JsonStyle,
  array: JsonArrayNode,
  value: unknown,
): string {
  if (array.items.length === 0) {
    if (style.compact) return splice(text, array.start + 1, array.end - 1, JSON.stringify(value));
    const outer = lineIndentAt(text, array.start);
    const inner = outer + style.unit;
    const body = `${style.eol}${inner}${formatJson(value, style, inner)}${style.eol}${outer}`;
    return splice(text, array.start + 1, array.end - 1, body);
  }
  const last = array.items[array.items.length - 1];
  if (isInline(text, array)) {
    const comma = text.slice(array.start, array.end).includes(", ") ? ", " : ",";
    return splice(text, last.end, last.end, `${comma}${JSON.stringify(value)}`);
  }
  const indent = startsLine(text, last.start)
    ? lineIndentAt(text, last.start)
    : lineIndentAt(text, array.start) + style.unit;
  const inserted = `,${style.eol}${indent}${
    formatJson(value, { ...style, compact: false }, indent)
  }`;
  return splice(text, last.end, last.end, inserted);
}

/** Removes member `index` of `object` with its separator. */
function removeMemberAt(text: string, object: JsonObjectNode, index: number): string {
  const members = object.members;
  if (members.length === 1) {
    const only = members[0];
    return removeOnly(
      text,
      object,
      only.keyStart,
      only.comma === -1 ? only.value.end : only.comma + 1,
    );
  }
  if (index === members.length - 1) {
    return splice(text, members[index - 1].value.end, members[index].value.end, "");
  }
  return removeBeforeNext(
    text,
    members[index].keyStart,
    members[index].comma,
    members[index + 1].keyStart,
  );
}

/** Removes item `index` of `array` with its separator. */
export function removeItemAt(text: string, array: JsonArrayNode, index: number): string {
  const items = array.items;
  if (items.length === 1) {
    const comma = array.commas[0];
    return removeOnly(text, array, items[0].start, comma === -1 ? items[0].end : comma + 1);
  }
  if (index === items.length - 1) return splice(text, items[index - 1].end, items[index].end, "");
  return removeBeforeNext(text, items[index].start, array.commas[index], items[index + 1].start);
}

/** Replaces a node's text with `value`, laid out like its surroundings. */
export function replaceNode(
  text: string,
  style: JsonStyle,
  node: JsonNode,
  value: unknown,
): string {
  const inline = node.kind !== "scalar" && isInline(text, node);
  const formatted = style.compact || inline
    ? JSON.stringify(value)
    : formatJson(value, style, lineIndentAt(text, node.start));
  return splice(text, node.start, node.end, formatted);
}

/** Throws unless `node` is an object: Vantage only adds keys to objects. */
export function expectObject(
  node: JsonNode,
  file: string,
  path: readonly string[],
): JsonObjectNode {
  if (node.kind === "object") return node;
  const where = path.length === 0 ? "the top level" : `"${path.join(".")}"`;
  throw new VantageError(
    "conflict",
    `${file}: ${where} is not a JSON object, so Vantage cannot add its entry there; ` +
      `fix the file and run the command again`,
    { details: { file, path: path.join(".") } },
  );
}

function removeBeforeNext(text: string, start: number, comma: number, next: number): string {
  const newline = text.indexOf("\n", comma);
  if (startsLine(text, start) && newline !== -1 && newline < next) {
    // Drop the whole line, so comments on the following lines stay with what they describe.
    return splice(text, lineStart(text, start), newline + 1, "");
  }
  return splice(text, start, next, "");
}

/**
 * Removes the only member (or item) of a container: the inverse of inserting
 * into an empty one. Comments before it stay; with none, the container goes
 * back to `{}` / `[]`.
 */
function removeOnly(
  text: string,
  container: JsonObjectNode | JsonArrayNode,
  start: number,
  end: number,
): string {
  const commented = afterTrivia(text, container.start + 1, start);
  if (commented === undefined) return splice(text, container.start + 1, container.end - 1, "");
  return splice(text, commented, end, "");
}

/**
 * The offset just past the last comment in `text[start, end)` when that span
 * holds comments (and otherwise only whitespace), else undefined.
 */
function afterTrivia(text: string, start: number, end: number): number | undefined {
  const span = text.slice(start, end);
  if (span.trim() === "") return undefined;
  return start + span.trimEnd().length;
}

function isInline(text: string, node: JsonObjectNode | JsonArrayNode): boolean {
  const count = node.kind === "object" ? node.members.length : node.items.length;
  return count > 0 && !text.slice(node.start, node.end).includes("\n");
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function startsLine(text: string, offset: number): boolean {
  return text.slice(lineStart(text, offset), offset).trim() === "";
}

function lineIndentAt(text: string, offset: number): string {
  const start = lineStart(text, offset);
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? "";
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

function nest(path: readonly string[], value: unknown): unknown {
  let nested = value;
  for (let index = path.length - 1; index >= 0; index -= 1) {
    const object: Record<string, unknown> = {};
    Object.defineProperty(object, path[index], {
      value: nested,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    nested = object;
  }
  return nested;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).sort().map((key) =>
      `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`
    );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}
