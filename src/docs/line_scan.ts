/**
 * Finds the lines of a text that a grep pattern matches, in scans of bounded
 * size so no single call into the regex engine runs long: runs of whole lines
 * are tested as one block (most blocks do not match, and one scan settles
 * that), lines of a matching block one by one, and a line longer than one
 * scan in overlapping pieces. Between scans the pacer may yield the event loop
 * or stop the search.
 *
 * Lines are those of `splitLines`: split at `\n`, a `\r` before it dropped,
 * and no empty last line after a final line break.
 *
 * @module
 */
import type { GrepMatcher } from "./grep_pattern.ts";
import type { ScanPacer } from "./scan_pacer.ts";

/** One line of a text, by position. */
export interface TextLine {
  /** 0-based line number. */
  index: number;
  /** Offset of its first character. */
  start: number;
  /** Offset just past its last character (a `\r` before the line break excluded). */
  end: number;
  /** Offset of its `\n`, or the end of the text's lines when it is the last line. */
  stop: number;
}

/** Long lines that were searched in pieces and had no match there. */
export interface PiecewiseNote {
  /** How many. */
  lines: number;
  /** 1-based number of the first. */
  firstLine: number;
  /** Characters in each piece. */
  pieceChars: number;
  /** Longest match the overlapping pieces are sure to find. */
  surelyFound: number;
}

/**
 * Calls `onMatch` for each matching line in order until it returns false. Resolves with a note
 * when some long line could only be searched piecewise and showed no match.
 *
 * @example
 * ```ts ignore
 * const note = await scanMatchingLines(text, compileGrepPattern("TODO"), pacer, (line) => {
 *   hits.push(line.index);
 *   return true;
 * });
 * ```
 */
export async function scanMatchingLines(
  text: string,
  matcher: GrepMatcher,
  pacer: ScanPacer,
  onMatch: (line: TextLine) => boolean,
): Promise<PiecewiseNote | undefined> {
  const limit = linesEnd(text);
  const size = matcher.scanChars;
  let note: PiecewiseNote | undefined;
  // Line numbers are counted only up to a line that needs one: most blocks do not match.
  let counted = 0;
  let countedIndex = 0;
  const lineFrom = (start: number, stop: number): TextLine => {
    countedIndex += countBreaks(text, counted, start);
    counted = start;
    return lineAt(text, countedIndex, start, stop);
  };
  let start = 0;
  while (true) {
    let blockEnd = limit;
    if (limit - start > size) blockEnd = text.lastIndexOf("\n", start + size);
    if (blockEnd < start) {
      // The line at `start` alone is longer than one scan.
      const line = lineFrom(start, breakAfter(text, start, limit));
      if (await searchPiecewise(text, line, matcher, pacer)) {
        if (!onMatch(line)) return note;
      } else {
        note ??= {
          lines: 0,
          firstLine: line.index + 1,
          pieceChars: size,
          surelyFound: pieceOverlap(size) - 4,
        };
        note.lines++;
      }
      blockEnd = line.stop;
    } else if (matcher.testBlock(blockText(text, start, blockEnd))) {
      for (let lineStart = start;;) {
        const stop = breakAfter(text, lineStart, blockEnd);
        const end = lineEnd(text, lineStart, stop);
        if (matcher.testLine(text.slice(lineStart, end)) && !onMatch(lineFrom(lineStart, stop))) {
          return note;
        }
        if (stop >= blockEnd) break;
        lineStart = stop + 1;
        if (pacer.due()) await pacer.pause();
      }
    }
    if (blockEnd >= limit) return note;
    start = blockEnd + 1;
    if (pacer.due()) await pacer.pause();
  }
}

/** The line before `line`, if any. */
export function previousLine(text: string, line: TextLine): TextLine | undefined {
  if (line.start === 0) return undefined;
  const stop = line.start - 1;
  const start = stop === 0 ? 0 : text.lastIndexOf("\n", stop - 1) + 1;
  return lineAt(text, line.index - 1, start, stop);
}

/** The line after `line`, if any. */
export function nextLine(text: string, line: TextLine): TextLine | undefined {
  const limit = linesEnd(text);
  if (line.stop >= limit) return undefined;
  const start = line.stop + 1;
  return lineAt(text, line.index + 1, start, breakAfter(text, start, limit));
}

/** Where the text's lines end: before a final line break, which starts no line of its own. */
function linesEnd(text: string): number {
  return text.length > 0 && text.endsWith("\n") ? text.length - 1 : text.length;
}

/** The next `\n` at or after `from`, or `limit` when there is none before it. */
function breakAfter(text: string, from: number, limit: number): number {
  const at = text.indexOf("\n", from);
  return at === -1 || at > limit ? limit : at;
}

function lineAt(text: string, index: number, start: number, stop: number): TextLine {
  return { index, start, end: lineEnd(text, start, stop), stop };
}

/** Where a line's text ends: before the `\r` of a `\r\n`. */
function lineEnd(text: string, start: number, stop: number): number {
  return stop > start && text[stop] === "\n" && text[stop - 1] === "\r" ? stop - 1 : stop;
}

/** Lines `start`…`end` joined by plain `\n`, the only break RE2's multiline `$` knows. */
function blockText(text: string, start: number, end: number): string {
  let block = text.slice(start, end);
  if (block.includes("\r")) {
    block = block.replaceAll("\r\n", "\n");
    if (text[end] === "\n" && block.endsWith("\r")) block = block.slice(0, -1);
  }
  return block;
}

function countBreaks(text: string, start: number, end: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", start); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) {
    count++;
  }
  return count;
}

/** Consecutive pieces share half their characters, so a match up to that long lies within one. */
function pieceOverlap(size: number): number {
  return Math.floor(size / 2);
}

/**
 * Tests a line longer than one scan in overlapping pieces. Each piece but the first and last keeps
 * one character of context on each side (see `GrepMatcher.testPiece`), so anchors and word edges
 * are judged on the real neighbours; a match longer than the overlap can be missed.
 */
async function searchPiecewise(
  text: string,
  line: TextLine,
  matcher: GrepMatcher,
  pacer: ScanPacer,
): Promise<boolean> {
  const size = matcher.scanChars;
  const step = size - pieceOverlap(size);
  for (let from = line.start;; from += step) {
    const to = Math.min(line.end, from + size);
    if (matcher.testPiece(text.slice(from, to), from > line.start, to < line.end)) return true;
    if (to >= line.end) return false;
    if (pacer.due()) await pacer.pause();
  }
}
