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
 * The rules for each language live in `code_graph/` (one module per language, registered in
 * `code_graph/languages.ts`, where adding a language is described); this module is the public
 * face: the types, {@linkcode languageFromPath} and {@linkcode extractCodeGraph}.
 *
 * @module
 */

import { posix } from "node:path";
import { assemble } from "./code_graph/assemble.ts";
import { Facts, LineIndex, type Source } from "./code_graph/facts.ts";
import { type CodeLanguage, languageOfExtension, rulesOf } from "./code_graph/languages.ts";

export type { CodeLanguage } from "./code_graph/languages.ts";
export type { CodeGraph, GraphEdge, GraphNode, NodeType, Relation } from "./code_graph/types.ts";
import type { CodeGraph } from "./code_graph/types.ts";

/** Options for {@linkcode extractCodeGraph}. */
export interface CodeGraphOptions {
  /** Language to apply; inferred from the path's extension when omitted. */
  language?: CodeLanguage;
}

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
  return dot > 0 ? languageOfExtension(name.slice(dot + 1)) : undefined;
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
  // A name the registry does not hold (from a caller without type checks) reads as unknown.
  const rules = language === undefined ? undefined : rulesOf(language);
  if (rules !== undefined) {
    const masked = rules.mask(text);
    const source: Source = {
      path: normalizedPath,
      text,
      masked,
      lines: masked.split("\n"),
      index: new LineIndex(text),
      facts,
    };
    rules.extract(source);
  }
  return assemble(normalizedPath, facts);
}
