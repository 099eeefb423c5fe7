/**
 * C and C++: `#include`s; classes, structs, unions and enums (with base classes); functions and
 * methods, `A::f` definitions outside their class included, but not prototypes or forward
 * declarations (only a definition with a body counts); calls.
 *
 * @module
 */
import { type LineRule, walkBraces } from "./braces.ts";
import { inCode, type LanguageRules, type Source } from "./facts.ts";
import { C_LEXICON, maskSource } from "./mask.ts";
import { C_FAMILY_KEYWORDS, columnOf, splitNames } from "./scan.ts";

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
      C_FAMILY_KEYWORDS.has(simple) || /\b(?:return|else|new|delete|throw|case|goto)\b/.test(prefix)
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

/** The rules for C and C++ (one set for both). */
export const cRules: LanguageRules = {
  mask: (text) => maskSource(text, C_LEXICON),
  extract(source) {
    extractIncludes(source);
    walkBraces(source, cRule);
  },
};
