/**
 * Snippets for search results: the few lines of a document that best cover the query, with
 * line numbers so an agent can jump straight to them.
 *
 * Line numbers in results are 1-based (as editors and grep show them); `lineIndex` arguments are
 * 0-based positions in {@linkcode splitLines}.
 *
 * @module
 */

/** A run of consecutive lines. */
export interface LineWindow {
  /** 1-based number of the first line. */
  startLine: number;
  /** 1-based number of the last line (inclusive). */
  endLine: number;
  /** The lines, without line terminators (long ones may be shortened in snippets). */
  lines: string[];
  /** The lines joined with `\n`. */
  text: string;
}

/** The best window for a query, from {@linkcode bestSnippet}. */
export interface Snippet extends LineWindow {
  /** 1-based numbers of lines in the window that contain at least one term. */
  matchLines: number[];
  /** Number of distinct terms found in the window (before context lines are added). */
  termsMatched: number;
  /** Ranking value: distinct terms dominate, then total occurrences; 0 when nothing matched. */
  score: number;
}

/** Options for {@linkcode bestSnippet}. */
export interface SnippetOptions {
  /** Lines in the scored window. Default 3. */
  windowLines?: number;
  /** Extra lines shown before and after the window. Default 0. */
  context?: number;
  /** Lines longer than this are cut around their first match (minified code). Default 240. */
  maxLineLength?: number;
  /** Match terms with exact case. Default false. */
  caseSensitive?: boolean;
}

/**
 * Splits text into lines on `\n` or `\r\n`. A final line terminator does not start an extra empty
 * line, so the count matches what editors show; empty text is one empty line.
 *
 * @example
 * ```ts
 * import { splitLines } from "./snippet.ts";
 *
 * splitLines("a\r\nb\n"); // ["a", "b"]
 * ```
 */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Lines `lineIndex - context` to `lineIndex + context`, clipped to the text.
 *
 * @example
 * ```ts
 * import { lineWindow } from "./snippet.ts";
 *
 * lineWindow("one\ntwo\nthree\nfour", 2, 1);
 * // { startLine: 2, endLine: 4, lines: ["two", "three", "four"], text: "two\nthree\nfour" }
 * ```
 */
export function lineWindow(text: string, lineIndex: number, context = 0): LineWindow {
  return windowOf(splitLines(text), lineIndex - context, lineIndex + context);
}

function windowOf(lines: string[], first: number, last: number): LineWindow {
  const start = Math.max(0, Math.min(first, lines.length - 1));
  const end = Math.max(start, Math.min(last, lines.length - 1));
  const slice = lines.slice(start, end + 1);
  return { startLine: start + 1, endLine: end + 1, lines: slice, text: slice.join("\n") };
}

const QUERY_OPERATORS = new Set(["AND", "OR", "NOT", "NEAR"]);

/**
 * Terms to look for from a free-text query: quoted phrases stay whole, other words are split on
 * punctuation, boolean operators (`AND`, `OR`, `NOT`) and one-letter words are dropped, and
 * duplicates are removed (case-insensitively).
 *
 * @example
 * ```ts
 * import { queryTerms } from "./snippet.ts";
 *
 * queryTerms('"refresh token" AND auth-middleware'); // ["refresh token", "auth", "middleware"]
 * ```
 */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  const add = (term: string) => {
    const key = term.toLowerCase();
    if (term.length < 2 || seen.has(key)) return;
    seen.add(key);
    terms.push(term);
  };
  const rest = query.replace(/"([^"]+)"/g, (_whole, phrase: string) => {
    add(phrase.trim().replace(/\s+/g, " "));
    return " ";
  });
  for (const match of rest.matchAll(/[\p{L}\p{N}_]+/gu)) {
    if (!QUERY_OPERATORS.has(match[0])) add(match[0]);
  }
  return terms;
}

// Occurrences of `term` in `line` (non-overlapping), capped because a line that repeats a term
// twenty times is not twenty times more relevant.
function countHits(line: string, term: string, cap: number): number {
  let hits = 0;
  let from = 0;
  while (hits < cap) {
    const at = line.indexOf(term, from);
    if (at === -1) break;
    hits++;
    from = at + term.length;
  }
  return hits;
}

