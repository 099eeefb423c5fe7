/**
 * TypeScript and JavaScript: ES module, CommonJS and dynamic imports; classes, interfaces,
 * functions (arrow functions at module level), types, enums and methods; `extends` and
 * `implements`; calls. Template literals span lines.
 *
 * @module
 */
import { type LineRule, walkBraces } from "./braces.ts";
import { inCode, type LanguageRules, type Source } from "./facts.ts";
import { type Lexicon, maskSource } from "./mask.ts";
import { columnOf, splitNames, stripGenerics } from "./scan.ts";

const LEXICON: Lexicon = { starts: /["'`/]/g, comments: "c", backquotes: "template" };

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

/** The rules for TypeScript and JavaScript (one grammar for both). */
export const typescriptRules: LanguageRules = {
  mask: (text) => maskSource(text, LEXICON),
  extract(source) {
    extractJsImports(source);
    walkBraces(source, jsRule);
  },
};
