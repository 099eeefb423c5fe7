/**
 * Content-defined chunking (FastCDC: gear rolling hash, cut-point skipping and normalized
 * chunking). Boundaries depend only on the bytes near them, so an edit in one place moves at most
 * a couple of chunk boundaries and every other chunk keeps its content hash, which is what makes
 * block-level deduplication work across versions of a file.
 *
 * @module
 */

/** Tuning knobs for {@linkcode chunkBoundaries} and {@linkcode ChunkStream}. */
export interface ChunkerOptions {
  /** Smallest chunk in bytes (only the final chunk of an input may be shorter). Default 16 KiB. */
  minSize?: number;
  /** Target average chunk size in bytes. Default 32 KiB. */
  avgSize?: number;
  /** Largest chunk in bytes; a cut is forced here. Default 64 KiB. */
  maxSize?: number;
  /**
   * Normalization level (0-3): how many mask bits are added before the average size and removed
   * after it. Higher levels pull chunk sizes closer to the average. Default 2.
   */
  normalization?: number;
}

/** One chunk of an input, as a byte range. */
export interface ChunkSpan {
  /** Byte offset of the chunk's first byte within the whole input. */
  offset: number;
  /** Chunk length in bytes. */
  length: number;
}

/** A chunk together with its bytes, as yielded by {@linkcode chunkIterable}. */
export interface Chunk extends ChunkSpan {
  /** The chunk's bytes (a fresh copy or a view the caller may keep). */
  data: Uint8Array;
}

/** Default smallest chunk: 16 KiB. */
export const DEFAULT_MIN_CHUNK_SIZE = 16 * 1024;
/** Default average chunk: 32 KiB. */
export const DEFAULT_AVG_CHUNK_SIZE = 32 * 1024;
/** Default largest chunk: 64 KiB. */
export const DEFAULT_MAX_CHUNK_SIZE = 64 * 1024;

// The gear table must never change: every stored chunk hash depends on where boundaries fell,
// so a different table would silently stop deduplication against existing data. It is derived
// from a fixed seed instead of being pasted as 256 literals.
const GEAR: Int32Array = buildGearTable(0x56414e54);

function buildGearTable(seed: number): Int32Array {
  const table = new Int32Array(256);
  let state = seed | 0;
  for (let i = 0; i < 256; i++) {
    // splitmix32-style generator: cheap, and every output bit depends on every state bit.
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    table[i] = z ^ (z >>> 16);
  }
  return table;
}

// The gear hash shifts left, so its high bits mix the most recent 32 bytes while low bits only
// see the last few; masks therefore take their bits from the top of the word.
function topBitsMask(bits: number): number {
  const clamped = Math.max(1, Math.min(31, bits));
  return (0xffffffff << (32 - clamped)) | 0;
}

interface ResolvedOptions {
  minSize: number;
  normalSize: number;
  maxSize: number;
  maskSmall: number;
  maskLarge: number;
}

function resolveOptions(options: ChunkerOptions = {}): ResolvedOptions {
  const minSize = options.minSize ?? DEFAULT_MIN_CHUNK_SIZE;
  const avgSize = options.avgSize ?? DEFAULT_AVG_CHUNK_SIZE;
  const maxSize = options.maxSize ?? DEFAULT_MAX_CHUNK_SIZE;
  const level = options.normalization ?? 2;
  const sizes: [string, number][] = [["minSize", minSize], ["avgSize", avgSize], [
    "maxSize",
    maxSize,
  ]];
  for (const [name, value] of sizes) {
    if (!Number.isInteger(value) || value < 64 || value > 2 ** 30) {
      throw new RangeError(
        `Invalid chunker option ${name}: ${value} (expected an integer from 64 to 2^30)`,
      );
    }
  }
  if (!(minSize < avgSize && avgSize < maxSize)) {
    throw new RangeError(
      `Invalid chunker sizes: need minSize < avgSize < maxSize, got ${minSize}, ${avgSize}, ${maxSize}`,
    );
  }
  if (!Number.isInteger(level) || level < 0 || level > 3) {
    throw new RangeError(`Invalid chunker option normalization: ${level} (expected 0 to 3)`);
  }
  // Hashing only starts after minSize bytes, so the expected chunk is minSize plus the distance
  // to the first match; sizing the mask from (avg - min) instead of avg keeps the mean near avg.
  const bits = Math.round(Math.log2(avgSize - minSize));
  return {
    minSize,
    normalSize: avgSize,
    maxSize,
    maskSmall: topBitsMask(bits + level),
    maskLarge: topBitsMask(bits - level),
  };
}

/**
 * Incremental chunker: feed an input in pieces of any size and get the same boundaries as a
 * one-shot {@linkcode chunkBoundaries} over the concatenation. It keeps no bytes, only the
 * rolling state, so memory stays constant for any file size.
 *
 * @example Chunk a file read in pieces
 * ```ts
 * import { ChunkStream } from "./chunker.ts";
 *
 * const stream = new ChunkStream();
 * const spans = [...stream.push(new Uint8Array(100_000)), ...stream.finish()];
 * console.log(spans.map((s) => s.length)); // [65536, 34464]
 * ```
 */
export class ChunkStream {
  #options: ResolvedOptions;
  #chunkStart = 0;
  #chunkLength = 0;
  #hash = 0;
  #finished = false;

  /** Creates a chunker; options are validated here and throw a RangeError when inconsistent. */
  constructor(options?: ChunkerOptions) {
    this.#options = resolveOptions(options);
  }

  /** Total bytes pushed so far. */
  get position(): number {
    return this.#chunkStart + this.#chunkLength;
  }

