/**
 * Relation extraction from source files without parsers: imports, definitions, inheritance,
 * calls and document links, found with per-language regular expressions over lines whose
 * comments and string contents have been blanked out.
 *
 * It is deliberately approximate (no type information, no cross-file resolution), in exchange
 * for zero dependencies and speed. Names defined elsewhere become `ref:<name>` nodes that a store
 * can later join to `symbol:` nodes of other files by name.
 *
 * Node keys: `file:<path>`, `symbol:<path>#<name>` (members as `Class.member`), `module:<spec>`,
 * `ref:<name>`, `url:<url>`, `wiki:<page>`. Lines are 1-based.
 *
 * @module
 */

import { posix } from "node:path";

/** Edge kinds, named as the graph query API spells them. */
export type Relation =
  | "IMPORTS"
  | "INCLUDES"
  | "DEFINES"
  | "CALLS"
  | "INHERITS"
  | "IMPLEMENTS"
  | "LINKS_TO";

/** Node kinds. */
export type NodeType =
  | "file"
  | "module"
  | "function"
  | "method"
  | "class"
  | "interface"
  | "struct"
  | "trait"
  | "enum"
  | "type"
  | "reference"
  | "url"
  | "wiki";

/** A graph node. Keys are unique within one {@linkcode CodeGraph}. */
export interface GraphNode {
  /** Stable identity, e.g. `symbol:src/a.ts#Parser.parse`. */
  key: string;
  /** What the node stands for. */
  type: NodeType;
  /** Display name: path, symbol name, module specifier, URL or page. */
  name: string;
  /** 1-based line where the node is defined or first mentioned in this file. */
  line: number;
}

/** A directed relation. At most one edge per (from, to, relation); `line` is the first seen. */
export interface GraphEdge {
  /** Key of the source node. */
  from: string;
  /** Key of the target node. */
  to: string;
  /** Relation kind. */
  relation: Relation;
  /** 1-based line where the relation appears. */
  line: number;
}

/** Nodes and edges extracted from one file. */
export interface CodeGraph {
  /** Every node referenced by an edge, plus the file itself and its definitions. */
  nodes: GraphNode[];
  /** Relations grouped by kind (imports, definitions, inheritance, calls, links), each in source order. */
  edges: GraphEdge[];
}

/** Languages with extraction rules. */
export type CodeLanguage =
  | "typescript"
  | "javascript"
  | "python"
  | "go"
  | "rust"
  | "c"
  | "cpp"
  | "java"
  | "markdown";

/** Options for {@linkcode extractCodeGraph}. */
export interface CodeGraphOptions {
  /** Language to apply; inferred from the path's extension when omitted. */
  language?: CodeLanguage;
}

const LANGUAGE_BY_EXTENSION: Record<string, CodeLanguage> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  py: "python",
  pyi: "python",
  go: "go",
  rs: "rust",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  hxx: "cpp",
  java: "java",
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
};

/**
 * Language implied by a file's extension, or `undefined` when there are no rules for it.
 *
 * @example
 * ```ts
 * import { languageFromPath } from "./code_graph.ts";
 *
 * languageFromPath("src/main.rs"); // "rust"
 * languageFromPath("notes.txt"); // undefined
 * ```
 */
export function languageFromPath(path: string): CodeLanguage | undefined {
  const name = posix.basename(path.replaceAll("\\", "/")).toLowerCase();
  const dot = name.lastIndexOf(".");
  return dot > 0 ? LANGUAGE_BY_EXTENSION[name.slice(dot + 1)] : undefined;
}

// ---------------------------------------------------------------------------------------------
// Masking: comments and string contents become spaces (newlines kept), so that regexes looking
// for definitions and calls never fire inside them and columns stay aligned with the source.

