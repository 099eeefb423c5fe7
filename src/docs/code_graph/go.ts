/**
 * Go: imports (package names bound, aliases, `/vN` suffixes), functions, methods with their
 * receiver type, structs, interfaces and other types (`type ( … )` blocks too), embedded types
 * as inheritance, calls. Backquoted strings are raw and span lines.
 *
 * @module
 */
import { type LineRule, walkBraces } from "./braces.ts";
import { inCode, type LanguageRules, type Source } from "./facts.ts";
import { type Lexicon, maskSource } from "./mask.ts";
import { columnOf } from "./scan.ts";

const LEXICON: Lexicon = { starts: /["'`/]/g, comments: "c", backquotes: "raw" };

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

/** The rules for Go. */
export const goRules: LanguageRules = {
  mask: (text) => maskSource(text, LEXICON),
  extract(source) {
    extractGoImports(source);
    // A type block's state lasts one file: each file gets its own rule.
    walkBraces(source, goRule());
  },
};
