/**
 * What the PostgreSQL query runner needs to know of a caller's SQL text
 * before the server sees it: the keyword it starts with, and where its
 * first statement ends. PostgreSQL's own parser decides everything else;
 * this only shapes the refusals so they read as they do on SQLite ("only
 * one statement is accepted", "this one starts with 'DELETE'") and cuts a
 * trailing `;`, which cannot stand inside the subquery the runner wraps the
 * statement in. Nothing here guards the data: a text it misjudges is
 * refused by the server (a prepared statement holds one command, and the
 * query runs as a read-only role in a read-only transaction).
 *
 * The scanner knows PostgreSQL's quoting: `'…'` strings (with `''`),
 * `E'…'` strings (with backslash escapes), `"…"` identifiers, `$tag$…$tag$`
 * bodies, `--` comments and nested `/* … *\/` comments.
 *
 * @module
 */

/** How the text divides at its first top-level `;`. */
export interface StatementSplit {
  /** The first statement, without the `;` that ends it. */
  statement: string;
  /** Whether anything but spaces, comments and `;` follows it. */
  more: boolean;
}

const IDENTIFIER_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;
const TAG_START = /[A-Za-z_\u0080-\uffff]/;

/** Where the comment starting at `at` ends (past it), or -1 when no comment starts there. */
function commentEnd(sql: string, at: number): number {
  if (sql.startsWith("--", at)) {
    const newline = sql.indexOf("\n", at);
    return newline === -1 ? sql.length : newline + 1;
  }
  if (!sql.startsWith("/*", at)) return -1;
  // PostgreSQL's block comments nest.
  let depth = 0;
  let i = at;
  while (i < sql.length) {
    if (sql.startsWith("/*", i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith("*/", i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return sql.length;
}

/** Where the quoted text opening at `at` ends (past its closing quote), or the text's end. */
function quotedEnd(sql: string, at: number, quote: string, backslashes: boolean): number {
  let i = at + 1;
  while (i < sql.length) {
    const char = sql[i];
    if (backslashes && char === "\\") {
      i += 2;
      continue;
    }
    if (char === quote) {
      // A doubled quote is one quote inside the text.
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

/** The dollar-quote tag (`$tag$` or `$$`) opening at `at`, if one does. */
function dollarTag(sql: string, at: number): string | undefined {
  if (sql[at] !== "$") return undefined;
  if (sql[at + 1] === "$") return "$$";
  if (!TAG_START.test(sql[at + 1] ?? "")) return undefined;
  let i = at + 2;
  while (i < sql.length && /[A-Za-z0-9_\u0080-\uffff]/.test(sql[i])) i++;
  return sql[i] === "$" ? sql.slice(at, i + 1) : undefined;
}

/**
 * The index just past the token starting at `at` when it is a string, quoted identifier,
 * dollar-quoted body or comment; otherwise `at + 1`. `comment` says which it was.
 */
function skip(sql: string, at: number): { end: number; comment: boolean } {
  const comment = commentEnd(sql, at);
  if (comment !== -1) return { end: comment, comment: true };
  const char = sql[at];
  const previous = at > 0 ? sql[at - 1] : "";
  if (char === "'") {
    // E'…' (or e'…') takes backslash escapes; the E must not end a longer word.
    const escaped = (previous === "E" || previous === "e") &&
      !IDENTIFIER_CHAR.test(at > 1 ? sql[at - 2] : "");
    return { end: quotedEnd(sql, at, "'", escaped), comment: false };
  }
  if (char === '"') return { end: quotedEnd(sql, at, '"', false), comment: false };
  if (char === "$" && !IDENTIFIER_CHAR.test(previous)) {
    const tag = dollarTag(sql, at);
    if (tag !== undefined) {
      const close = sql.indexOf(tag, at + tag.length);
      return { end: close === -1 ? sql.length : close + tag.length, comment: false };
    }
  }
  return { end: at + 1, comment: false };
}

/**
 * The keyword `sql` starts with after spaces and comments, upper case ("" when it starts
 * with none).
 *
 * @example
 * ```ts
 * import { leadingKeyword } from "./statement_text.ts";
 * leadingKeyword("/* a /* nested *\/ note *\/ select 1"); // "SELECT"
 * ```
 */
export function leadingKeyword(sql: string): string {
  let i = 0;
  while (i < sql.length) {
    if (/\s/.test(sql[i])) {
      i++;
      continue;
    }
    const comment = commentEnd(sql, i);
    if (comment === -1) break;
    i = comment;
  }
  return (/^[A-Za-z]+/.exec(sql.slice(i))?.[0] ?? "").toUpperCase();
}

/**
 * Splits `sql` at its first `;` outside strings, quoted names, dollar-quoted bodies and
 * comments.
 *
 * @example
 * ```ts
 * import { splitFirstStatement } from "./statement_text.ts";
 * splitFirstStatement("SELECT ';' AS semi; -- done"); // { statement: "SELECT ';' AS semi", more: false }
 * splitFirstStatement("SELECT 1; DELETE FROM sessions").more; // true
 * ```
 */
export function splitFirstStatement(sql: string): StatementSplit {
  let i = 0;
  while (i < sql.length) {
    if (sql[i] === ";") {
      let j = i + 1;
      let more = false;
      while (j < sql.length) {
        if (/[\s;]/.test(sql[j])) {
          j++;
          continue;
        }
        const comment = commentEnd(sql, j);
        if (comment === -1) {
          more = true;
          break;
        }
        j = comment;
      }
      return { statement: sql.slice(0, i), more };
    }
    i = skip(sql, i).end;
  }
  return { statement: sql, more: false };
}

const WRITE_WORDS: ReadonlySet<string> = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);

/**
 * The first word of `sql` outside strings, quoted names and comments that makes it a write —
 * INSERT, UPDATE, DELETE or MERGE, or SELECT INTO (which makes a table) — if any. Used only
 * to name what the server refused.
 *
 * @example
 * ```ts
 * import { writeKeyword } from "./statement_text.ts";
 * writeKeyword("WITH gone AS (DELETE FROM sessions RETURNING *) SELECT 1"); // "DELETE"
 * writeKeyword("SELECT 'delete' AS word"); // undefined
 * ```
 */
export function writeKeyword(sql: string): string | undefined {
  let into = false;
  let i = 0;
  while (i < sql.length) {
    const { end } = skip(sql, i);
    if (end > i + 1) {
      i = end;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i, i + 64))?.[0];
    if (word === undefined || (i > 0 && IDENTIFIER_CHAR.test(sql[i - 1]))) {
      i++;
      continue;
    }
    const upper = word.toUpperCase();
    if (WRITE_WORDS.has(upper)) return upper;
    if (upper === "INTO") into = true;
    i += word.length;
  }
  return into ? "SELECT INTO" : undefined;
}
