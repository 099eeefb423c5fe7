/**
 * Regular-expression search over stored text documents, ripgrep-style:
 * case-insensitive and whole-word switches, per-file match caps, counts or
 * file lists instead of lines, context lines. Content is read from the
 * content store (verified), so grep sees exactly what was stored. Patterns
 * are RE2 syntax, matched in linear time without holding the event loop.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { VantageError } from "../core/errors.ts";
import type { DatabaseSync } from "../store/database.ts";
import {
  type DocumentFilter,
  listDocuments,
  type ListQuery,
} from "../store/docs/document_listing.ts";
import type { DocumentRow } from "../store/docs/documents.ts";
import { readContentPieces } from "./content_store.ts";
import { matchesGlob } from "./glob.ts";
import { compileGrepPattern } from "./grep_pattern.ts";
import { nextLine, previousLine, scanMatchingLines, type TextLine } from "./line_scan.ts";
import { ScanPacer } from "./scan_pacer.ts";
import { decodeText } from "./text_extract.ts";

/** A grep request. */
export interface GrepRequest {
  /** The regular expression (RE2 syntax: no backreferences or lookaround). */
  pattern: string;
  /** Treat the pattern as plain text. */
  literal?: boolean;
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
  /** Stops the search with a `timeout` error when aborted (the operation's time limit). */
  signal?: AbortSignal;
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

/**
 * Searches stored text documents for a pattern. Matching runs on RE2JS (linear time, see
 * grep_pattern.ts) in bounded scans; every ~15 ms of work it yields the event loop, and it stops
 * with a `timeout` error once `request.signal` is aborted.
 *
 * @example
 * ```ts ignore
 * const report = await grepDocuments(db, { pattern: "TODO|FIXME", lineNumbers: true, filter: {} });
 * ```
 */
export async function grepDocuments(db: DatabaseSync, request: GrepRequest): Promise<GrepReport> {
  const { rows } = listDocuments(db, grepListing(request.filter));
  return await grepRows(rows, (row, pacer) => readText(db, row, pacer), request);
}

/** The documents grep reads: the filter's text documents, in path order. */
export function grepListing(filter: DocumentFilter): ListQuery {
  return { filter: { ...filter, isText: true }, sortBy: "path", order: "asc" };
}

/**
 * Greps documents listed by {@linkcode grepListing}, each document's text read by `read`
 * (verified; damage is thrown, and reported as a warning), with the pacer to consult between
 * pieces. The core of {@linkcode grepDocuments}, for a store that is read another way.
 */
export async function grepRows(
  rows: readonly DocumentRow[],
  read: (row: DocumentRow, pacer: ScanPacer) => Promise<string>,
  request: GrepRequest,
): Promise<GrepReport> {
  const matcher = compileGrepPattern(request.pattern, {
    ignoreCase: request.ignoreCase,
    word: request.word,
    literal: request.literal,
  });
  const pacer = new ScanPacer("grep", request.signal);
  const context = Math.max(0, request.context ?? 0);
  const maxCount = request.maxCount ?? 0;
  const maxTotal = request.maxTotal ?? 2000;
  const numbered = request.lineNumbers ?? false;
  const report: GrepReport = {
    files_searched: 0,
    files_matched: 0,
    total_matches: 0,
    files: [],
    truncated: false,
    warnings: [],
  };
  let reported = 0;
  for (const row of rows) {
    if (
      request.paths !== undefined && request.paths.length > 0 && !pathSelected(row, request.paths)
    ) {
      continue;
    }
    if (pacer.due()) await pacer.pause();
    report.files_searched++;
    let text: string;
    try {
      text = await read(row, pacer);
    } catch (error) {
      if (error instanceof VantageError && error.kind === "timeout") throw error;
      report.warnings.push(error instanceof Error ? error.message : String(error));
      continue;
    }
    const at = (line: TextLine): GrepLine => {
      const lineText = text.slice(line.start, line.end);
      return numbered ? { line: line.index + 1, text: lineText } : { text: lineText };
    };
    const file: GrepFile = { id: row.id, hash: row.hash, path: row.path, count: 0, matches: [] };
    const note = await scanMatchingLines(text, matcher, pacer, (line) => {
      file.count++;
      report.total_matches++;
      if (reported < maxTotal) {
        const match: GrepMatch = at(line);
        if (context > 0) {
          match.before = [];
          let previous: TextLine | undefined = line;
          while (match.before.length < context) {
            previous = previousLine(text, previous);
            if (previous === undefined) break;
            match.before.unshift(at(previous));
          }
          match.after = [];
          let next: TextLine | undefined = line;
          while (match.after.length < context) {
            next = nextLine(text, next);
            if (next === undefined) break;
            match.after.push(at(next));
          }
        }
        file.matches.push(match);
        reported++;
      } else {
        report.truncated = true;
      }
      return !(maxCount > 0 && file.count >= maxCount);
    });
    if (note !== undefined) {
      report.warnings.push(
        `${row.path}: ${note.lines} line${
          note.lines === 1 ? "" : "s"
        } (from line ${note.firstLine}) longer than ${note.pieceChars} characters showed no match in overlapping pieces of that size; a match longer than ${note.surelyFound} characters there could have been missed`,
      );
    }
    if (file.count > 0) {
      report.files_matched++;
      report.files.push(file);
    }
  }
  return report;
}

/**
 * A document's text, read chunk by chunk (each verified) with the pacer consulted between chunks,
 * so reading a large document does not hold the event loop in one piece either.
 */
async function readText(db: DatabaseSync, row: DocumentRow, pacer: ScanPacer): Promise<string> {
  const pieces: Uint8Array[] = [];
  for (const piece of readContentPieces(db, row.hash, { path: row.path, id: row.id })) {
    pieces.push(piece);
    if (pacer.due()) await pacer.pause();
  }
  return decodeText(concatBytes(pieces));
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
