/**
 * The registry of languages the code graph reads: each one's file extensions and rules.
 *
 * Adding a language:
 * 1. Write `src/docs/code_graph/<language>.ts` exporting a {@linkcode LanguageRules}: `mask`
 *    (usually `maskSource` with a `Lexicon` saying how the language writes comments and
 *    strings) and `extract`, which records what it finds in `source.facts` (imports with
 *    `importModule` and `bind`, definitions, heritage and calls; a brace language gets scopes and
 *    calls from `walkBraces` with a `LineRule` for its definitions). Shared helpers are in
 *    `scan.ts`.
 * 2. Add one line to {@linkcode LANGUAGES} below: the language's name, its extensions, its rules.
 *    The name becomes a `CodeLanguage`.
 * 3. Add a file to `tests/fixtures/code_graph/` and its digest to
 *    `tests/docs/code_graph/corpus_test.ts`, and cases beside the other languages' tests.
 *
 * @module
 */
import { cRules } from "./c.ts";
import type { LanguageRules } from "./facts.ts";
import { goRules } from "./go.ts";
import { javaRules } from "./java.ts";
import { markdownRules } from "./markdown.ts";
import { pythonRules } from "./python.ts";
import { rustRules } from "./rust.ts";
import { typescriptRules } from "./typescript.ts";

/** A language in the registry. */
export interface LanguageEntry {
  /** File extensions, lower case, without the dot. */
  extensions: readonly string[];
  /** How its files are masked and read. */
  rules: LanguageRules;
}

/** Every language with extraction rules, by name. */
export const LANGUAGES = {
  typescript: { extensions: ["ts", "tsx", "mts", "cts"], rules: typescriptRules },
  javascript: { extensions: ["js", "jsx", "mjs", "cjs"], rules: typescriptRules },
  python: { extensions: ["py", "pyi"], rules: pythonRules },
  go: { extensions: ["go"], rules: goRules },
  rust: { extensions: ["rs"], rules: rustRules },
  c: { extensions: ["c", "h"], rules: cRules },
  cpp: { extensions: ["cc", "cpp", "cxx", "hpp", "hh", "hxx"], rules: cRules },
  java: { extensions: ["java"], rules: javaRules },
  markdown: { extensions: ["md", "markdown", "mdx"], rules: markdownRules },
} as const satisfies Record<string, LanguageEntry>;

/** Languages with extraction rules. */
export type CodeLanguage = keyof typeof LANGUAGES;

const BY_EXTENSION: ReadonlyMap<string, CodeLanguage> = new Map(
  (Object.keys(LANGUAGES) as CodeLanguage[]).flatMap((language) =>
    LANGUAGES[language].extensions.map((extension) => [extension, language] as const)
  ),
);

/** The language of a lower-case extension (no dot), if it has rules. */
export function languageOfExtension(extension: string): CodeLanguage | undefined {
  return BY_EXTENSION.get(extension);
}

/** The rules of `language`, or `undefined` for a name the registry does not hold. */
export function rulesOf(language: string): LanguageRules | undefined {
  return Object.hasOwn(LANGUAGES, language) ? LANGUAGES[language as CodeLanguage].rules : undefined;
}
