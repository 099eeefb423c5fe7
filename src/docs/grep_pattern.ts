/**
 * A caller's grep pattern compiled for RE2JS, a linear-time engine: matching
 * costs time proportional to the text (times the pattern's size), never the
 * exponential backtracking of JavaScript's own RegExp, so a pattern such as
 * `(a+)+$` cannot hold the process. Constructs only backtracking can run
 * (backreferences, lookahead, lookbehind) are refused by name.
 *
 * @module
 */
import { RE2JS, RE2JSException } from "re2js";
import { VantageError } from "../core/errors.ts";

/** How a pattern is read. */
export interface GrepPatternOptions {
  /** Match regardless of case (Unicode case folding). */
  ignoreCase?: boolean;
  /** Match whole words only: no letter, digit or `_` right before or after the match. */
  word?: boolean;
  /** The pattern is plain text, not a regular expression. */
  literal?: boolean;
}

/** A compiled grep pattern. */
export interface GrepMatcher {
  /** The caller's pattern. */
  readonly pattern: string;
  /** The compiled program's size in instructions (matching time per character grows with it). */
  readonly programSize: number;
  /** How many characters one call of a test method may be given (see {@linkcode scanCharsFor}). */
  readonly scanChars: number;
  /** Whether one line (without its line break) matches. */
  testLine(line: string): boolean;
  /**
   * Whether some line of `block` (lines joined by `\n`) may match: false only when none does, so
   * a block that answers false needs no line-by-line look.
   */
  testBlock(block: string): boolean;
  /**
   * Whether `piece`, a part of one long line, holds a match. `before`/`after` say that the line
   * goes on past the piece's first/last character: that character is then context only (it
   * settles `^`, `$` and word edges) and no match may use it.
   */
  testPiece(piece: string, before: boolean, after: boolean): boolean;
}

/** Largest compiled program accepted; the cost of each character scanned grows with it. */
export const MAX_PROGRAM_SIZE = 10_000;

/** Time one scan may take under the cost model of {@linkcode scanCharsFor}. */
const SCAN_BUDGET_NS = 10_000_000;

/**
 * How many characters one scan may cover so that it stays near 10 ms even on the engine's slow
 * paths, under a cost model of 2,000 ns + 2 ns per program instruction per character. Measured
 * here: RE2JS's NFA costs 1.1–1.4 ns per instruction per character (programs of 1,000–46,000
 * instructions); a small program whose lazy DFA keeps filling and clearing its state cache (such
 * as `(?i)a[ab]{25}c` over random a/b text) costs up to 1.5–2.6 µs per character. Benign patterns
 * run 10 to 1,000 times faster than the model, so for them the bound only adds per-call overhead.
 * Garbage collection of a large DFA cache (15–50 ms scavenges measured) is outside any scan.
 *
 * @example
 * ```ts
 * import { scanCharsFor } from "./grep_pattern.ts";
 *
 * scanCharsFor(10); // 4950
 * ```
 */
export function scanCharsFor(programSize: number): number {
  return Math.max(256, Math.floor(SCAN_BUDGET_NS / (2000 + 2 * programSize)));
}

/** What may touch a whole-word match: anything but a letter, digit or `_` (any script). */
const NOT_WORD_CHAR = String.raw`[^\p{L}\p{N}_]`;

/**
 * Compiles a caller's pattern, or throws an `invalid_arguments` VantageError naming what is wrong:
 * a construct RE2 cannot run, a syntax error, or a program over {@linkcode MAX_PROGRAM_SIZE}.
 *
 * @example
 * ```ts
 * import { compileGrepPattern } from "./grep_pattern.ts";
 *
 * const matcher = compileGrepPattern("(a+)+$");
 * matcher.testLine("aaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"); // false, at once
 * compileGrepPattern("caf", { word: true }).testLine("café"); // false
 * ```
 */
export function compileGrepPattern(pattern: string, options: GrepPatternOptions = {}): GrepMatcher {
  const translated = options.literal === true
    ? { source: RE2JS.quote(pattern), setsMultiline: false }
    : translatePattern(pattern);
  compileOrExplain(pattern, translated.source, 0);
  // Consuming the neighbouring character (or meeting the line's edge) stands in for lookaround;
  // grep only asks whether a line matches, so what a match consumes does not matter.
  const body = options.word === true
    ? `(?:^|${NOT_WORD_CHAR})(?:${translated.source})(?:${NOT_WORD_CHAR}|$)`
    : translated.source;
  const flags = options.ignoreCase === true ? RE2JS.CASE_INSENSITIVE : 0;
  const line = compileOrExplain(pattern, body, flags);
  const programSize = line.programSize();
  if (programSize > MAX_PROGRAM_SIZE) {
    throw new VantageError(
      "invalid_arguments",
      `pattern '${
        clip(pattern)
      }' compiles to ${programSize} instructions; the limit is ${MAX_PROGRAM_SIZE}, because matching time per character grows with the program (use fewer or smaller repetitions and alternatives)`,
      { details: { pattern, program_size: programSize, limit: MAX_PROGRAM_SIZE } },
    );
  }
  // A pattern that switches multiline matching off itself would see a block as one line.
  const block = translated.setsMultiline ? undefined : RE2JS.compile(body, flags | RE2JS.MULTILINE);
  const pieces = new Map<number, RE2JS>();
  const piece = (before: boolean, after: boolean): RE2JS => {
    const key = (before ? 1 : 0) | (after ? 2 : 0);
    let compiled = pieces.get(key);
    if (compiled === undefined) {
      compiled = RE2JS.compile(
        `${before ? "(?s:.)" : ""}(?:${body})${after ? "(?s:.)" : ""}`,
        flags,
      );
      pieces.set(key, compiled);
    }
    return compiled;
  };
  return {
    pattern,
    programSize,
    scanChars: scanCharsFor(programSize),
    testLine: (text) => line.test(text),
    testBlock: (text) => block === undefined || block.test(text),
    testPiece: (text, before, after) => piece(before, after).test(text),
  };
}

