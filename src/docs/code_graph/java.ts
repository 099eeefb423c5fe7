/**
 * Java: imports (static and on-demand too; single types bound); classes, interfaces, enums,
 * records and annotation types with `extends` and `implements`; methods and constructors; calls.
 *
 * @module
 */
import { type LineRule, walkBraces } from "./braces.ts";
import { inCode, type LanguageRules, type Source } from "./facts.ts";
import { C_LEXICON, maskSource } from "./mask.ts";
import type { NodeType } from "./types.ts";
import { C_FAMILY_KEYWORDS, columnOf, splitNames, stripGenerics } from "./scan.ts";

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
  if (match && !/^(?:return|new|else|throw)$/.test(match[1]) && !C_FAMILY_KEYWORDS.has(match[2])) {
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

/** The rules for Java. */
export const javaRules: LanguageRules = {
  mask: (text) => maskSource(text, C_LEXICON),
  extract(source) {
    extractJavaImports(source);
    walkBraces(source, javaRule);
  },
};
