/**
 * Rust: `use` trees (expanded, aliases bound) and `mod` declarations; functions, structs, enums,
 * unions, traits (supertraits as inheritance) and type aliases; `impl` blocks as scopes for the
 * type's methods, `impl Trait for Type` as implementation; calls. Raw strings and the difference
 * between char literals and lifetimes are known to the masking.
 *
 * @module
 */
import { type LineRule, walkBraces } from "./braces.ts";
import { inCode, type LanguageRules, type Source } from "./facts.ts";
import { type Lexicon, maskSource } from "./mask.ts";
import type { NodeType } from "./types.ts";
import { columnOf, splitNames } from "./scan.ts";

const LEXICON: Lexicon = { starts: /["'/r]/g, comments: "c", rawStrings: true, charLiterals: true };

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

/** The rules for Rust. */
export const rustRules: LanguageRules = {
  mask: (text) => maskSource(text, LEXICON),
  extract(source) {
    extractRustImports(source);
    walkBraces(source, rustRule);
  },
};