  /**
   * Consumes the next piece of input and returns the chunks completed by it (possibly none).
   * Offsets are relative to the start of the whole input.
   */
  push(bytes: Uint8Array): ChunkSpan[] {
    if (this.#finished) throw new Error("ChunkStream.push called after finish()");
    const spans: ChunkSpan[] = [];
    const { minSize, normalSize, maxSize, maskSmall, maskLarge } = this.#options;
    const gear = GEAR;
    const n = bytes.length;
    let i = 0;
    let length = this.#chunkLength;
    let hash = this.#hash;
    while (i < n) {
      if (length < minSize) {
        // Cut-point skipping: no boundary can fall before minSize, so these bytes are not hashed.
        const skip = Math.min(minSize - length, n - i);
        i += skip;
        length += skip;
        if (length < minSize) break;
        hash = 0;
      }
      let cut = false;
      // Stricter mask before the normal size and a looser one after it: this is what narrows the
      // chunk size distribution around the average.
      if (length < normalSize) {
        const end = Math.min(n, i + (normalSize - length));
        const start = i;
        for (; i < end; i++) {
          hash = ((hash << 1) + gear[bytes[i]]) | 0;
          if ((hash & maskSmall) === 0) {
            i++;
            cut = true;
            break;
          }
        }
        length += i - start;
      }
      if (!cut && length >= normalSize && i < n) {
        const end = Math.min(n, i + (maxSize - length));
        const start = i;
        for (; i < end; i++) {
          hash = ((hash << 1) + gear[bytes[i]]) | 0;
          if ((hash & maskLarge) === 0) {
            i++;
            cut = true;
            break;
          }
        }
        length += i - start;
      }
      if (cut || length >= maxSize) {
        spans.push({ offset: this.#chunkStart, length });
        this.#chunkStart += length;
        length = 0;
        hash = 0;
      }
    }
    this.#chunkLength = length;
    this.#hash = hash;
    return spans;
  }

  /** Ends the input and returns the trailing chunk, if any bytes are pending. */
  finish(): ChunkSpan[] {
    if (this.#finished) return [];
    this.#finished = true;
    if (this.#chunkLength === 0) return [];
    const span = { offset: this.#chunkStart, length: this.#chunkLength };
    this.#chunkStart += this.#chunkLength;
    this.#chunkLength = 0;
    return [span];
  }
}

/**
 * Returns the end offset (exclusive) of every chunk of `bytes`; the last entry equals
 * `bytes.length`. An empty input has no chunks.
 *
 * @example
 * ```ts
 * import { chunkBoundaries } from "./chunker.ts";
 *
 * const ends = chunkBoundaries(new Uint8Array(200_000));
 * console.log(ends.at(-1)); // 200000
 * ```
 */
export function chunkBoundaries(bytes: Uint8Array, options?: ChunkerOptions): number[] {
  const stream = new ChunkStream(options);
  const spans = [...stream.push(bytes), ...stream.finish()];
  return spans.map((span) => span.offset + span.length);
}

/**
 * Yields the chunk spans of an in-memory input, in order.
 *
 * @example
 * ```ts
 * import { chunkSpans } from "./chunker.ts";
 *
 * for (const { offset, length } of chunkSpans(new Uint8Array(70_000))) {
 *   console.log(offset, length);
 * }
 * ```
 */
export function* chunkSpans(bytes: Uint8Array, options?: ChunkerOptions): Generator<ChunkSpan> {
  const stream = new ChunkStream(options);
  yield* stream.push(bytes);
  yield* stream.finish();
}

/**
 * Takes the next `length` bytes off the front of `pending` (a queue of byte
 * pieces, which it shortens): a view when they lie inside the first piece,
 * the common case for large reads, else a copy joined across pieces.
 *
 * @example
 * ```ts
 * import { takeBytes } from "./chunker.ts";
 * const pending = [new Uint8Array([1, 2]), new Uint8Array([3, 4])];
 * takeBytes(pending, 3); // Uint8Array [1, 2, 3]; pending is now [Uint8Array [4]]
 * ```
 */
export function takeBytes(pending: Uint8Array[], length: number): Uint8Array {
  const head = pending[0];
  if (head.length >= length) {
    const data = head.subarray(0, length);
    if (head.length === length) pending.shift();
    else pending[0] = head.subarray(length);
    return data;
  }
  const data = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const piece = pending[0];
    const need = length - filled;
    if (piece.length <= need) {
      data.set(piece, filled);
      filled += piece.length;
      pending.shift();
    } else {
      data.set(piece.subarray(0, need), filled);
      pending[0] = piece.subarray(need);
      filled += need;
    }
  }
  return data;
}

/**
 * Chunks a stream of byte pieces (a file read in parts, a `ReadableStream`) and yields each chunk
 * with its bytes. Only the bytes of the chunk being formed are buffered.
 *
 * @example
 * ```ts
 * import { chunkIterable } from "./chunker.ts";
 *
 * using file = await Deno.open("deno.json");
 * for await (const chunk of chunkIterable(file.readable)) {
 *   console.log(chunk.offset, chunk.length, chunk.data.byteLength);
 * }
 * ```
 */
export async function* chunkIterable(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options?: ChunkerOptions,
): AsyncGenerator<Chunk> {
  const stream = new ChunkStream(options);
  // Pieces not yet handed out. They are private copies because a producer may reuse its read
  // buffer once we ask for the next piece, and a chunk usually spans several pieces.
  const pending: Uint8Array[] = [];

  const take = (span: ChunkSpan): Chunk => ({
    offset: span.offset,
    length: span.length,
    data: takeBytes(pending, span.length),
  });

  for await (const piece of source) {
    if (piece.length === 0) continue;
    pending.push(piece.slice());
    for (const span of stream.push(piece)) yield take(span);
  }
  for (const span of stream.finish()) yield take(span);
}
