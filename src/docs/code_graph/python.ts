/**
 * Python: `import` and `from … import` (aliases bound), classes with their bases, functions and
 * methods, calls. Scopes follow indentation rather than braces.
 *
 * @module
 */
import type { ScopeKind } from "./braces.ts";
import { inCode, type LanguageRules, type Source } from "./facts.ts";
import { type Lexicon, maskSource } from "./mask.ts";
import { collectCalls, columnOf } from "./scan.ts";

const LEXICON: Lexicon = { starts: /["'#]/g, comments: "hash", tripleQuotes: true };

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

/** The rules for Python. */
export const pythonRules: LanguageRules = {
  mask: (text) => maskSource(text, LEXICON),
  extract: extractPython,
};
