/**
 * Masking for source code: comments and string contents become spaces (newlines kept), so that
 * regexes looking for definitions and calls never fire inside them and columns stay aligned with
 * the source. One scanner serves every language; a language describes its comments and strings
 * in a {@linkcode Lexicon}.
 *
 * @module
 */

/** How a language writes comments and strings. */
export interface Lexicon {
  /**
   * Where masking has something to do: the characters that can start a comment, string or (Rust)
   * raw string, as a global regex. Everything between two of these is copied as it is, so the scan
   * jumps from one to the next.
   */
  starts: RegExp;
  /** `//` and block comments (`c`), or `#` comments (`hash`). */
  comments: "c" | "hash";
  /** Python's triple-quoted strings, whose quotes stay and contents go. */
  tripleQuotes?: boolean;
  /** Rust's raw strings, `r#"…"#`. */
  rawStrings?: boolean;
  /** Rust: a quote starts a char literal only when one character and a quote follow. */
  charLiterals?: boolean;
  /** Backquoted strings, which may span lines: templates with escapes, or raw without (Go). */
  backquotes?: "template" | "raw";
}

/** The C family's comments and strings (C, C++, Java). */
export const C_LEXICON: Lexicon = { starts: /["'/]/g, comments: "c" };

// Runs of spaces by length, made once: comments and strings are blanked by the thousand.
const SPACES: string[] = [];

function spaces(length: number): string {
  if (length >= 256) return " ".repeat(length);
  return SPACES[length] ??= " ".repeat(length);
}

/** `text` with its comments and string contents blanked, by the rules of `lexicon`. */
export function maskSource(text: string, lexicon: Lexicon): string {
  // The masked text is the source with some ranges blanked, built from slices: far cheaper than
  // one string per character.
  const n = text.length;
  const parts: string[] = [];
  let copied = 0;
  const { comments, tripleQuotes, rawStrings, charLiterals, backquotes } = lexicon;
  const cComments = comments === "c";
  const blank = (from: number, to: number) => {
    if (to <= from) return;
    parts.push(text.slice(copied, from));
    // Most blanked runs (line comments, strings) hold no newline: they become spaces alone.
    const newline = text.indexOf("\n", from);
    parts.push(
      newline === -1 || newline >= to
        ? spaces(to - from)
        : text.slice(from, to).replace(/[^\n]/g, " "),
    );
    copied = to;
  };
  const starts = lexicon.starts;
  let i = 0;
  while (i < n) {
    starts.lastIndex = i;
    const found = starts.exec(text);
    if (found === null) break;
    i = found.index;
    const c = text[i];
    const next = text[i + 1];
    if (cComments && c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (cComments && c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? n : end + 2;
      blank(i, stop);
      i = stop;
    } else if (comments === "hash" && c === "#") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (
      tripleQuotes && (c === '"' || c === "'") && text[i + 1] === c && text[i + 2] === c
    ) {
      // Triple-quoted: the quotes stay, the contents go.
      const end = text.indexOf(c + c + c, i + 3);
      const stop = end === -1 ? n : end + 3;
      blank(i + 3, Math.max(i + 3, stop - 3));
      i = stop;
    } else if (
      rawStrings && c === "r" && (next === "#" || next === '"') &&
      !/[\w]/.test(text[i - 1] ?? "")
    ) {
      // Raw string r#"..."#: ends at a quote followed by the same number of hashes.
      let hashes = 0;
      while (text[i + 1 + hashes] === "#") hashes++;
      if (text[i + 1 + hashes] !== '"') {
        i++;
        continue;
      }
      const closing = '"' + "#".repeat(hashes);
      const end = text.indexOf(closing, i + 2 + hashes);
      const stop = end === -1 ? n : end + closing.length;
      blank(i + 2 + hashes, stop);
      i = stop;
    } else if (charLiterals && c === "'") {
      // A quote starts a char literal only when one (possibly escaped) character and a closing
      // quote follow; otherwise it is a lifetime such as 'a.
      const literal = /^'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'/.exec(
        text.slice(i, i + 12),
      );
      if (literal) {
        blank(i + 1, i + literal[0].length - 1);
        i += literal[0].length;
      } else {
        i++;
      }
    } else if (c === '"' || c === "'" || (c === "`" && backquotes !== undefined)) {
      // Strings end at the matching quote; only template literals and Go raw strings span lines.
      const multiline = c === "`";
      const escapes = !(c === "`" && backquotes === "raw");
      let k = i + 1;
      while (k < n && text[k] !== c) {
        if (text[k] === "\n" && !multiline) break;
        // An escaped character is blanked with its backslash (an escaped newline stays one).
        if (escapes && text[k] === "\\" && k + 1 < n) k++;
        k++;
      }
      blank(i + 1, k);
      if (k < n && text[k] === c) k++;
      i = k;
    } else {
      i++;
    }
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join("");
}
