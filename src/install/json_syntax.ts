/**
 * A JSON parser that keeps where every value sits in the text, so Vantage can
 * change its own entries in an agent's config and leave every other byte as
 * the user wrote it. It reads strict JSON and, for OpenClaw's config, JSON5
 * (comments, trailing commas, unquoted keys, single quotes).
 *
 * @module
 */
import type { VantageError } from "../core/errors.ts";
import { malformedFileError, positionAt } from "./text_position.ts";

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

/** A syntax error at a known offset; {@linkcode parseJsonTree} turns it into a message. */
export class JsonSyntaxError extends Error {
  /** Where the error was found. */
  readonly offset: number;

  /** Creates an error found at `offset`. */
  constructor(message: string, offset: number) {
    super(message);
    this.name = "JsonSyntaxError";
    this.offset = offset;
  }
}

/**
 * Parses `text` into a tree of positioned nodes. Throws
 * {@linkcode JsonSyntaxError} with the offset of the first problem.
 *
 * @example
 * ```ts
 * import { parseJsonTree } from "./json_syntax.ts";
 * const root = parseJsonTree('{"a": [1, 2]}', "json");
 * root.kind; // "object"
 * ```
 */
export function parseJsonTree(text: string, flavor: JsonFlavor): JsonNode {
  const parser = new Parser(text, flavor === "json5");
  parser.skipTrivia();
  const root = parser.value();
  parser.skipTrivia();
  if (parser.pos < text.length) {
    throw new JsonSyntaxError("unexpected text after the end of the JSON value", parser.pos);
  }
  return root;
}

/**
 * Parses a config file's text, refusing malformed input with a message that
 * names the file, line and column. Strict JSON is checked by `JSON.parse`
 * itself (its message carries the position, which is converted to a line and
 * column); JSON5 by this module's parser.
 */
export function parseJsonDocument(text: string, flavor: JsonFlavor, file: string): JsonNode {
  if (flavor === "json") {
    const bom = text.startsWith("\uFEFF") ? 1 : 0;
    try {
      JSON.parse(text.slice(bom));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      let offset = jsonParseErrorOffset(message);
      if (offset !== undefined) offset += bom;
      else offset = ownErrorOffset(text, flavor);
      throw malformed(file, flavor, text, offset, conciseReason(message));
    }
  }
  try {
    return parseJsonTree(text, flavor);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw malformed(file, flavor, text, error.offset, error.message);
    }
    throw error;
  }
}

/**
 * The character offset named in a `JSON.parse` error message ("… at position
 * 12 …"), or undefined when the message carries none. An "unexpected end"
 * message points past the last character.
 */
