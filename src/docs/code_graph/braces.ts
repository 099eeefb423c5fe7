/**
 * Scope walking for brace languages: definitions come from per-language line rules; braces
 * decide where their bodies end, which tells calls which function they are in.
 *
 * @module
 */
import type { Source } from "./facts.ts";
import type { NodeType } from "./types.ts";
import { collectCalls } from "./scan.ts";

/** What a scope is the body of. */
export type ScopeKind = "class" | "function";

/** Where a line stands, as a line rule needs to know. */
export interface LineContext {
  /** Enclosing class-like scope when the line sits directly in its body. */
  classBody?: string;
  /** True when some enclosing scope is a function body. */
  inFunction: boolean;
  /** Brace depth at the start of the line. */
  depth: number;
  /** Open parentheses and brackets at the start of the line (a continued expression). */
  nesting: number;
}

/** A definition a line rule found. */
export interface FoundDefinition {
  /** The name as written (qualified by its container when committed). */
  name: string;
  /** What kind of symbol. */
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
  /** Base types it extends. */
  inherits?: string[];
  /** Interfaces or traits it implements. */
  implements?: string[];
}

/** A language's definitions on one masked line. */
export type LineRule = (line: string, context: LineContext) => FoundDefinition[];

interface Scope {
  kind: ScopeKind;
  name: string;
  depth: number;
  /** Class-like owner of a method scope (C++ `A::f` bodies sit outside the class braces). */
  owner?: string;
}

/**
 * Reads a brace language's masked lines: definitions from `rule`, scopes from braces, and the
 * calls of each line recorded in the function (and class) they stand in.
 */
export function walkBraces(source: Source, rule: LineRule): void {
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
