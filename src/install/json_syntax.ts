/**
 * An agent's JSON (or JSON5) config read into positioned nodes, so Vantage
 * can change its own entries and leave every other byte as the user wrote it.
 * The parsing is momoa's (`@humanwhocodes/momoa`, the parser behind ESLint's
 * JSON support): strict JSON for the files agents read with `JSON.parse`,
 * JSON5 (comments, trailing commas, unquoted keys, single quotes) for
 * OpenClaw's. This module only turns momoa's tree and tokens into the spans,
 * keys and commas the editor splices at, and its errors into Vantage's.
 *
 * @module
 */
import { type DocumentNode, parse, type Token, type ValueNode } from "@humanwhocodes/momoa";
import { errorPositionAt, malformedFileError } from "./text_position.ts";

/** Which JSON dialect a file is written in. */
export type JsonFlavor = "json" | "json5";

/** Where a node sits: `text.slice(start, end)` is its source. */
export interface JsonSpan {
  /** Offset of the node's first character. */
  start: number;
  /** Offset just past the node's last character. */
  end: number;
}

/** One `key: value` pair of an object. */
export interface JsonMember {
  /** The decoded key. */
  key: string;
  /** Offset of the key's first character (its quote, for quoted keys). */
  keyStart: number;
  /** The value. */
  value: JsonNode;
  /** Offset of the comma after the value, or -1 when none follows. */
  comma: number;
}

/** An object, with its members in source order. */
export interface JsonObjectNode extends JsonSpan {
  /** Node kind. */
  kind: "object";
  /** Members in source order (duplicates kept: the last one wins, as in `JSON.parse`). */
  members: JsonMember[];
}

/** An array, with its items in source order. */
export interface JsonArrayNode extends JsonSpan {
  /** Node kind. */
  kind: "array";
  /** Items in source order. */
  items: JsonNode[];
  /** Offset of the comma after each item, or -1. */
  commas: number[];
}

/** A string, number, boolean or null. */
export interface JsonScalarNode extends JsonSpan {
  /** Node kind. */
  kind: "scalar";
  /** The decoded value. */
  value: string | number | boolean | null;
}

/** Any parsed JSON value with its position. */
export type JsonNode = JsonObjectNode | JsonArrayNode | JsonScalarNode;

/**
 * Parses a config file's text into positioned nodes, refusing malformed input
 * with a message that names the file, line and column.
 *
 * @example
 * ```ts
 * import { parseJsonDocument } from "./json_syntax.ts";
 * const root = parseJsonDocument('{"a": [1, 2]}', "json", "/h/.claude.json");
 * root.kind; // "object"
 * ```
 */
export function parseJsonDocument(text: string, flavor: JsonFlavor, file: string): JsonNode {
  // A byte-order mark becomes a space of the same length, so every offset still fits `text`.
  const source = text.startsWith("\uFEFF") ? " " + text.slice(1) : text;
  let document: DocumentNode;
  try {
    document = parse(source, { mode: flavor, tokens: true });
  } catch (error) {
    const offset = (error as { offset?: unknown }).offset;
    if (typeof offset !== "number") throw error;
    throw malformedFileError(
      file,
      flavor === "json" ? "JSON" : "JSON5",
      errorPositionAt(text, offset),
      reasonOf((error as Error).message),
    );
  }
  const tokens = document.tokens ?? [];
  const control = controlCharacterIn(text, tokens, flavor);
  if (control !== -1) {
    throw malformedFileError(
      file,
      flavor === "json" ? "JSON" : "JSON5",
      errorPositionAt(text, control),
      "control character in a string (escape it)",
    );
  }
  const commas = tokens.filter((token) => token.type === "Comma")
    .map((token) => token.loc.start.offset);
  return convert(document.body, commas);
}

