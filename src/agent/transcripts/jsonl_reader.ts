/**
 * Reads complete lines of an append-only JSONL file from a byte offset.
 *
 * Agents append to their transcripts while we read them, so the last line may be half
 * written: a line is only returned once its `\n` is on disk, and `nextOffset` stops right
 * before an unfinished line so the next call picks it up whole. The file is read in bounded
 * blocks and a call stops after `maxBytes`, so memory stays flat on a 200 MB backfill; a line
 * longer than `maxLineBytes` is skipped (and counted) without ever being held in memory.
 *
 * {@link JsonlFile} keeps the file open between calls, with the bytes read past the last line
 * it returned, so reading a file chunk by chunk reads every byte once. The complete lines of a
 * block are decoded with one call and split on `\n` (a UTF-8 decoder never joins a newline
 * byte to a neighbouring character, so the lines are those decoded one by one): a decoder call
 * per line cost a third of the reading.
 *
 * {@link JsonlFile} reads synchronously. A block is a copy from the page cache that takes tens
 * of microseconds; handed to Deno's thread pool instead, the reading thread then waited for a
 * pool thread to be given a core, and while a backfill keeps both cores busy (parsing here,
 * indexing on a worker) that wait cost a tenth of its time.
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

/** Result of {@link JsonlFile.readTexts}: the lines' texts, without their offsets. */
export interface JsonlTextResult extends Omit<JsonlReadResult, "lines"> {
  /** Complete, non-blank lines, in file order. */
  texts: string[];
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
const BOM = 0xfeff;
const EMPTY = new Uint8Array(0);

/** Receives one line: its text and its offsets (-1 when not counted). */
type LineSink = (text: string, startOffset: number, endOffset: number) => void;

/**
 * The line of `text` from `from` to `to` without its `\r` and byte-order mark; `undefined` when
 * blank (consumed, not returned).
 */
function lineText(text: string, from: number, to: number): string | undefined {
  let line = text.slice(from, to > from && text.charCodeAt(to - 1) === CR ? to - 1 : to);
  if (line.charCodeAt(0) === BOM) line = line.slice(1);
  return line.trim() === "" ? undefined : line;
}

/**
 * An open JSONL file read a chunk of lines at a time. Bytes read past the returned lines are
 * kept for the next call from `nextOffset`; a call from any other offset reads from there.
 *
 * @example
 * ```ts
 * using file = JsonlFile.open("/tmp/x.jsonl");
 * let offset = 0;
 * for (;;) {
 *   const { lines, nextOffset, done } = file.readLines(offset, { maxBytes: 256 * 1024 });
 *   for (const line of lines) JSON.parse(line.text);
 *   offset = nextOffset;
 *   if (done) break;
 * }
 * ```
 */
export class JsonlFile implements Disposable {
  readonly #file: Deno.FsFile;
  // A BOM is kept by the decoder and dropped per line, as a decoder call per line would.
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #block: Uint8Array = EMPTY;
  /** Bytes read and not yet consumed, from file offset `#keptAt` (-1: none). */
  #kept: Uint8Array = EMPTY;
  #keptAt = -1;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Opens `path` for reading. */
  static open(path: string): JsonlFile {
    return new JsonlFile(Deno.openSync(path, { read: true }));
  }