/**
 * What is wrong with a pattern, or undefined when it compiles: the check an operation's argument
 * validation runs, so a bad pattern is refused before any work starts.
 *
 * @example
 * ```ts
 * import { grepPatternProblem } from "./grep_pattern.ts";
 *
 * grepPatternProblem("(a)\\1"); // "pattern '(a)\1' uses a backreference (\1), …"
 * grepPatternProblem("(a+)+$"); // undefined
 * ```
 */
export function grepPatternProblem(
  pattern: string,
  options: GrepPatternOptions = {},
): string | undefined {
  try {
    compileGrepPattern(pattern, options);
    return undefined;
  } catch (error) {
    if (error instanceof VantageError) return error.message;
    throw error;
  }
}

function compileOrExplain(pattern: string, source: string, flags: number): RE2JS {
  try {
    return RE2JS.compile(source, flags);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    throw new VantageError(
      "invalid_arguments",
      `pattern '${clip(pattern)}' is not a valid regular expression in RE2 syntax: ${
        error.message.replace(/^error parsing regexp: /, "")
      }`,
      { details: { pattern } },
    );
  }
}

/** A pattern rewritten for RE2, and whether it sets the `m` flag itself. */
interface Translated {
  source: string;
  setsMultiline: boolean;
}

/** What each construct only backtracking can run is called, and its opening. */
const UNSUPPORTED: ReadonlyArray<{ opening: string; name: string; shown: string }> = [
  { opening: "(?=", name: "lookahead", shown: "(?=…)" },
  { opening: "(?!", name: "negative lookahead", shown: "(?!…)" },
  { opening: "(?<=", name: "lookbehind", shown: "(?<=…)" },
  { opening: "(?<!", name: "negative lookbehind", shown: "(?<!…)" },
  { opening: "(?>", name: "atomic group", shown: "(?>…)" },
];

const FLAG_GROUP = /^\(\?([imsU-]+)[:)]/;

/**
 * Rewrites the JavaScript escapes RE2 spells differently (`\uXXXX`, `\u{…}` → `\x{…}`), turns
 * `\A` and `\z` into line edges (each line is its own text in grep, also when lines are tested
 * in blocks), and refuses backreferences and lookaround by name.
 */
function translatePattern(pattern: string): Translated {
  let source = "";
  let setsMultiline = false;
  let inClass = false;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      const unicode = /^u(?:([0-9A-Fa-f]{4})|\{([0-9A-Fa-f]{1,6})\})/.exec(pattern.slice(i + 1));
      if (unicode !== null) {
        source += `\\x{${unicode[1] ?? unicode[2]}}`;
        i += 1 + unicode[0].length;
        continue;
      }
      if (!inClass && /[1-9]/.test(next)) {
        const digits = /^[0-9]+/.exec(pattern.slice(i + 1))![0];
        throw unsupported(pattern, "a backreference", `\\${digits}`);
      }
      if (!inClass && next === "k" && pattern[i + 2] === "<") {
        const end = pattern.indexOf(">", i);
        throw unsupported(
          pattern,
          "a backreference",
          end === -1 ? "\\k<…>" : pattern.slice(i, end + 1),
        );
      }
      if (!inClass && next === "Q") {
        // \Q…\E quotes: nothing inside is syntax.
        const end = pattern.indexOf("\\E", i + 2);
        const stop = end === -1 ? pattern.length : end + 2;
        source += pattern.slice(i, stop);
        i = stop;
        continue;
      }
      if (!inClass && (next === "A" || next === "z")) {
        source += next === "A" ? "(?m:^)" : "(?m:$)";
        i += 2;
        continue;
      }
      const escaped = String.fromCodePoint(pattern.codePointAt(i + 1) ?? 0x5c);
      source += next === "" ? "\\" : `\\${escaped}`;
      i += 1 + escaped.length;
      continue;
    }
    if (inClass) {
      if (ch === "[" && pattern[i + 1] === ":") {
        // A POSIX class such as [:alpha:] inside a class is copied whole.
        const end = pattern.indexOf(":]", i + 2);
        if (end !== -1) {
          source += pattern.slice(i, end + 2);
          i = end + 2;
          continue;
        }
      }
      if (ch === "]") inClass = false;
      source += ch;
      i++;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      // A `]` right after `[` or `[^` is a member in RE2, not the end.
      let open = "[";
      if (pattern[i + 1] === "^") open += "^";
      if (pattern[i + open.length] === "]") open += "]";
      source += open;
      i += open.length;
      continue;
    }
    if (ch === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i);
      const construct = UNSUPPORTED.find((candidate) => rest.startsWith(candidate.opening));
      if (construct !== undefined) {
        throw unsupported(pattern, `${article(construct.name)} ${construct.name}`, construct.shown);
      }
      const flags = FLAG_GROUP.exec(rest);
      if (flags !== null && flags[1].includes("m")) setsMultiline = true;
    }
    source += ch;
    i++;
  }
  return { source, setsMultiline };
}

function unsupported(pattern: string, what: string, shown: string): VantageError {
  return new VantageError(
    "invalid_arguments",
    `pattern '${
      clip(pattern)
    }' uses ${what} ${shown}, which grep does not support: grep matches in RE2 syntax, whose automata run in time linear in the text and cannot express it; engines that can (JavaScript's RegExp) backtrack, which can take exponential time and hold the server`,
    { details: { pattern, unsupported: shown } },
  );
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

function clip(pattern: string): string {
  return pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern;
}