// Where masking has something to do: a comment, string or (Rust) raw-string start. Everything
// between two of these is copied as it is, so the scan jumps from one to the next.
const MASK_STARTS: Partial<Record<CodeLanguage, RegExp>> = {
  python: /["'#]/g,
  rust: /["'/r]/g,
  go: /["'`/]/g,
  typescript: /["'`/]/g,
  javascript: /["'`/]/g,
};
const MASK_STARTS_DEFAULT = /["'/]/g;

// Runs of spaces by length, made once: comments and strings are blanked by the thousand.
const SPACES: string[] = [];

function spaces(length: number): string {
  if (length >= 256) return " ".repeat(length);
  return SPACES[length] ??= " ".repeat(length);
}

function maskSource(text: string, language: CodeLanguage): string {
  // The masked text is the source with some ranges blanked, built from slices: far cheaper than
  // one string per character.
  const n = text.length;
  const parts: string[] = [];
  let copied = 0;
  const python = language === "python";
  const jsLike = language === "typescript" || language === "javascript";
  const blank = (from: number, to: number) => {
    if (to <= from) return;
    parts.push(text.slice(copied, from));
    // Most blanked runs (line comments, strings) hold no newline: they become spaces alone.
    const newline = text.indexOf("\n", from);
    parts.push(
      newline === -1 || newline >= to
        ? spaces(to - from)
        : text.slice(from, to).replace(/[^\n]/g, " "),
    );
    copied = to;
  };
  const starts = MASK_STARTS[language] ?? MASK_STARTS_DEFAULT;
  let i = 0;
  while (i < n) {
    starts.lastIndex = i;
    const found = starts.exec(text);
    if (found === null) break;
    i = found.index;
    const c = text[i];
    const next = text[i + 1];
    if (!python && c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (!python && c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? n : end + 2;
      blank(i, stop);
      i = stop;
    } else if (python && c === "#") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (python && (c === '"' || c === "'") && text[i + 1] === c && text[i + 2] === c) {
      // Triple-quoted: the quotes stay, the contents go.
      const end = text.indexOf(c + c + c, i + 3);
      const stop = end === -1 ? n : end + 3;
      blank(i + 3, Math.max(i + 3, stop - 3));
      i = stop;
    } else if (
      language === "rust" && c === "r" && (next === "#" || next === '"') &&
      !/[\w]/.test(text[i - 1] ?? "")
    ) {
      // Raw string r#"..."#: ends at a quote followed by the same number of hashes.
      let hashes = 0;
      while (text[i + 1 + hashes] === "#") hashes++;
      if (text[i + 1 + hashes] !== '"') {
        i++;
        continue;
      }
      const closing = '"' + "#".repeat(hashes);
      const end = text.indexOf(closing, i + 2 + hashes);
      const stop = end === -1 ? n : end + closing.length;
      blank(i + 2 + hashes, stop);
      i = stop;
    } else if (language === "rust" && c === "'") {
      // A quote starts a char literal only when one (possibly escaped) character and a closing
      // quote follow; otherwise it is a lifetime such as 'a.
      const literal = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/.exec(
        text.slice(i, i + 12),
      );
      if (literal) {
        blank(i + 1, i + literal[0].length - 1);
        i += literal[0].length;
      } else {
        i++;
      }
    } else if (c === '"' || c === "'" || (c === "`" && (jsLike || language === "go"))) {
      // Strings end at the matching quote; only template literals and Go raw strings span lines.
      const multiline = c === "`";
      const escapes = !(c === "`" && language === "go");
      let k = i + 1;
      while (k < n && text[k] !== c) {
        if (text[k] === "\n" && !multiline) break;
        // An escaped character is blanked with its backslash (an escaped newline stays one).
        if (escapes && text[k] === "\\" && k + 1 < n) k++;
        k++;
      }
      blank(i + 1, k);
      if (k < n && text[k] === c) k++;
      i = k;
    } else {
      i++;
    }
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join("");
}

// ---------------------------------------------------------------------------------------------
// Collected facts, resolved into nodes and edges once the whole file has been read (a call may
// name a function defined further down).

interface Definition {
  /** Qualified name: `name` or `Container.name`. */
  name: string;
  type: NodeType;
  line: number;
  /** Name of the enclosing class-like symbol, if any. */
  container?: string;
}

interface Heritage {
  from: string;
  target: string;
  relation: "INHERITS" | "IMPLEMENTS";
  line: number;
}

interface Call {
  /** Qualified name of the calling definition; undefined means file level. */
  from?: string;
  name: string;
  /** Identifier before `.`, `::` or `->`; "?" when the receiver is an expression. */
  receiver?: string;
  /** Enclosing class-like scope, for implicit `this` and `self.` calls. */
  className?: string;
  line: number;
}

interface ImportBinding {
  /** What the name refers to in the other module (the imported name, or the module itself). */
  target: string;
}

class Facts {
  readonly definitions: Definition[] = [];
  readonly heritage: Heritage[] = [];
  readonly calls: Call[] = [];
  readonly imports: { spec: string; line: number; relation: "IMPORTS" | "INCLUDES" }[] = [];
  readonly bindings = new Map<string, ImportBinding>();
  readonly links: { key: string; type: NodeType; name: string; line: number }[] = [];

  define(definition: Definition): void {
    this.definitions.push(definition);
  }

  importModule(spec: string, line: number, relation: "IMPORTS" | "INCLUDES" = "IMPORTS"): void {
    if (spec) this.imports.push({ spec, line, relation });
  }

  bind(local: string, target: string): void {
    if (local && !this.bindings.has(local)) this.bindings.set(local, { target });
  }
}

class LineIndex {
  readonly #starts: number[] = [0];
  constructor(text: string) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
      this.#starts.push(i + 1);
    }
  }
  /** 1-based line of a character offset. */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  }
}

interface Source {
  path: string;
  text: string;
  masked: string;
  lines: string[];
  index: LineIndex;
  facts: Facts;
}

/** True when the match at `offset` lies in code, not inside a comment or string. */
function inCode(source: Source, offset: number): boolean {
  return source.masked[offset] === source.text[offset] && source.text[offset] !== " ";
}

// Generic arguments may contain commas; drop them before splitting a list of base types.
function stripGenerics(text: string): string {
  let out = text;
  let previous;
  do {
    previous = out;
    out = out.replace(/<[^<>]*>/g, "").replace(/\[[^[\]]*\]/g, "");
  } while (out !== previous);
  return out;
}

function splitNames(list: string, separator: RegExp = /,/): string[] {
  return stripGenerics(list)
    .split(separator)
    .map((part) => part.trim().replace(/^(?:public|private|protected|virtual|\s)+/, "").trim())
    .map((part) => part.replace(/\(.*$/, "").trim())
    .filter((part) => /^[A-Za-z_$][\w$.:]*$/.test(part));
}

// ---------------------------------------------------------------------------------------------
// Scope walking for brace languages: definitions come from per-language line rules; braces
// decide where their bodies end, which tells calls which function they are in.

type ScopeKind = "class" | "function";

interface LineContext {
  /** Enclosing class-like scope when the line sits directly in its body. */
  classBody?: string;
  /** True when some enclosing scope is a function body. */
  inFunction: boolean;
  /** Brace depth at the start of the line. */
  depth: number;
  /** Open parentheses and brackets at the start of the line (a continued expression). */
  nesting: number;
}

interface FoundDefinition {
  name: string;
  type: NodeType;
  /** Column of the name, so the definition is not also counted as a call. */
  column: number;
  /** Scope opened by the following `{`, if any. */
  opens?: ScopeKind;
  /** Only a definition if a body follows (C prototypes and forward declarations are not). */
  needsBody?: boolean;
  /** Explicit container (Go receiver, C++ `A::f`); defaults to the class body the line is in. */
  container?: string;
  /** Set for Rust `impl X` blocks: a scope for an existing type, not a new definition. */
  scopeOnly?: boolean;
  inherits?: string[];
  implements?: string[];
}

type LineRule = (line: string, context: LineContext) => FoundDefinition[];

interface Scope {
  kind: ScopeKind;
  name: string;
  depth: number;
  /** Class-like owner of a method scope (C++ `A::f` bodies sit outside the class braces). */
  owner?: string;
}

/** `[\w$]`: an ASCII letter, digit, `_` or `$`. */
function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 ||
    c === 36;
}

/** `\s` as regexes read it, for the characters source code holds. */
function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0xfeff || c === 0x2028 ||
    c === 0x2029 || (c >= 0x2000 && c <= 0x200a) || c === 0x1680 || c === 0x202f ||
    c === 0x205f || c === 0x3000;
}
const RECEIVER_RE = /(?:([A-Za-z_$][\w$]*)|[)\]>])\s*(?:\?\.|\.|::|->)\s*$/;

function collectCalls(
  line: string,
  excluded: Set<number>,
): { column: number; name: string; receiver?: string }[] {
  const found: { column: number; name: string; receiver?: string }[] = [];
  // Every call has a "(": from each one, back over spaces to the name before it. (A regex for
  // `name\s*\(` retries inside every identifier that is not a call, quadratic in its length.)
  for (let paren = line.indexOf("("); paren !== -1; paren = line.indexOf("(", paren + 1)) {
    let end = paren;
    while (end > 0 && isSpaceCode(line.charCodeAt(end - 1))) end--;
    let start = end;
    while (start > 0 && isWordCode(line.charCodeAt(start - 1))) start--;
    // A name starts with a letter, `_` or `$`; a run that starts with a digit is a number, or a
    // name glued to one, which is part of a longer token.
    if (start === end) continue;
    const first = line.charCodeAt(start);
    if (first >= 48 && first <= 57) continue;
    const column = start;
    if (excluded.has(column)) continue;
    const name = line.slice(start, end);
    // A receiver needs `.`, `?.`, `::` or `->` right before the name (spaces aside): only then is
    // the regex worth running.
    let last = column - 1;
    while (last >= 0 && isSpaceCode(line.charCodeAt(last))) last--;
    const operator = last >= 0 ? line.charCodeAt(last) : 0;
    const receiver = operator === 46 || operator === 58 || operator === 62 // . : >
      ? RECEIVER_RE.exec(line.slice(Math.max(0, column - 120), column))
      : null;
    found.push({ column, name, receiver: receiver ? (receiver[1] ?? "?") : undefined });
  }
  return found;
}

function walkBraces(source: Source, rule: LineRule): void {
  const { lines, facts } = source;
  const stack: Scope[] = [];
  let depth = 0;
  // Parentheses and brackets open across lines: a line inside them continues an expression and
  // cannot start a definition.
  let nesting = 0;
  let pending: { def: FoundDefinition; line: number; depth: number; committed: boolean }[] = [];

  const innermost = (kind: ScopeKind) => {
    for (let k = stack.length - 1; k >= 0; k--) if (stack[k].kind === kind) return stack[k];
    return undefined;
  };
  const commit = (def: FoundDefinition, line: number, container: string | undefined) => {
    let name = def.name;
    if (!def.scopeOnly) {
      const owner = def.container ?? container;
      name = owner ? `${owner}.${def.name}` : def.name;
      // The scope this definition opens is named after the qualified name and knows its owner.
      def.name = name;
      def.container = owner;
      facts.define({ name, type: def.type, line, container: owner });
    }
    for (const base of def.inherits ?? []) {
      facts.heritage.push({ from: name, target: base, relation: "INHERITS", line });
    }
    for (const base of def.implements ?? []) {
      facts.heritage.push({ from: name, target: base, relation: "IMPLEMENTS", line });
    }
  };

  for (let li = 0; li < lines.length; li++) {
    const line = lines[li];
    const lineNo = li + 1;
    const top = stack[stack.length - 1];
    const context: LineContext = {
      classBody: top && top.kind === "class" && top.depth === depth ? top.name : undefined,
      inFunction: innermost("function") !== undefined,
      depth,
      nesting,
    };
    const defs = rule(line, context);
    const excluded = new Set<number>();
    for (const def of defs) {
      excluded.add(def.column);
      const container = context.classBody;
      if (def.needsBody) {
        pending.push({ def, line: lineNo, depth, committed: false });
        if (def.container === undefined && container) def.container = container;
      } else {
        commit(def, lineNo, container);
        if (def.opens) pending.push({ def, line: lineNo, depth, committed: true });
      }
    }
    // Definitions without a body on this line give way to the next definition line.
    if (defs.length > 0) {
      pending = pending.filter((p) => p.line === lineNo);
    }

    const calls = collectCalls(line, excluded);
    let nextCall = 0;
    // Calls are recorded in the scope in force where they stand, so each is flushed just before
    // the first brace or bracket at or after its column.
    const flushCalls = (upTo: number) => {
      while (nextCall < calls.length && calls[nextCall].column <= upTo) {
        const call = calls[nextCall++];
        const fn = innermost("function");
        facts.calls.push({
          from: fn?.name,
          name: call.name,
          receiver: call.receiver,
          className: fn?.owner ?? innermost("class")?.name,
          line: lineNo,
        });
      }
    };
    STRUCTURE_RE.lastIndex = 0;
    for (let found = STRUCTURE_RE.exec(line); found !== null; found = STRUCTURE_RE.exec(line)) {
      const col = found.index;
      flushCalls(col);
      const c = line[col];
      if (c === "{") {
        depth++;
        // A brace inside parentheses (a type literal, a default argument) is not a body.
        const opener = nesting === 0 ? pending.find((p) => p.depth === depth - 1) : undefined;
        if (opener) {
          if (!opener.committed) commit(opener.def, opener.line, undefined);
          if (opener.def.opens) {
            stack.push({
              kind: opener.def.opens,
              name: opener.def.name,
              depth,
              owner: opener.def.container,
            });
          }
          pending = pending.filter((p) => p !== opener && p.depth !== depth - 1);
        }
      } else if (c === "}") {
        while (stack.length > 0 && stack[stack.length - 1].depth >= depth) stack.pop();
        depth = Math.max(0, depth - 1);
      } else if (c === ";") {
        if (nesting === 0) pending = pending.filter((p) => p.depth !== depth);
      } else if (c === "(" || c === "[") {
        nesting++;
      } else {
        nesting = Math.max(0, nesting - 1);
      }
    }
    flushCalls(line.length);
  }
}

/** The characters that change scope or nesting. */
const STRUCTURE_RE = /[{}();[\]]/g;

// ---------------------------------------------------------------------------------------------
// TypeScript / JavaScript

const JS_NAME = "[A-Za-z_$][\\w$]*";
const JS_CLASS = new RegExp(
  `^\\s*(?:export\\s+)?(?:default\\s+)?(?:declare\\s+)?(?:abstract\\s+)?class\\s+(${JS_NAME})`,
  "d",
);
const JS_INTERFACE = new RegExp(
  `^\\s*(?:export\\s+)?(?:declare\\s+)?interface\\s+(${JS_NAME})`,
  "d",
);
const JS_FUNCTION = new RegExp(
  `^\\s*(?:export\\s+)?(?:default\\s+)?(?:declare\\s+)?(?:async\\s+)?function\\s*\\*?\\s*(${JS_NAME})`,
  "d",
);
const JS_ARROW = new RegExp(
  `^\\s*(?:export\\s+)?(?:const|let|var)\\s+(${JS_NAME})\\s*(?::[^=]+)?=\\s*(?:async\\s+)?` +
    `(?:function\\b|\\([^)]*\\)\\s*(?::[^=]*)?=>|${JS_NAME}\\s*=>|\\(\\s*$)`,
  "d",
);
const JS_TYPE = new RegExp(
  `^\\s*(?:export\\s+)?(?:declare\\s+)?type\\s+(${JS_NAME})\\s*(?:<[^=]*>)?\\s*=`,
  "d",
);
const JS_ENUM = new RegExp(
  `^\\s*(?:export\\s+)?(?:declare\\s+)?(?:const\\s+)?enum\\s+(${JS_NAME})`,
  "d",
);
const JS_MODIFIERS =
  "(?:(?:public|private|protected|static|readonly|async|override|abstract|declare|get|set|accessor)\\s+)*";
const JS_METHOD = new RegExp(
  `^\\s*${JS_MODIFIERS}\\*?\\s*(#?${JS_NAME})\\s*(?:<[^>]*>)?\\s*\\(`,
  "d",
);
const JS_FIELD_FUNCTION = new RegExp(
  `^\\s*${JS_MODIFIERS}(#?${JS_NAME})\\s*(?::[^=]+)?=\\s*(?:async\\s+)?` +
    `(?:function\\b|\\([^)]*\\)\\s*(?::[^=]*)?=>|${JS_NAME}\\s*=>)`,
  "d",
);
const JS_NOT_METHODS = new Set(["if", "for", "while", "switch", "catch", "return", "function"]);

// Definition regexes carry the `d` flag, so group positions are exact even when the name text
// also occurs earlier in the match.
function columnOf(line: string, match: RegExpExecArray, group = 1): number {
  return match.indices?.[group]?.[0] ?? line.indexOf(match[group], match.index);
}

const jsRule: LineRule = (line, context) => {
  if (context.nesting > 0) return [];
  let match: RegExpExecArray | null;
  // Each definition regex needs a keyword or character the line must contain; checking for it
  // first skips most regexes on most lines.
  if (line.includes("class") && (match = JS_CLASS.exec(line))) {
    const rest = stripGenerics(line.slice(columnOf(line, match) + match[1].length));
    const extendsMatch = /\bextends\s+([\w$.]+)/.exec(rest);
    const implementsMatch = /\bimplements\s+([^{]+)/.exec(rest);
    return [{
      name: match[1],
      type: "class",
      column: columnOf(line, match),
      opens: "class",
      inherits: extendsMatch ? [extendsMatch[1]] : [],
      implements: implementsMatch ? splitNames(implementsMatch[1]) : [],
    }];
  }
  if (line.includes("interface") && (match = JS_INTERFACE.exec(line))) {
    const rest = line.slice(columnOf(line, match) + match[1].length).replace(/^\s*<[^{]*?>/, "");
    const extendsMatch = /\bextends\s+([^{]+)/.exec(rest);
    return [{
      name: match[1],
      type: "interface",
      column: columnOf(line, match),
      opens: "class",
      inherits: extendsMatch ? splitNames(extendsMatch[1]) : [],
    }];
  }
  // Arrow functions count only at module level; inside functions they are local values.
  if (
    (match = (line.includes("function") ? JS_FUNCTION.exec(line) : null) ??
      (context.inFunction || !line.includes("=") ? null : JS_ARROW.exec(line)))
  ) {
    if (context.classBody) return [];
    return [{ name: match[1], type: "function", column: columnOf(line, match), opens: "function" }];
  }
  if (line.includes("type") && (match = JS_TYPE.exec(line))) {
    return [{ name: match[1], type: "type", column: columnOf(line, match) }];
  }
  if (line.includes("enum") && (match = JS_ENUM.exec(line))) {
    return [{ name: match[1], type: "enum", column: columnOf(line, match) }];
  }
  if (context.classBody) {
    match = (line.includes("=") ? JS_FIELD_FUNCTION.exec(line) : null) ??
      (line.includes("(") ? JS_METHOD.exec(line) : null);
    if (match && !JS_NOT_METHODS.has(match[1])) {
      return [{ name: match[1], type: "method", column: columnOf(line, match), opens: "function" }];
    }
  }
  return [];
};

function extractJsImports(source: Source): void {
  const { text, facts, index } = source;
  const bindingList = (clause: string, spec: string) => {
    const trimmed = clause.replace(/^type\s+/, "").trim();
    const braces = /\{([^}]*)\}/.exec(trimmed);
    if (braces) {
      for (const part of braces[1].split(",")) {
        const item = part.trim().replace(/^type\s+/, "");
        if (!item) continue;
        const [imported, local] = item.split(/\s+as\s+/);
        facts.bind((local ?? imported).trim(), imported.trim());
      }
    }
    const namespace = /\*\s*as\s+([\w$]+)/.exec(trimmed);
    if (namespace) facts.bind(namespace[1], spec);
    const defaultName = /^([\w$]+)\s*(?:,|$)/.exec(trimmed);
    if (defaultName) facts.bind(defaultName[1], "default");
  };
  const staticImport =
    /\b(import|export)\s+((?:type\s+)?[\w$*{}\s,]*?)\s*from\s*(["'])([^"'\n]+)\3/g;
  for (const match of text.matchAll(staticImport)) {
    if (!inCode(source, match.index)) continue;
    facts.importModule(match[4], index.lineOf(match.index));
    if (match[1] === "import") bindingList(match[2], match[4]);
  }
  const imports = text.includes("import");
  const requires = text.includes("require");
  for (const match of imports ? text.matchAll(/\bimport\s*(["'])([^"'\n]+)\1/g) : []) {
    if (inCode(source, match.index)) facts.importModule(match[2], index.lineOf(match.index));
  }
  const dynamic =
    /(?:\b(?:const|let|var)\s+([\w$]+|\{[^}]*\})\s*=\s*)?(?:await\s+)?\b(require|import)\s*\(\s*(["'])([^"'\n]+)\3\s*\)/g;
  // The dynamic form has an optional lead, so it is tried at every position: only worth it when
  // a call of require or import( can be there at all.
  const dynamicPossible = requires || (imports && /\bimport\s*\(/.test(text));
  for (const match of dynamicPossible ? text.matchAll(dynamic) : []) {
    const at = match.index + match[0].indexOf(match[2]);
    if (!inCode(source, at)) continue;
    facts.importModule(match[4], index.lineOf(at));
    const target = match[1];
    if (target?.startsWith("{")) {
      for (const part of target.slice(1, -1).split(",")) {
        const [imported, local] = part.split(":").map((s) => s.trim());
        if (imported) facts.bind(local || imported, imported);
      }
    } else if (target) {
      facts.bind(target, match[4]);
    }
  }
  for (
    const match of requires
      ? text.matchAll(/\bimport\s+([\w$]+)\s*=\s*require\s*\(\s*(["'])([^"'\n]+)\2/g)
      : []
  ) {
    if (!inCode(source, match.index)) continue;
    facts.importModule(match[3], index.lineOf(match.index));
    facts.bind(match[1], match[3]);
  }
}

// ---------------------------------------------------------------------------------------------
// Python: scopes follow indentation rather than braces.

function extractPython(source: Source): void {
  const { text, lines, facts, index } = source;
  for (const match of text.matchAll(/^[ \t]*from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^\n]+)/gm)) {
    const at = match.index + match[0].indexOf("from");
    if (!inCode(source, at)) continue;
    facts.importModule(match[1], index.lineOf(at));
    const names = source.masked.slice(at, match.index + match[0].length)
      .replace(/^from\s+[\w.]+\s+import\s+/, "")
      .replace(/[()\\]/g, " ");
    for (const part of names.split(",")) {
      const [imported, local] = part.trim().split(/\s+as\s+/);
      if (imported && imported !== "*") facts.bind((local ?? imported).trim(), imported.trim());
    }
  }
  for (const match of text.matchAll(/^[ \t]*import\s+([^\n#]+)/gm)) {
    const at = match.index + match[0].indexOf("import");
    if (!inCode(source, at)) continue;
    for (const part of match[1].split(",")) {
      const [module, local] = part.trim().split(/\s+as\s+/);
      if (!module || !/^[\w.]+$/.test(module.trim())) continue;
      facts.importModule(module.trim(), index.lineOf(at));
      // `import a.b` binds `a`; `import a.b as c` binds `c` to the full module.
      if (local) facts.bind(local.trim(), module.trim());
      else facts.bind(module.trim().split(".")[0], module.trim().split(".")[0]);
    }
  }

  const stack: { indent: number; name: string; kind: ScopeKind }[] = [];
  let nesting = 0;
  for (let li = 0; li < lines.length; li++) {
    const line = lines[li];
    const lineNo = li + 1;
    const excluded = new Set<number>();
    if (nesting === 0 && line.trim() !== "") {
      const indent = /^[ \t]*/.exec(line)![0].replace(/\t/g, "        ").length;
      while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
      const owner = stack.length > 0 && stack[stack.length - 1].kind === "class"
        ? stack[stack.length - 1].name
        : undefined;
      const def = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/d.exec(line);
      const cls = /^\s*class\s+([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*:/d.exec(line);
      if (def) {
        const name = owner ? `${owner}.${def[1]}` : def[1];
        facts.define({ name, type: owner ? "method" : "function", line: lineNo, container: owner });
        excluded.add(columnOf(line, def));
        stack.push({ indent, name, kind: "function" });
      } else if (cls) {
        const name = owner ? `${owner}.${cls[1]}` : cls[1];
        facts.define({ name, type: "class", line: lineNo, container: owner });
        excluded.add(columnOf(line, cls));
        const bases = (cls[2] ?? "").split(",").map((b) => b.trim())
          .filter((b) => b && !b.includes("=") && b !== "object")
          .map((b) => b.replace(/\[.*$/, ""));
        for (const base of bases) {
          facts.heritage.push({ from: name, target: base, relation: "INHERITS", line: lineNo });
        }
        stack.push({ indent, name, kind: "class" });
      }
    }
    const fn = [...stack].reverse().find((s) => s.kind === "function");
    const cls = [...stack].reverse().find((s) => s.kind === "class");
    for (const call of collectCalls(line, excluded)) {
      facts.calls.push({
        from: fn?.name,
        name: call.name,
        receiver: call.receiver,
        className: cls?.name,
        line: lineNo,
      });
    }
    for (const c of line) {
      if (c === "(" || c === "[" || c === "{") nesting++;
      else if (c === ")" || c === "]" || c === "}") nesting = Math.max(0, nesting - 1);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Go

function extractGoImports(source: Source): void {
  const { text, facts, index } = source;
  const addSpec = (alias: string | undefined, spec: string, at: number) => {
    facts.importModule(spec, index.lineOf(at));
    if (alias === "_" || alias === ".") return;
    const segments = spec.split("/");
    let name = segments[segments.length - 1];
    // Major-version suffixes (`/v2`) are not part of the package name.
    if (/^v\d+$/.test(name) && segments.length > 1) name = segments[segments.length - 2];
    facts.bind(alias ?? name.replace(/^go-/, "").replace(/[.-]/g, "_"), spec);
  };
  for (const match of text.matchAll(/\bimport\s*\(([^)]*)\)/g)) {
    if (!inCode(source, match.index)) continue;
    const body = match[1];
    const bodyStart = match.index + match[0].indexOf("(") + 1;
    for (const spec of body.matchAll(/(?:([\w.]+)\s+)?"([^"\n]+)"/g)) {
      addSpec(spec[1], spec[2], bodyStart + spec.index);
    }
  }
  for (const match of text.matchAll(/\bimport\s+(?:([\w.]+)\s+)?"([^"\n]+)"/g)) {
    if (inCode(source, match.index)) addSpec(match[1], match[2], match.index);
  }
}

function goRule(): LineRule {
  let inTypeBlock = false;
  return (line, context) => {
    if (/^type\s*\(\s*$/.test(line)) {
      inTypeBlock = true;
      return [];
    }
    if (inTypeBlock && /^\)/.test(line)) inTypeBlock = false;
    // Inside `type ( ... )` the parenthesis is open, yet its lines are declarations.
    if (context.nesting > (inTypeBlock ? 1 : 0)) return [];
    let match: RegExpExecArray | null;
    if (
      (match =
        /^func\s*\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*([A-Za-z_]\w*)\s*[[(]/d
          .exec(line))
    ) {
      return [{
        name: match[2],
        type: "method",
        column: columnOf(line, match, 2),
        opens: "function",
        container: match[1],
      }];
    }
    if ((match = /^func\s+([A-Za-z_]\w*)\s*[[(]/d.exec(line))) {
      return [{
        name: match[1],
        type: "function",
        column: columnOf(line, match),
        opens: "function",
      }];
    }
    const typeLine = /^type\s+([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*(=\s*)?(.*)$/d.exec(line) ??
      (inTypeBlock && context.depth === 0
        ? /^\s+([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*(=\s*)?(.*)$/d.exec(line)
        : null);
    if (typeLine) {
      const kind = /^(struct|interface)\s*\{/.exec(typeLine[3]);
      if (kind) {
        return [{
          name: typeLine[1],
          type: kind[1] === "struct" ? "struct" : "interface",
          column: columnOf(line, typeLine),
          opens: "class",
        }];
      }
      return [{ name: typeLine[1], type: "type", column: columnOf(line, typeLine) }];
    }
    if (context.classBody) {
      // Embedded types (a lone type name in a struct or interface body) are Go's inheritance.
      const embedded = /^\s*\*?([A-Za-z_][\w.]*)\s*(?:`[^`]*`)?\s*$/.exec(line);
      if (embedded) {
        return [{
          name: context.classBody,
          type: "type",
          column: -1,
          scopeOnly: true,
          inherits: [embedded[1]],
        }];
      }
      const method = /^\s*([A-Za-z_]\w*)\s*\(/d.exec(line);
      if (method) return [{ name: method[1], type: "method", column: columnOf(line, method) }];
    }
    return [];
  };
}

// ---------------------------------------------------------------------------------------------
// Rust

// Expands `a::{b, c::{d, e as f}, self}` into full paths; an alias is kept as `path@alias`.
function expandUseTree(tree: string): string[] {
  const text = tree.replace(/\s+as\s+/g, "@").replace(/\s+/g, "");
  const open = text.indexOf("{");
  if (open === -1) return [text];
  let depth = 0;
  let close = -1;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close === -1) return [text];
  const prefix = text.slice(0, open);
  const parts: string[] = [];
  let start = open + 1;
  depth = 0;
  for (let i = open + 1; i < close; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start, close));
  return parts.filter((p) => p !== "").flatMap((part) =>
    expandUseTree(part).map((leaf) => leaf === "self" ? prefix.replace(/::$/, "") : prefix + leaf)
  );
}

function extractRustImports(source: Source): void {
  const { text, facts, index } = source;
  for (const match of text.matchAll(/\buse\s+([^;]+);/g)) {
    if (!inCode(source, match.index)) continue;
    const line = index.lineOf(match.index);
    for (const path of expandUseTree(match[1])) {
      const [full, alias] = path.split("@");
      const module = full.endsWith("::*") ? full.slice(0, -3) : full;
      facts.importModule(module, line);
      if (!full.endsWith("::*")) {
        const segments = module.split("::");
        facts.bind(alias ?? segments[segments.length - 1], module);
      }
    }
  }
  for (const match of text.matchAll(/^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*;/gm)) {
    const at = match.index + match[0].indexOf("mod");
    if (inCode(source, at)) facts.importModule(match[1], index.lineOf(at));
  }
}

const RUST_VISIBILITY = "(?:pub(?:\\s*\\([^)]*\\))?\\s+)?";
const RUST_FN = new RegExp(
  `^\\s*${RUST_VISIBILITY}(?:(?:const|async|unsafe|default|extern(?:\\s+"[^"]*")?)\\s+)*fn\\s+([A-Za-z_]\\w*)`,
  "d",
);
const RUST_TYPE = new RegExp(
  `^\\s*${RUST_VISIBILITY}(struct|enum|union|trait|type)\\s+([A-Za-z_]\\w*)`,
  "d",
);
const RUST_IMPL =
  /^\s*(?:unsafe\s+)?impl\b(?:\s*<[^{]*?>)?\s+(?:(!?[\w:]+)(?:<[^{]*?>)?\s+for\s+)?([\w:]+)/d;

const rustRule: LineRule = (line, context) => {
  if (context.nesting > 0) return [];
  let match: RegExpExecArray | null;
  if ((match = RUST_FN.exec(line))) {
    return [{
      name: match[1],
      type: context.classBody ? "method" : "function",
      column: columnOf(line, match),
      opens: "function",
    }];
  }
  if ((match = RUST_TYPE.exec(line))) {
    const keyword = match[1];
    const column = columnOf(line, match, 2);
    if (keyword === "trait") {
      const rest = line.slice(column + match[2].length);
      const supertraits = /^\s*(?:<[^>]*>)?\s*:\s*([^{]+)/.exec(rest);
      const bases = supertraits
        ? splitNames(supertraits[1].replace(/'\w+/g, ""), /\+/).filter((b) => b !== "")
        : [];
      return [{ name: match[2], type: "trait", column, opens: "class", inherits: bases }];
    }
    const type: NodeType = keyword === "enum" ? "enum" : keyword === "type" ? "type" : "struct";
    return [{ name: match[2], type, column }];
  }
  if ((match = RUST_IMPL.exec(line))) {
    const lastSegment = (path: string) => path.split("::").pop() ?? path;
    const typeName = lastSegment(match[2]);
    const trait = match[1] && !match[1].startsWith("!") ? lastSegment(match[1]) : undefined;
    return [{
      name: typeName,
      type: "struct",
      column: columnOf(line, match, 2),
      opens: "class",
      scopeOnly: true,
      implements: trait ? [trait] : [],
    }];
  }
  return [];
};

// ---------------------------------------------------------------------------------------------
// C and C++

const C_NOT_FUNCTIONS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "return",
  "sizeof",
  "alignof",
  "decltype",
  "catch",
  "else",
  "do",
  "case",
  "defined",
  "static_assert",
  "new",
  "delete",
  "throw",
  "typeid",
]);
const C_CLASS =
  /^\s*(?:typedef\s+)?(?:template\s*<.*>\s*)?(class|struct|union)\s+(?:[A-Z_][A-Z0-9_]*\s+)?([A-Za-z_]\w*)\s*(?:final\s*)?(?::\s*([^{;]+?))?\s*(?:\{.*)?$/d;
const C_ENUM =
  /^\s*(?:typedef\s+)?enum\s+(?:class\s+|struct\s+)?([A-Za-z_]\w*)\s*(?::\s*[\w:\s]+)?\s*(?:\{.*)?$/d;
const C_FUNCTION =
  /^\s*(?:template\s*<.*>\s*)?((?:[A-Za-z_][\w:<>,*&\s]*?[\s*&])?)((?:[A-Za-z_]\w*::)*~?[A-Za-z_]\w*)\s*\(/d;

const cRule: LineRule = (line, context) => {
  if (context.nesting > 0) return [];
  let match: RegExpExecArray | null;
  if (/^\s*#/.test(line)) return [];
  if ((match = C_CLASS.exec(line))) {
    return [{
      name: match[2],
      type: match[1] === "class" ? "class" : "struct",
      column: columnOf(line, match, 2),
      opens: "class",
      needsBody: true,
      inherits: match[3] ? splitNames(match[3]) : [],
    }];
  }
  if ((match = C_ENUM.exec(line))) {
    return [{ name: match[1], type: "enum", column: columnOf(line, match), needsBody: true }];
  }
  if (context.inFunction) return [];
  if ((match = C_FUNCTION.exec(line))) {
    const prefix = match[1].trim();
    const qualified = match[2];
    const simple = qualified.split("::").pop() ?? qualified;
    if (
      C_NOT_FUNCTIONS.has(simple) || /\b(?:return|else|new|delete|throw|case|goto)\b/.test(prefix)
    ) {
      return [];
    }
    // Without a return type only a constructor-like name inside a class body, or a line at file
    // level, can define a function; elsewhere it is a statement.
    if (prefix === "" && context.depth > 0 && !context.classBody && !qualified.includes("::")) {
      return [];
    }
    const segments = qualified.split("::");
    const container = segments.length > 1 ? segments[segments.length - 2] : undefined;
    const inClass = context.classBody !== undefined || container !== undefined;
    return [{
      name: simple,
      type: inClass ? "method" : "function",
      column: columnOf(line, match, 2) + qualified.length - simple.length,
      opens: "function",
      needsBody: context.classBody === undefined,
      container,
    }];
  }
  return [];
};

function extractIncludes(source: Source): void {
  const { text, facts, index } = source;
  for (const match of text.matchAll(/^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]/gm)) {
    const at = match.index + match[0].indexOf("#");
    if (inCode(source, at)) facts.importModule(match[2].trim(), index.lineOf(at), "INCLUDES");
  }
}

// ---------------------------------------------------------------------------------------------
// Java

const JAVA_MODIFIERS =
  "(?:(?:public|protected|private|static|final|abstract|sealed|non-sealed|strictfp|synchronized|native|default)\\s+)*";
const JAVA_TYPE = new RegExp(
  `^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*${JAVA_MODIFIERS}(class|interface|enum|record|@interface)\\s+([A-Za-z_]\\w*)`,
  "d",
);
const JAVA_METHOD = new RegExp(
  `^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*${JAVA_MODIFIERS}(?:<[^>]+>\\s+)?([\\w.]+(?:\\s*<[^()]*>)?(?:\\s*\\[\\])*)\\s+([A-Za-z_]\\w*)\\s*\\(`,
  "d",
);
const JAVA_CONSTRUCTOR = new RegExp(`^\\s*${JAVA_MODIFIERS}([A-Z]\\w*)\\s*\\(`, "d");

const javaRule: LineRule = (line, context) => {
  if (context.nesting > 0) return [];
  let match: RegExpExecArray | null;
  if ((match = JAVA_TYPE.exec(line))) {
    const keyword = match[1];
    const column = columnOf(line, match, 2);
    const rest = stripGenerics(line.slice(column + match[2].length));
    const extendsMatch = /\bextends\s+(.+?)(?=\bimplements\b|\{|$)/.exec(rest);
    const implementsMatch = /\bimplements\s+([^{]+)/.exec(rest);
    const type: NodeType = keyword === "class" || keyword === "record"
      ? "class"
      : keyword === "enum"
      ? "enum"
      : "interface";
    return [{
      name: match[2],
      type,
      column,
      opens: "class",
      inherits: extendsMatch ? splitNames(extendsMatch[1]) : [],
      implements: implementsMatch ? splitNames(implementsMatch[1]) : [],
    }];
  }
  if (!context.classBody) return [];
  match = JAVA_METHOD.exec(line);
  if (match && !/^(?:return|new|else|throw)$/.test(match[1]) && !C_NOT_FUNCTIONS.has(match[2])) {
    return [{
      name: match[2],
      type: "method",
      column: columnOf(line, match, 2),
      opens: "function",
    }];
  }
  match = JAVA_CONSTRUCTOR.exec(line);
  if (match && context.classBody.split(".").pop() === match[1]) {
    return [{ name: match[1], type: "method", column: columnOf(line, match), opens: "function" }];
  }
  return [];
};

function extractJavaImports(source: Source): void {
  const { text, facts, index } = source;
  for (const match of text.matchAll(/^\s*import\s+(?:static\s+)?([\w.]+(?:\.\*)?)\s*;/gm)) {
    const at = match.index + match[0].indexOf("import");
    if (!inCode(source, at)) continue;
    const spec = match[1];
    facts.importModule(spec, index.lineOf(at));
    if (!spec.endsWith(".*")) facts.bind(spec.split(".").pop() ?? spec, spec);
  }
}

// ---------------------------------------------------------------------------------------------
// Markdown

function maskMarkdown(text: string): string {
  const lines = text.split("\n");
  let fence: string | undefined;
  return lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (marker) {
      if (fence === undefined) fence = marker[1];
      else if (marker[1][0] === fence[0] && marker[1].length >= fence.length) fence = undefined;
      return " ".repeat(line.length);
    }
    if (fence !== undefined) return " ".repeat(line.length);
    return line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (code) => " ".repeat(code.length));
  }).join("\n");
}

function extractMarkdown(source: Source): void {
  const { path, masked, facts, index } = source;
  const directory = posix.dirname(path);
  const addTarget = (rawTarget: string, at: number) => {
    const target = rawTarget.trim().replace(/^<|>$/g, "");
    if (target === "" || target.startsWith("#")) return;
    const line = index.lineOf(at);
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(target)) {
      facts.links.push({ key: `url:${target}`, type: "url", name: target, line });
      return;
    }
    let local = target.replace(/[#?].*$/, "");
    try {
      local = decodeURI(local);
    } catch {
      // Keep the raw text when it is not valid percent-encoding.
    }
    const resolved = local.startsWith("/")
      ? posix.normalize(local.slice(1))
      : posix.normalize(posix.join(directory, local));
    facts.links.push({ key: `file:${resolved}`, type: "file", name: resolved, line });
  };
  for (
    const match of masked.matchAll(
      /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+["'(][^)]*)?\)/g,
    )
  ) {
    addTarget(match[1], match.index);
  }
  for (const match of masked.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm)) {
    addTarget(match[1], match.index);
  }
  for (const match of masked.matchAll(/<((?:https?|mailto|ftp):[^>\s]+)>/g)) {
    addTarget(match[1], match.index);
  }
  for (const match of masked.matchAll(/\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g)) {
    const page = match[1].trim();
    if (page) {
      facts.links.push({
        key: `wiki:${page}`,
        type: "wiki",
        name: page,
        line: index.lineOf(match.index),
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Assembly

class GraphBuilder {
  readonly nodes = new Map<string, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();

  node(key: string, type: NodeType, name: string, line: number): string {
    if (!this.nodes.has(key)) this.nodes.set(key, { key, type, name, line });
    return key;
  }

  edge(from: string, to: string, relation: Relation, line: number): void {
    const id = `${from}\u0000${to}\u0000${relation}`;
    if (!this.edges.has(id)) this.edges.set(id, { from, to, relation, line });
  }
}

function assemble(path: string, facts: Facts): CodeGraph {
  const graph = new GraphBuilder();
  const fileKey = graph.node(`file:${path}`, "file", path, 1);
  const symbolKey = (name: string) => `symbol:${path}#${name}`;
  const defined = new Map<string, Definition>();
  for (const definition of facts.definitions) {
    if (!defined.has(definition.name)) defined.set(definition.name, definition);
  }
  const membersByName = new Map<string, string[]>();
  for (const name of defined.keys()) {
    const dot = name.lastIndexOf(".");
    if (dot === -1) continue;
    const simple = name.slice(dot + 1);
    membersByName.set(simple, [...(membersByName.get(simple) ?? []), name]);
  }

  for (const spec of [...facts.imports].sort((a, b) => a.line - b.line)) {
    const moduleKey = graph.node(`module:${spec.spec}`, "module", spec.spec, spec.line);
    graph.edge(fileKey, moduleKey, spec.relation, spec.line);
  }
  for (const definition of defined.values()) {
    const key = graph.node(
      symbolKey(definition.name),
      definition.type,
      definition.name,
      definition.line,
    );
    const owner = definition.container !== undefined && defined.has(definition.container)
      ? symbolKey(definition.container)
      : fileKey;
    graph.edge(owner, key, "DEFINES", definition.line);
  }

  const resolveName = (name: string, line: number): string => {
    if (defined.has(name)) return symbolKey(name);
    const binding = facts.bindings.get(name);
    const target = binding && binding.target !== "default" ? binding.target : name;
    return graph.node(`ref:${target}`, "reference", target, line);
  };
  for (const relation of facts.heritage) {
    const from = resolveName(relation.from, relation.line);
    graph.edge(from, resolveName(relation.target, relation.line), relation.relation, relation.line);
  }

  const resolveCall = (call: Call): string | undefined => {
    const { name, receiver, className } = call;
    if (receiver === undefined) {
      if (defined.get(name)?.container === undefined && defined.has(name)) return symbolKey(name);
      if (className && defined.has(`${className}.${name}`)) {
        return symbolKey(`${className}.${name}`);
      }
      if (defined.has(name)) return symbolKey(name);
      const binding = facts.bindings.get(name);
      if (binding) {
        const target = binding.target === "default" ? name : binding.target;
        return graph.node(`ref:${target}`, "reference", target, call.line);
      }
      return undefined;
    }
    if (receiver === "this" || receiver === "self" || receiver === "Self") {
      const member = className ? `${className}.${name}` : undefined;
      return member && defined.has(member) ? symbolKey(member) : undefined;
    }
    if (defined.has(`${receiver}.${name}`)) return symbolKey(`${receiver}.${name}`);
    const binding = facts.bindings.get(receiver);
    if (binding) {
      const base = binding.target === "default" ? receiver : binding.target;
      const target = `${base}.${name}`;
      return graph.node(`ref:${target}`, "reference", target, call.line);
    }
    // A method called on some variable: only trust it when one member has that name.
    const candidates = membersByName.get(name);
    return candidates?.length === 1 ? symbolKey(candidates[0]) : undefined;
  };
  for (const call of facts.calls) {
    const to = resolveCall(call);
    if (!to) continue;
    const from = call.from !== undefined && defined.has(call.from) ? symbolKey(call.from) : fileKey;
    graph.edge(from, to, "CALLS", call.line);
  }

  for (const link of [...facts.links].sort((a, b) => a.line - b.line)) {
    const key = graph.node(link.key, link.type, link.name, link.line);
    if (key !== fileKey) graph.edge(fileKey, key, "LINKS_TO", link.line);
  }
  return { nodes: [...graph.nodes.values()], edges: [...graph.edges.values()] };
}

/**
 * Extracts imports, definitions, inheritance, calls and links from one file.
 *
 * Calls are kept only when they name something defined in the same file or imported into it,
 * which filters out keywords and library noise. Returns just the file node when the language is
 * unknown.
 *
 * @example
 * ```ts
 * import { extractCodeGraph } from "./code_graph.ts";
 *
 * const graph = extractCodeGraph(
 *   "src/app.ts",
 *   'import { parse } from "./parser.ts";\nexport function main() {\n  return parse("x");\n}\n',
 * );
 * graph.edges.map((e) => `${e.relation} ${e.to}`);
 * // ["IMPORTS module:./parser.ts", "DEFINES symbol:src/app.ts#main", "CALLS ref:parse"]
 * ```
 */
export function extractCodeGraph(
  path: string,
  text: string,
  options: CodeGraphOptions = {},
): CodeGraph {
  const normalizedPath = path.replaceAll("\\", "/");
  const language = options.language ?? languageFromPath(normalizedPath);
  const facts = new Facts();
  if (language !== undefined) {
    const masked = language === "markdown" ? maskMarkdown(text) : maskSource(text, language);
    const source: Source = {
      path: normalizedPath,
      text,
      masked,
      lines: masked.split("\n"),
      index: new LineIndex(text),
      facts,
    };
    switch (language) {
      case "typescript":
      case "javascript":
        extractJsImports(source);
        walkBraces(source, jsRule);
        break;
      case "python":
        extractPython(source);
        break;
      case "go":
        extractGoImports(source);
        walkBraces(source, goRule());
        break;
      case "rust":
        extractRustImports(source);
        walkBraces(source, rustRule);
        break;
      case "c":
      case "cpp":
        extractIncludes(source);
        walkBraces(source, cRule);
        break;
      case "java":
        extractJavaImports(source);
        walkBraces(source, javaRule);
        break;
      case "markdown":
        extractMarkdown(source);
        break;
    }
  }
  return assemble(normalizedPath, facts);
}
