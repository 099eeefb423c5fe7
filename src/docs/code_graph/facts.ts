/**
 * What a language module reads from a file, kept as facts (definitions, heritage, calls,
 * imports, links) and resolved into nodes and edges only once the whole file has been read: a
 * call may name a function defined further down. Also the source as the language modules see it.
 *
 * @module
 */
import type { NodeType } from "./types.ts";

/** A symbol the file defines. */
export interface Definition {
  /** Qualified name: `name` or `Container.name`. */
  name: string;
  /** What kind of symbol. */
  type: NodeType;
  /** 1-based line of the definition. */
  line: number;
  /** Name of the enclosing class-like symbol, if any. */
  container?: string;
}

/** A base type or implemented interface named by a definition. */
export interface Heritage {
  /** Qualified name of the definition. */
  from: string;
  /** The base's name as written. */
  target: string;
  /** Extends or implements. */
  relation: "INHERITS" | "IMPLEMENTS";
  /** 1-based line. */
  line: number;
}

/** A call found in the file, resolved by name once every definition is known. */
export interface Call {
  /** Qualified name of the calling definition; undefined means file level. */
  from?: string;
  /** The called name. */
  name: string;
  /** Identifier before `.`, `::` or `->`; "?" when the receiver is an expression. */
  receiver?: string;
  /** Enclosing class-like scope, for implicit `this` and `self.` calls. */
  className?: string;
  /** 1-based line. */
  line: number;
}

/** What a local name imported into the file stands for. */
export interface ImportBinding {
  /** What the name refers to in the other module (the imported name, or the module itself). */
  target: string;
}

/** Everything a language module found in one file, in the order found. */
export class Facts {
  /** Definitions; the first of a name wins. */
  readonly definitions: Definition[] = [];
  /** Inheritance and implementation. */
  readonly heritage: Heritage[] = [];
  /** Calls, in source order. */
  readonly calls: Call[] = [];
  /** Imported modules and included headers. */
  readonly imports: { spec: string; line: number; relation: "IMPORTS" | "INCLUDES" }[] = [];
  /** Local names bound by imports; the first binding of a name wins. */
  readonly bindings: Map<string, ImportBinding> = new Map();
  /** Document links (Markdown). */
  readonly links: { key: string; type: NodeType; name: string; line: number }[] = [];

  /** Records a definition. */
  define(definition: Definition): void {
    this.definitions.push(definition);
  }

  /** Records an import (an empty specifier is ignored). */
  importModule(spec: string, line: number, relation: "IMPORTS" | "INCLUDES" = "IMPORTS"): void {
    if (spec) this.imports.push({ spec, line, relation });
  }

  /** Binds a local name to what it imports, unless it is bound already. */
  bind(local: string, target: string): void {
    if (local && !this.bindings.has(local)) this.bindings.set(local, { target });
  }
}

/** Finds the line of a character offset by binary search over line starts. */
export class LineIndex {
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

/** One file as a language module reads it. */
export interface Source {
  /** Path with forward slashes. */
  path: string;
  /** The text as given. */
  text: string;
  /** The text with comments and string contents blanked, offsets unchanged. */
  masked: string;
  /** The masked text's lines. */
  lines: string[];
  /** Line lookup for offsets into `text` (and `masked`). */
  index: LineIndex;
  /** Where the module records what it finds. */
  facts: Facts;
}

/**
 * What a language module provides: how its comments and strings are blanked, and how a masked
 * file is read into facts.
 */
export interface LanguageRules {
  /** The text with comments and string contents turned into spaces (newlines kept). */
  mask(text: string): string;
  /** Reads imports, definitions, heritage, calls or links into `source.facts`. */
  extract(source: Source): void;
}

/** True when the match at `offset` lies in code, not inside a comment or string. */
export function inCode(source: Source, offset: number): boolean {
  return source.masked[offset] === source.text[offset] && source.text[offset] !== " ";
}