/** The JavaScript value of a node (objects built without prototype surprises). */
export function nodeValue(node: JsonNode): unknown {
  if (node.kind === "scalar") return node.value;
  if (node.kind === "array") return node.items.map(nodeValue);
  const object: Record<string, unknown> = {};
  for (const member of node.members) {
    Object.defineProperty(object, member.key, {
      value: nodeValue(member.value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/** The last member named `key` (the one `JSON.parse` keeps), or undefined. */
export function findMember(node: JsonObjectNode, key: string): JsonMember | undefined {
  for (let index = node.members.length - 1; index >= 0; index -= 1) {
    if (node.members[index].key === key) return node.members[index];
  }
  return undefined;
}

function convert(node: ValueNode, commas: readonly number[]): JsonNode {
  const start = node.loc.start.offset;
  const end = node.loc.end.offset;
  switch (node.type) {
    case "Object": {
      const members = node.members.map((member, index): JsonMember => {
        const value = convert(member.value, commas);
        const next = node.members[index + 1]?.loc.start.offset ?? end;
        return {
          key: member.name.type === "String" ? member.name.value : member.name.name,
          keyStart: member.name.loc.start.offset,
          value,
          comma: commaBetween(commas, value.end, next),
        };
      });
      return { kind: "object", members, start, end };
    }
    case "Array": {
      const items = node.elements.map((element) => convert(element.value, commas));
      const itemCommas = items.map((item, index) =>
        commaBetween(commas, item.end, items[index + 1]?.start ?? end)
      );
      return { kind: "array", items, commas: itemCommas, start, end };
    }
    case "String":
    case "Number":
    case "Boolean":
      return { kind: "scalar", value: node.value, start, end };
    case "Null":
      return { kind: "scalar", value: null, start, end };
    case "NaN":
      return { kind: "scalar", value: NaN, start, end };
    case "Infinity":
      return { kind: "scalar", value: node.sign === "-" ? -Infinity : Infinity, start, end };
  }
}

/**
 * The offset of the first raw control character inside a string, or -1.
 * momoa lets them through, but `JSON.parse` (which the agents read these
 * files with) refuses them, and JSON5 allows only a tab and a line break
 * escaped by a backslash.
 */
function controlCharacterIn(text: string, tokens: readonly Token[], flavor: JsonFlavor): number {
  for (const token of tokens) {
    if (token.type !== "String") continue;
    for (let index = token.loc.start.offset; index < token.loc.end.offset; index += 1) {
      const code = text.charCodeAt(index);
      if (code >= 0x20) continue;
      if (flavor === "json5") {
        if (code === 0x09) continue;
        const before = text[index - 1] === "\r" && code === 0x0a ? index - 2 : index - 1;
        if ((code === 0x0a || code === 0x0d) && text[before] === "\\") continue;
      }
      return index;
    }
  }
  return -1;
}

/** The first comma in `[from, to)`, or -1 (binary search: `commas` is in source order). */
function commaBetween(commas: readonly number[], from: number, to: number): number {
  let low = 0;
  let high = commas.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (commas[middle] < from) low = middle + 1;
    else high = middle;
  }
  return low < commas.length && commas[low] < to ? commas[low] : -1;
}

const TOKEN_TEXT: Record<string, string> = {
  LBrace: "'{'",
  RBrace: "'}'",
  LBracket: "'['",
  RBracket: "']'",
  Comma: "','",
  Colon: "':'",
  String: "string",
  Number: "number",
  Boolean: "true/false",
  Null: "null",
  Identifier: "name",
};

/** momoa's message without the position it appends (the caller reports it), in plain words. */
function reasonOf(message: string): string {
  const reason = message.replace(/\s*\(\d+:\d+\)$/, "").replace(/\.$/, "")
    .replace(
      /^Unexpected token (\w+) found$/,
      (_, type: string) => `unexpected ${TOKEN_TEXT[type] ?? type}`,
    )
    .replace(/ found$/, "");
  return reason.charAt(0).toLowerCase() + reason.slice(1);
}