function shorten(line: string, terms: string[], maxLength: number, caseSensitive: boolean): string {
  if (line.length <= maxLength) return line;
  const haystack = caseSensitive ? line : line.toLowerCase();
  let first = -1;
  for (const term of terms) {
    const at = haystack.indexOf(term);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  const start = first === -1
    ? 0
    : Math.max(0, Math.min(first - Math.floor(maxLength / 3), line.length - maxLength));
  const end = start + maxLength;
  return `${start > 0 ? "…" : ""}${line.slice(start, end)}${end < line.length ? "…" : ""}`;
}

/**
 * Finds the window of `windowLines` consecutive lines that contains the most distinct query
 * terms (ties: more occurrences, then the earliest), and returns it with `context` lines around
 * it. When no term occurs, the start of the text is returned with score 0, which still makes a
 * reasonable preview.
 *
 * @example
 * ```ts
 * import { bestSnippet } from "./snippet.ts";
 *
 * const text = "intro\n\nfunction refresh() {\n  return token;\n}\n";
 * const snippet = bestSnippet(text, "refresh token", { windowLines: 2 });
 * console.log(snippet.startLine, snippet.matchLines); // 3 [3, 4]
 * ```
 */
export function bestSnippet(
  text: string,
  terms: string | readonly string[],
  options: SnippetOptions = {},
): Snippet {
  const windowLines = Math.max(1, Math.floor(options.windowLines ?? 3));
  const context = Math.max(0, Math.floor(options.context ?? 0));
  const maxLineLength = Math.max(16, options.maxLineLength ?? 240);
  const caseSensitive = options.caseSensitive ?? false;
  const rawTerms = typeof terms === "string" ? queryTerms(terms) : terms.filter((t) => t !== "");
  const needles = [...new Set(caseSensitive ? rawTerms : rawTerms.map((t) => t.toLowerCase()))];
  const lines = splitLines(text);

  // hits[line * T + term]: occurrences of each term on each line.
  const termCount = needles.length;
  const hits = new Uint8Array(lines.length * termCount);
  const lineHasHit = new Uint8Array(lines.length);
  for (let l = 0; l < lines.length; l++) {
    const line = caseSensitive ? lines[l] : lines[l].toLowerCase();
    for (let t = 0; t < termCount; t++) {
      const count = countHits(line, needles[t], 5);
      hits[l * termCount + t] = count;
      if (count > 0) lineHasHit[l] = 1;
    }
  }

  // Slide the window, keeping per-term totals so each step costs O(terms).
  const inWindow = new Int32Array(termCount);
  let distinct = 0;
  let total = 0;
  let bestStart = 0;
  let bestScore = 0;
  let bestDistinct = 0;
  const score = (d: number, n: number) => (d === 0 ? 0 : d * 1000 + Math.min(n, 999));
  for (let l = 0; l < lines.length; l++) {
    for (let t = 0; t < termCount; t++) {
      const h = hits[l * termCount + t];
      if (h === 0) continue;
      if (inWindow[t] === 0) distinct++;
      inWindow[t] += h;
      total += h;
    }
    const leaving = l - windowLines;
    if (leaving >= 0) {
      for (let t = 0; t < termCount; t++) {
        const h = hits[leaving * termCount + t];
        if (h === 0) continue;
        inWindow[t] -= h;
        total -= h;
        if (inWindow[t] === 0) distinct--;
      }
    }
    const value = score(distinct, total);
    if (value > bestScore) {
      bestScore = value;
      bestDistinct = distinct;
      bestStart = Math.max(0, l - windowLines + 1);
    }
  }
  if (bestScore > 0) {
    // Pull the window forward onto its first matching line, so the match is not preceded by
    // lines that merely happened to fit in the window.
    while (bestStart < lines.length - 1 && lineHasHit[bestStart] === 0) bestStart++;
  }

  const bestEnd = Math.min(lines.length - 1, bestStart + windowLines - 1);
  const window = windowOf(lines, bestStart - context, bestEnd + context);
  const shown = window.lines.map((line) => shorten(line, needles, maxLineLength, caseSensitive));
  const matchLines: number[] = [];
  for (let l = bestStart; l <= bestEnd; l++) if (lineHasHit[l] === 1) matchLines.push(l + 1);
  return {
    startLine: window.startLine,
    endLine: window.endLine,
    lines: shown,
    text: shown.join("\n"),
    matchLines,
    termsMatched: bestDistinct,
    score: bestScore,
  };
}
