/**
 * Regular-expression search over stored text documents, ripgrep-style:
 * case-insensitive and whole-word switches, per-file match caps, counts or
 * file lists instead of lines, context lines. Content is read from the
 * content store (verified), so grep sees exactly what was stored.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { DatabaseSync } from "../store/database.ts";
import { type DocumentFilter, type DocumentRow, listDocuments } from "../store/docs_documents.ts";
import { readContent } from "./content_store.ts";
import { matchesGlob } from "./glob.ts";
import { splitLines } from "./snippet.ts";
import { decodeText } from "./text_extract.ts";

/** A grep request. */
export interface GrepRequest {
  /** The regular expression (JavaScript syntax). */
  pattern: string;
  /** Stored paths, folders or globs to search (default: every text document). */
  paths?: readonly string[];
  /** Match regardless of case. */
  ignoreCase?: boolean;
  /** Match whole words only. */
  word?: boolean;
  /** Lines of context before and after each match. */
  context?: number;
  /** Report line numbers. */
  lineNumbers?: boolean;
  /** Stop after this many matching lines per file (0: no limit). */
  maxCount?: number;
  /** Which documents. */
  filter: DocumentFilter;
  /** Most matching lines reported in total (the rest are counted only). */
  maxTotal?: number;
}

/** A context or matching line. */
export interface GrepLine {
  /** 1-based line number, when line numbers were asked for. */
  line?: number;
  /** The line's text. */
  text: string;
}

/** One matching line with its context. */
export interface GrepMatch extends GrepLine {
  /** Lines before it. */
  before?: GrepLine[];
  /** Lines after it. */
  after?: GrepLine[];
}

/** Matches in one document. */
export interface GrepFile {
  /** Document id. */
  id: number;
  /** Content hash. */
  hash: string;
  /** Path. */
  path: string;
  /** Matching lines in it (up to max_count). */
  count: number;
  /** The matching lines (left out when only counts were asked for). */
  matches: GrepMatch[];
}

/** What grep found. */
export interface GrepReport {
  /** Documents searched. */
  files_searched: number;
  /** Documents with at least one match. */
  files_matched: number;
  /** Matching lines in total. */
  total_matches: number;
  /** Per document, in path order. */
  files: GrepFile[];
  /** True when more lines matched than were reported. */
  truncated: boolean;
  /** Documents that could not be read intact. */
  warnings: string[];
}

/** Compiles the grep pattern, naming the problem when it is not a valid expression. */
export function compileGrepPattern(pattern: string, ignoreCase: boolean, word: boolean): RegExp {
  const source = word ? `(?<![\\p{L}\\p{N}_])(?:${pattern})(?![\\p{L}\\p{N}_])` : pattern;
  try {
    return new RegExp(source, ignoreCase ? "iu" : "u");
  } catch (error) {
    try {
      // Patterns written for non-Unicode engines (`\-`, `\_`) are accepted without the u flag.
      const plain = word ? `(?<![A-Za-z0-9_])(?:${pattern})(?![A-Za-z0-9_])` : pattern;
      return new RegExp(plain, ignoreCase ? "i" : "");
    } catch {
      throw new VantageError(
        "invalid_arguments",
        `pattern '${pattern}' is not a valid regular expression: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { details: { pattern } },
      );
    }
  }
}

/**
 * Searches stored text documents for a pattern.
 *
 * @example
 * ```ts ignore
 * const report = grepDocuments(db, { pattern: "TODO|FIXME", lineNumbers: true, filter: {} });
 * ```
 */
export function grepDocuments(db: DatabaseSync, request: GrepRequest): GrepReport {
  const regex = compileGrepPattern(
    request.pattern,
    request.ignoreCase ?? false,
    request.word ?? false,
  );
  // Multiline, so `^` and `$` mean line ends when the whole text is tested at once.
  const anyLine = new RegExp(regex.source, regex.flags + "m");
  const context = Math.max(0, request.context ?? 0);
  const maxCount = request.maxCount ?? 0;
  const maxTotal = request.maxTotal ?? 2000;
  const numbered = request.lineNumbers ?? false;
  const { rows } = listDocuments(db, {
    filter: { ...request.filter, isText: true },
    sortBy: "path",
    order: "asc",
  });
  const report: GrepReport = {
    files_searched: 0,
    files_matched: 0,
    total_matches: 0,
    files: [],
    truncated: false,
    warnings: [],
  };
  let reported = 0;
  const at = (lines: string[], index: number): GrepLine =>
    numbered ? { line: index + 1, text: lines[index] } : { text: lines[index] };
  for (const row of rows) {
    if (
      request.paths !== undefined && request.paths.length > 0 && !pathSelected(row, request.paths)
    ) {
      continue;
    }
    report.files_searched++;
    let text: string;
    try {
      text = decodeText(readContent(db, row.hash, { path: row.path, id: row.id }));
    } catch (error) {
      report.warnings.push(error instanceof Error ? error.message : String(error));
      continue;
    }
    // Most documents do not match at all; one scan of the whole text settles that cheaply.
    if (!anyLine.test(text)) continue;
    const lines = splitLines(text);
    const file: GrepFile = { id: row.id, hash: row.hash, path: row.path, count: 0, matches: [] };
    for (let i = 0; i < lines.length; i++) {
      if (!regex.test(lines[i])) continue;
      file.count++;
      report.total_matches++;
      if (reported < maxTotal) {
        const match: GrepMatch = at(lines, i);
        if (context > 0) {
          match.before = [];
          for (let j = Math.max(0, i - context); j < i; j++) match.before.push(at(lines, j));
          match.after = [];
          for (let j = i + 1; j <= Math.min(lines.length - 1, i + context); j++) {
            match.after.push(at(lines, j));
          }
        }
        file.matches.push(match);
        reported++;
      } else {
        report.truncated = true;
      }
      if (maxCount > 0 && file.count >= maxCount) break;
    }
    if (file.count > 0) {
      report.files_matched++;
      report.files.push(file);
    }
  }
  return report;
}

const GLOB_CHARS = /[*?[{]/;

/** Whether a document is selected by one of the given paths, folders or globs. */
export function pathSelected(
  row: Pick<DocumentRow, "path" | "relative_path">,
  paths: readonly string[],
): boolean {
  for (const raw of paths) {
    const entry = raw.replace(/\/+$/, "");
    if (entry === "") continue;
    if (GLOB_CHARS.test(entry)) {
      if (
        matchesGlob(row.path, entry) || matchesGlob(row.relative_path, entry) ||
        matchesGlob(row.path, `**/${entry.replace(/^\/+/, "")}`)
      ) {
        return true;
      }
      continue;
    }
    if (row.path === entry || row.path.startsWith(entry + "/")) return true;
    if (row.path.endsWith("/" + entry) || row.path.includes("/" + entry + "/")) return true;
    if (row.relative_path === entry || row.relative_path.startsWith(entry + "/")) return true;
  }
  return false;
}