export function jsonParseErrorOffset(message: string): number | undefined {
  const match = /at position (\d+)/.exec(message);
  if (match !== null) return Number(match[1]);
  return undefined;
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

function malformed(
  file: string,
  flavor: JsonFlavor,
  text: string,
  offset: number | undefined,
  reason: string,
): VantageError {
  const position = offset === undefined ? undefined : positionAt(text, offset);
  return malformedFileError(file, flavor === "json" ? "JSON" : "JSON5", position, reason);
}

function ownErrorOffset(text: string, flavor: JsonFlavor): number | undefined {
  try {
    parseJsonTree(text, flavor);
    return undefined;
  } catch (error) {
    return error instanceof JsonSyntaxError ? error.offset : undefined;
  }
}

function conciseReason(message: string): string {
  // V8 appends the position and a quote of the input; the caller reports the position itself.
  return message
    .replace(/ at position \d+( \(line \d+ column \d+\))?/, "")
    .replace(/ in JSON$/, "")
    .replace(/, ".*" is not valid JSON$/s, "")
    .replace(/, \.\.\..*$/s, "");
}

const JSON_WHITESPACE = /[ \t\n\r]/y;
const JSON5_WHITESPACE = /[\s\uFEFF]/uy;
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const JSON5_NUMBER =
  /[+-]?(?:0[xX][0-9a-fA-F]+|Infinity|NaN|(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)/y;
const JSON5_IDENTIFIER =
  /(?:[\p{ID_Start}$_]|\\u[0-9a-fA-F]{4})(?:[\p{ID_Continue}$\u200C\u200D]|\\u[0-9a-fA-F]{4})*/uy;

class Parser {
  pos = 0;

  constructor(readonly text: string, readonly json5: boolean) {}

  skipTrivia(): void {
    const text = this.text;
    for (;;) {
      const whitespace = this.json5 ? JSON5_WHITESPACE : JSON_WHITESPACE;
      whitespace.lastIndex = this.pos;
      if (this.pos === 0 && text.startsWith("\uFEFF")) {
        this.pos = 1;
        continue;
      }
      if (whitespace.test(text)) {
        this.pos = whitespace.lastIndex;
        continue;
      }
      if (this.json5 && text.startsWith("//", this.pos)) {
        const end = text.slice(this.pos).search(/[\n\r\u2028\u2029]/);
        this.pos = end === -1 ? text.length : this.pos + end;
        continue;
      }
      if (this.json5 && text.startsWith("/*", this.pos)) {
        const end = text.indexOf("*/", this.pos + 2);
        if (end === -1) throw new JsonSyntaxError("unterminated /* comment", this.pos);
        this.pos = end + 2;
        continue;
      }
      return;
    }
  }

  value(): JsonNode {
    const text = this.text;
    const char = text[this.pos];
    if (char === undefined) throw new JsonSyntaxError("unexpected end of input", this.pos);
    if (char === "{") return this.object();
    if (char === "[") return this.array();
    if (char === '"' || (this.json5 && char === "'")) {
      const start = this.pos;
      const value = this.string();
      return { kind: "scalar", value, start, end: this.pos };
    }
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, this.pos) && !/[\w$]/.test(text[this.pos + word.length] ?? "")) {
        const start = this.pos;
        this.pos += word.length;
        return { kind: "scalar", value, start, end: this.pos };
      }
    }
    const number = this.json5 ? JSON5_NUMBER : JSON_NUMBER;
    number.lastIndex = this.pos;
    const match = number.exec(text);
    if (match !== null && !/[\w$.]/.test(text[number.lastIndex] ?? "")) {
      const start = this.pos;
      this.pos = number.lastIndex;
      return { kind: "scalar", value: numberValue(match[0]), start, end: this.pos };
    }
    throw new JsonSyntaxError(`unexpected character ${JSON.stringify(char)}`, this.pos);
  }

  object(): JsonObjectNode {
    const start = this.pos;
    this.pos += 1;
    const members: JsonMember[] = [];
    this.skipTrivia();
    if (this.text[this.pos] === "}") {
      this.pos += 1;
      return { kind: "object", members, start, end: this.pos };
    }
    for (;;) {
      const keyStart = this.pos;
      const key = this.key();
      this.skipTrivia();
      if (this.text[this.pos] !== ":") {
        throw new JsonSyntaxError("expected ':' after the property name", this.pos);
      }
      this.pos += 1;
      this.skipTrivia();
      const value = this.value();
      const member: JsonMember = { key, keyStart, value, comma: -1 };
      members.push(member);
      this.skipTrivia();
      const char = this.text[this.pos];
      if (char === ",") {
        member.comma = this.pos;
        this.pos += 1;
        this.skipTrivia();
        if (this.text[this.pos] === "}") {
          if (!this.json5) throw new JsonSyntaxError("trailing comma before '}'", member.comma);
          this.pos += 1;
          return { kind: "object", members, start, end: this.pos };
        }
        continue;
      }
      if (char === "}") {
        this.pos += 1;
        return { kind: "object", members, start, end: this.pos };
      }
      if (char === undefined) throw new JsonSyntaxError("unexpected end of input", this.pos);
      throw new JsonSyntaxError("expected ',' or '}' after the property value", this.pos);
    }
  }

  array(): JsonArrayNode {
    const start = this.pos;
    this.pos += 1;
    const items: JsonNode[] = [];
    const commas: number[] = [];
    this.skipTrivia();
    if (this.text[this.pos] === "]") {
      this.pos += 1;
      return { kind: "array", items, commas, start, end: this.pos };
    }
    for (;;) {
      items.push(this.value());
      commas.push(-1);
      this.skipTrivia();
      const char = this.text[this.pos];
      if (char === ",") {
        commas[commas.length - 1] = this.pos;
        this.pos += 1;
        this.skipTrivia();
        if (this.text[this.pos] === "]") {
          if (!this.json5) {
            throw new JsonSyntaxError("trailing comma before ']'", commas[commas.length - 1]);
          }
          this.pos += 1;
          return { kind: "array", items, commas, start, end: this.pos };
        }
        continue;
      }
      if (char === "]") {
        this.pos += 1;
        return { kind: "array", items, commas, start, end: this.pos };
      }
      if (char === undefined) throw new JsonSyntaxError("unexpected end of input", this.pos);
      throw new JsonSyntaxError("expected ',' or ']' after the array item", this.pos);
    }
  }

  key(): string {
    const char = this.text[this.pos];
    if (char === '"' || (this.json5 && char === "'")) return this.string();
    if (this.json5) {
      JSON5_IDENTIFIER.lastIndex = this.pos;
      const match = JSON5_IDENTIFIER.exec(this.text);
      if (match !== null) {
        this.pos = JSON5_IDENTIFIER.lastIndex;
        return match[0].replace(
          /\\u([0-9a-fA-F]{4})/g,
          (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
        );
      }
    }
    if (char === undefined) throw new JsonSyntaxError("unexpected end of input", this.pos);
    throw new JsonSyntaxError(
      this.json5 ? "expected a property name" : "expected a double-quoted property name",
      this.pos,
    );
  }

  string(): string {
    const text = this.text;
    const quote = text[this.pos];
    const start = this.pos;
    this.pos += 1;
    let value = "";
    for (;;) {
      const char = text[this.pos];
      if (char === undefined) throw new JsonSyntaxError("unterminated string", start);
      if (char === quote) {
        this.pos += 1;
        return value;
      }
      if (char === "\\") {
        value += this.escape();
        continue;
      }
      const code = char.charCodeAt(0);
      if (code < 0x20 && !(this.json5 && char === "\t")) {
        throw new JsonSyntaxError("control character in a string (escape it)", this.pos);
      }
      value += char;
      this.pos += 1;
    }
  }

  escape(): string {
    const text = this.text;
    const at = this.pos;
    const char = text[this.pos + 1];
    this.pos += 2;
    switch (char) {
      case '"':
        return '"';
      case "\\":
        return "\\";
      case "/":
        return "/";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const hex = text.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JsonSyntaxError("bad \\u escape", at);
        this.pos += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      case undefined:
        throw new JsonSyntaxError("unterminated string", at);
    }
    if (!this.json5) throw new JsonSyntaxError(`bad escape \\${char}`, at);
    switch (char) {
      case "'":
        return "'";
      case "v":
        return "\v";
      case "0":
        if (/[0-9]/.test(text[this.pos] ?? "")) throw new JsonSyntaxError("bad escape \\0", at);
        return "\0";
      case "x": {
        const hex = text.slice(this.pos, this.pos + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new JsonSyntaxError("bad \\x escape", at);
        this.pos += 2;
        return String.fromCharCode(parseInt(hex, 16));
      }
      case "\r":
        if (text[this.pos] === "\n") this.pos += 1;
        return "";
      case "\n":
      case "\u2028":
      case "\u2029":
        return "";
    }
    if (/[1-9]/.test(char)) throw new JsonSyntaxError(`bad escape \\${char}`, at);
    return char;
  }
}

function numberValue(source: string): number {
  const sign = source.startsWith("-") ? -1 : 1;
  const unsigned = source.replace(/^[+-]/, "");
  if (unsigned === "Infinity") return sign * Infinity;
  if (unsigned === "NaN") return NaN;
  if (/^0[xX]/.test(unsigned)) return sign * parseInt(unsigned.slice(2), 16);
  return sign * Number(unsigned);
}
