/**
 * Identifier-aware tokenizing for operation search: `get_session_state`,
 * `getSessionState` and `session state` all become `get session state`.
 *
 * @module
 */

const STOPWORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "from",
  "in",
  "is",
  "it",
  "of",
  "on",
  "or",
  "that",
  "the",
  "this",
  "to",
  "with",
]);

/**
 * Splits text into lowercase word tokens, breaking identifiers at `_`, `.`,
 * `-`, `/`, case changes (`sessionState`, `HTTPServer`) and letter/digit
 * boundaries, and dropping a few English stop words.
 *
 * @example
 * ```ts
 * import { tokenize } from "./tokenize.ts";
 * tokenize("get_session_state"); // ["get", "session", "state"]
 * tokenize("sessionState"); // ["session", "state"]
 * ```
 */
export function tokenize(text: string): string[] {
  const spaced = text
    // lower→Upper and Upper→Upper-lower boundaries: "sessionState", "HTTPServer"
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/(\p{L})(\d)/gu, "$1 $2")
    .replace(/(\d)(\p{L})/gu, "$1 $2")
    .toLowerCase();
  const tokens: string[] = [];
  for (const word of spaced.split(/[^\p{L}\p{N}]+/u)) {
    if (word.length === 0 || STOPWORDS.has(word)) continue;
    tokens.push(word);
  }
  return tokens;
}
