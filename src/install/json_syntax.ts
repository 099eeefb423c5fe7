/**
 * An agent's JSON (or JSON5) config read into positioned nodes, so Vantage
 * can change its own entries and leave every other byte as the user wrote it.
 * The parsing is momoa's (`@humanwhocodes/momoa`, the parser behind ESLint's
 * JSON support): strict JSON for the files agents read with `JSON.parse`,
 * JSON5 (comments, trailing commas, unquoted keys, single quotes) for
 * OpenClaw's. This module only turns momoa's tree into the spans,
 * keys and commas the editor splices at, and its errors into Vantage's.
 *
 * @module
 */
import { type DocumentNode, parse, type ValueNode } from "@humanwhocodes/momoa";
import type { VantageError } from "../core/errors.ts";
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
    document = parse(source, { mode: flavor });
  } catch (error) {
    const offset = (error as { offset?: unknown }).offset;
    if (typeof offset !== "number") throw error;
    throw malformed(file, flavor, text, offset, reasonOf((error as Error).message));
  }
  const converter = new Converter(text, flavor);
  const root = converter.convert(document.body);
  if (converter.control !== -1) {
    throw malformed(
      file,
      flavor,
      text,
      converter.control,
      "control character in a string (escape it)",
    );
  }
  return root;
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

/** momoa's tree as Vantage's nodes, with the comma after each member and item. */
class Converter {
  /** Offset of the first raw control character inside a string, or -1. */
  control = -1;

  constructor(readonly text: string, readonly flavor: JsonFlavor) {}

  convert(node: ValueNode): JsonNode {
    const start = node.loc.start.offset;
    const end = node.loc.end.offset;
    switch (node.type) {
      case "Object": {
        const members = node.members.map((member): JsonMember => {
          const name = member.name;
          if (name.type === "String") this.checkString(name.loc.start.offset, name.loc.end.offset);
          const value = this.convert(member.value);
          return {
            key: name.type === "String" ? name.value : name.name,
            keyStart: name.loc.start.offset,
            value,
            comma: this.commaAfter(value.end, end),
          };
        });
        return { kind: "object", members, start, end };
      }
      case "Array": {
        const items = node.elements.map((element) => this.convert(element.value));
        const commas = items.map((item) => this.commaAfter(item.end, end));
        return { kind: "array", items, commas, start, end };
      }
      case "String":
        this.checkString(start, end);
        return { kind: "scalar", value: node.value, start, end };
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
   * The comma right after a value (only blanks and comments between), or -1.
   * momoa knows where every comma is but does not keep it in the tree, and
   * asking for its token list doubles the time it takes on a large file.
   */
  commaAfter(from: number, limit: number): number {
    const text = this.text;
    let index = from;
    while (index < limit) {
      const char = text[index];
      if (char === ",") return index;
      if (char === "/" && text[index + 1] === "/") {
        const newline = text.indexOf("\n", index);
        index = newline === -1 ? limit : newline + 1;
      } else if (char === "/" && text[index + 1] === "*") {
        const close = text.indexOf("*/", index + 2);
        if (close === -1) return -1;
        index = close + 2;
      } else if (/\s/.test(char)) {
        index += 1;
      } else {
        return -1;
      }
    }
    return -1;
  }

  /**
   * Notes a raw control character inside the string at `[start, end)`:
   * momoa lets them through, but `JSON.parse` (which the agents read these
   * files with) refuses them, and JSON5 allows only a tab and a line break
   * escaped by a backslash.
   */
  checkString(start: number, end: number): void {
    if (this.control !== -1 || !CONTROL.test(this.text.slice(start, end))) return;
    const text = this.text;
    for (let index = start; index < end; index += 1) {
      const code = text.charCodeAt(index);
      if (code >= 0x20) continue;
      if (this.flavor === "json5") {
        if (code === 0x09) continue;
        const before = text[index - 1] === "\r" && code === 0x0a ? index - 2 : index - 1;
        if ((code === 0x0a || code === 0x0d) && text[before] === "\\") continue;
      }
      this.control = index;
      return;
    }
  }
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f]/;

function malformed(
  file: string,
  flavor: JsonFlavor,
  text: string,
  offset: number,
  reason: string,
): VantageError {
  return malformedFileError(
    file,
    flavor === "json" ? "JSON" : "JSON5",
    errorPositionAt(text, offset),
    reason,
  );
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
