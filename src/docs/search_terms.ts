/**
 * Turning a free-text query into index lookups: the terms a keyword search
 * ORs together (quoted, so FTS5 syntax in a query is never interpreted), and
 * the trigram similarity fuzzy search uses to find vocabulary words close to
 * a misspelt term.
 *
 * @module
 */
import { STOPWORDS } from "./hashed_embedder.ts";

const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * The terms of a query: quoted phrases kept whole, other words lowercased,
 * stopwords dropped (unless nothing else is left), duplicates removed.
 *
 * @example
 * ```ts
 * import { queryKeywords } from "./search_terms.ts";
 * queryKeywords('what is the "refresh token" flow'); // ["refresh token", "flow"]
 * ```
 */
export function queryKeywords(query: string): string[] {
  const phrases: string[] = [];
  const rest = query.replace(/"([^"]+)"/g, (_whole, phrase: string) => {
    const words = [...phrase.toLowerCase().matchAll(WORD)].map((m) => m[0]);
    if (words.length > 0) phrases.push(words.join(" "));
    return " ";
  });
  const words = [...rest.toLowerCase().matchAll(WORD)].map((m) => m[0]);
  const content = words.filter((word) => !STOPWORDS.has(word));
  const chosen = [...phrases, ...(content.length > 0 || phrases.length > 0 ? content : words)];
  return [...new Set(chosen)];
}

/**
 * An FTS5 MATCH expression matching any of `terms` (each quoted).
 *
 * @example
 * ```ts
 * import { anyTermExpression } from "./search_terms.ts";
 * anyTermExpression(["auth", "refresh token"]); // '"auth" OR "refresh token"'
 * ```
 */
export function anyTermExpression(terms: readonly string[]): string {
  return terms.map(quote).join(" OR ");
}

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * The trigrams of a word, padded so its start and end count (`"  w"`, `" wo"`…).
 *
 * @example
 * ```ts
 * import { trigrams } from "./search_terms.ts";
 * [...trigrams("ab")]; // ["  a", " ab", "ab "]
 * ```
 */
export function trigrams(word: string): Set<string> {
  const padded = `  ${word.toLowerCase()} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return out;
}

/**
 * Dice similarity of two words' padded trigram sets, from 0 (nothing shared)
 * to 1 (same word).
 *
 * @example
 * ```ts
 * import { trigramSimilarity } from "./search_terms.ts";
 * trigramSimilarity("optimization", "optimisation") > 0.7; // true
 * ```
 */
export function trigramSimilarity(a: string, b: string): number {
  const left = trigrams(a);
  const right = trigrams(b);
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared++;
  return (2 * shared) / (left.size + right.size);
}

/**
 * A trigram-index MATCH expression finding words that share any unpadded
 * trigram with `word`; undefined when the word is shorter than three letters.
 */
export function sharedTrigramExpression(word: string): string | undefined {
  const lower = word.toLowerCase();
  if (lower.length < 3) return undefined;
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= lower.length; i++) grams.add(lower.slice(i, i + 3));
  return [...grams].map(quote).join(" OR ");
}