  /**
   * The complete lines from byte `offset` (see {@link readJsonlLines} for the rules: blank
   * lines are consumed but not returned, a byte-order mark is dropped, an offset past the end
   * yields nothing with `nextOffset` equal to the offset).
   */
  readLines(offset: number, options: JsonlReadOptions = {}): JsonlReadResult {
    const lines: JsonlLine[] = [];
    const read = this.#read(offset, options, false, (text, startOffset, endOffset) => {
      lines.push({ text, startOffset, endOffset });
    });
    return { lines, ...read };
  }

  /**
   * The texts of the complete lines from byte `offset`, by the rules of {@link readLines}
   * but without each line's offsets, and consuming whole blocks (a call may pass `maxBytes` by
   * up to a block): a block's lines are found in its decoded text, where a newline is found
   * faster than among its bytes.
   */
  readTexts(offset: number, options: JsonlReadOptions = {}): JsonlTextResult {
    const texts: string[] = [];
    const read = this.#read(offset, options, true, (text) => {
      texts.push(text);
    });
    return { texts, ...read };
  }

  #read(
    offset: number,
    options: JsonlReadOptions,
    byBlock: boolean,
    line: LineSink,
  ): Omit<JsonlReadResult, "lines"> {
    const blockSize = Math.max(16, options.blockSize ?? MIB);
    const maxLineBytes = Math.max(1, options.maxLineBytes ?? 16 * MIB);
    const maxBytes = Math.max(1, options.maxBytes ?? 8 * MIB);
    if (this.#block.length !== blockSize) this.#block = new Uint8Array(blockSize);

    let malformed = 0;
    // `data` holds the file's bytes from offset `base`; the line being read starts at `lineAt`
    // (a file offset); newlines are looked for from `scanFrom` (an index in `data`).
    let data: Uint8Array = EMPTY;
    if (offset === this.#keptAt) data = this.#kept;
    else this.#file.seekSync(offset, Deno.SeekMode.Start);
    this.#kept = EMPTY;
    this.#keptAt = -1;
    let base = offset;
    let lineAt = offset;
    let scanFrom = 0;
    // Set while the line at `lineAt` is too long: its bytes are dropped as they are read.
    let skipping = false;
    const result = (done: boolean) => {
      if (!skipping) {
        // The bytes past the last consumed line start the next call's.
        this.#kept = data.slice(lineAt - base);
        this.#keptAt = lineAt;
      }
      return { nextOffset: lineAt, malformed, done };
    };

    for (;;) {
      let byNewline = !byBlock || skipping;
      if (!byNewline) {
        // Every complete line of the block at once, unless one of them may be too long.
        const start = lineAt - base;
        const last = data.lastIndexOf(NEWLINE);
        if (last - start > maxLineBytes) {
          byNewline = true;
        } else if (last >= start) {
          this.#splitRun(data, start, last, line);
          lineAt = base + last + 1;
          scanFrom = last + 1;
        }
      }
      // The complete lines in `data`, found by byte and decoded together.
      let runStart = lineAt - base;
      const runEnds: number[] = [];
      const flushRun = () => {
        if (runEnds.length > 0) this.#decodeRun(data, runStart, runEnds, base, line);
        runEnds.length = 0;
      };
      for (
        let nl = byNewline ? data.indexOf(NEWLINE, scanFrom) : -1;
        nl !== -1;
        nl = data.indexOf(NEWLINE, scanFrom)
      ) {
        if (skipping || base + nl - lineAt > maxLineBytes) {
          flushRun();
          malformed++;
          skipping = false;
          runStart = nl + 1;
        } else {
          runEnds.push(nl);
        }
        lineAt = base + nl + 1;
        scanFrom = nl + 1;
        if (lineAt - offset >= maxBytes && scanFrom < data.length) {
          flushRun();
          return result(false);
        }
      }
      flushRun();
      if (lineAt - offset >= maxBytes) return result(false);
      // The rest is the start of a line: dropped once it is too long, else kept to complete.
      if (!skipping && base + data.length - lineAt > maxLineBytes) skipping = true;
      // A copy: the next read reuses the block `data` may be.
      const rest = skipping ? EMPTY : data.slice(lineAt - base);
      const read = this.#file.readSync(this.#block);
      if (read === null || read === 0) return result(true);
      const fresh = this.#block.subarray(0, read);
      base += data.length - rest.length;
      data = rest.length === 0 ? fresh : concatBytes([rest, fresh], rest.length + read);
      scanFrom = rest.length;
    }
  }

  /** Decodes the lines ending at `ends` (newline positions) from `start` in one call. */
  #decodeRun(
    data: Uint8Array,
    start: number,
    ends: readonly number[],
    base: number,
    line: LineSink,
  ): void {
    const text = this.#decoder.decode(data.subarray(start, ends[ends.length - 1]));
    let from = 0;
    let byteStart = start;
    for (let i = 0; i < ends.length; i++) {
      const to = i === ends.length - 1 ? text.length : text.indexOf("\n", from);
      const clean = lineText(text, from, to);
      if (clean !== undefined) line(clean, base + byteStart, base + ends[i] + 1);
      from = to + 1;
      byteStart = ends[i] + 1;
    }
  }

  /** Decodes the lines from `start` to the newline at `last` in one call, without offsets. */
  #splitRun(data: Uint8Array, start: number, last: number, line: LineSink): void {
    const text = this.#decoder.decode(data.subarray(start, last));
    for (let from = 0; from <= text.length;) {
      let to = text.indexOf("\n", from);
      if (to === -1) to = text.length;
      const clean = lineText(text, from, to);
      if (clean !== undefined) line(clean, -1, -1);
      from = to + 1;
    }
  }

  /** Closes the file. */
  close(): void {
    this.#file.close();
  }

  /** Closes the file (for `using`). */
  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * Reads the complete lines of `path` starting at byte `offset`.
 *
 * Blank lines are consumed but not returned; a UTF-8 byte-order mark at the start of a line is
 * dropped. An offset past the end of the file (the file was truncated or replaced) yields no
 * lines and `nextOffset` equal to the offset, so the caller can notice and restart from 0.
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
  // The reading itself does not wait: a turn of the event loop first lets a server reading file
  // after file answer its requests between them.
  await nextTurn();
  using file = JsonlFile.open(path);
  return file.readLines(offset, options);
}

/**
 * Resolves on a later turn of the event loop (after pending I/O and timers), not just after
 * the promises already settled.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
