/**
 * Reads complete lines of an append-only JSONL file from a byte offset.
 *
 * Agents append to their transcripts while we read them, so the last line may be half
 * written: a line is only returned once its `\n` is on disk, and `nextOffset` stops right
 * before an unfinished line so the next call picks it up whole. The file is read in bounded
 * blocks and a call stops after `maxBytes`, so memory stays flat on a 200 MB backfill; a line
 * longer than `maxLineBytes` is skipped (and counted) without ever being held in memory.
 *
 * @module
 */
import { concatBytes } from "../../core/bytes.ts";

/** One complete line and where it sits in the file. */
export interface JsonlLine {
  /** The line text without its `\n` / `\r\n` terminator. */
  text: string;
  /** Byte offset of the first byte of the line. */
  startOffset: number;
  /** Byte offset just past the line terminator (where the next line starts). */
  endOffset: number;
}

/** Result of {@link readJsonlLines}. */
export interface JsonlReadResult {
  /** Complete, non-blank lines, in file order. */
  lines: JsonlLine[];
  /** Offset to resume from: after the last consumed line (never inside a partial line). */
  nextOffset: number;
  /** Lines skipped because they were longer than `maxLineBytes`. */
  malformed: number;
  /** `true` when everything complete up to the end of the file was consumed. */
  done: boolean;
}

/** Options of {@link readJsonlLines}. */
export interface JsonlReadOptions {
  /** Bytes read per system call (default 1 MiB). */
  blockSize?: number;
  /** Lines longer than this many bytes are skipped and counted (default 16 MiB). */
  maxLineBytes?: number;
  /**
   * Stop after about this many bytes of lines have been consumed in one call (default
   * 8 MiB); call again from `nextOffset` for more. Bounds the memory of the returned lines.
   */
  maxBytes?: number;
}

const MIB = 1024 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Reads the complete lines of `path` starting at byte `offset`.
 *
 * Blank lines are consumed but not returned; a UTF-8 byte-order mark at offset 0 is dropped.
 * An offset past the end of the file (the file was truncated or replaced) yields no lines
 * and `nextOffset` equal to the offset, so the caller can notice and restart from 0.
 *
 * @example
 * ```ts
 * let offset = 0;
 * for (;;) {
 *   const { lines, nextOffset, done } = await readJsonlLines("/tmp/x.jsonl", offset);
 *   for (const line of lines) JSON.parse(line.text);
 *   offset = nextOffset;
 *   if (done) break;
 * }
 * ```
 */
export async function readJsonlLines(
  path: string,
  offset = 0,
  options: JsonlReadOptions = {},
): Promise<JsonlReadResult> {
  const blockSize = Math.max(16, options.blockSize ?? MIB);
  const maxLineBytes = Math.max(1, options.maxLineBytes ?? 16 * MIB);
  const maxBytes = Math.max(1, options.maxBytes ?? 8 * MIB);
  const decoder = new TextDecoder("utf-8");

  const lines: JsonlLine[] = [];
  let malformed = 0;
  let nextOffset = offset;

  using file = await Deno.open(path, { read: true });
  await file.seek(offset, Deno.SeekMode.Start);
  const block = new Uint8Array(blockSize);

  // Bytes of the line being assembled, and where it started.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let lineStart = offset;
  // Set while skipping the rest of an over-long line.
  let skipping = false;
  // Absolute offset of block[0].
  let position = offset;
  let consumed = 0;

  for (;;) {
    if (consumed >= maxBytes) return { lines, nextOffset, malformed, done: false };
    const read = await file.read(block);
    if (read === null || read === 0) break;
    const data = block.subarray(0, read);
    let from = 0;
    while (from < read) {
      const nl = data.indexOf(NEWLINE, from);
      if (nl === -1) {
        const rest = read - from;
        if (!skipping) {
          if (pendingBytes + rest > maxLineBytes) {
            skipping = true;
            pending = [];
            pendingBytes = 0;
          } else {
            // Copy: `block` is reused by the next read.
            pending.push(data.slice(from, read));
            pendingBytes += rest;
          }
        }
        break;
      }
      const endOffset = position + nl + 1;
      const pieceBytes = nl - from;
      if (skipping || pendingBytes + pieceBytes > maxLineBytes) {
        malformed++;
      } else {
        let bytes: Uint8Array = data.subarray(from, nl);
        if (pendingBytes > 0) {
          pending.push(bytes);
          bytes = concatBytes(pending, pendingBytes + pieceBytes);
        }
        let length = bytes.length;
        if (length > 0 && bytes[length - 1] === CR) length--;
        let text = decoder.decode(bytes.subarray(0, length));
        if (lineStart === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (text.trim() !== "") lines.push({ text, startOffset: lineStart, endOffset });
      }
      consumed += endOffset - lineStart;
      nextOffset = endOffset;
      lineStart = endOffset;
      pending = [];
      pendingBytes = 0;
      skipping = false;
      from = nl + 1;
      if (consumed >= maxBytes && from < read) {
        return { lines, nextOffset, malformed, done: false };
      }
    }
    position += read;
  }
  return { lines, nextOffset, malformed, done: true };
}
