/**
 * Chunk compression with a self-describing format: one codec tag byte followed by the payload.
 * The tag lets the store change codecs later without rewriting old chunks, and lets data that
 * does not compress (images, archives) be kept raw at the cost of a single byte.
 *
 * Deno's `node:zlib` provides zstd, which compresses text chunks well at several hundred MB/s.
 *
 * @module
 */

import { constants, zstdCompressSync, zstdDecompressSync } from "node:zlib";

/** Tag byte of a chunk stored as-is. */
export const CODEC_RAW = 0x00;
/** Tag byte of a zstd-compressed chunk. */
export const CODEC_ZSTD = 0x01;

/** Names of the codecs this module can read. */
export type CodecName = "raw" | "zstd";

const CODEC_NAMES: Record<number, CodecName> = { [CODEC_RAW]: "raw", [CODEC_ZSTD]: "zstd" };

/** Options for {@linkcode compressChunk}. */
export interface CompressOptions {
  /** zstd level, 1 (fastest) to 19. Default 3, zstd's own default: fast with a good ratio. */
  level?: number;
}

/** Options for {@linkcode decompressChunk}. */
export interface DecompressOptions {
  /**
   * Refuse to inflate beyond this many bytes, so a corrupt or hostile blob cannot exhaust memory.
   * Default 64 MiB, far above any chunk the chunker produces.
   */
  maxOutputLength?: number;
}

const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

// Below this size chunks are kept raw. A zstd call through node:zlib costs ~25 µs however small
// the input (measured here: 1 KB notes at 27 µs each), so for a 1 KB note it is most of the cost
// of storing it, to save a few hundred bytes; small documents are a small share of a store's bytes.
const MIN_COMPRESSIBLE = 4096;

// Bytes sampled, and the entropy (bits per byte) above which a sample is taken as already
// compressed or random: zstd would spend its time finding nothing (archives, images, media).
// Text sits near 4.5–5.5 bits and executables near 6; a 1 KiB sample of random bytes near 7.8.
const ENTROPY_SAMPLE = 1024;
const RANDOM_ENTROPY = 7.5;

/** Whether a sample of `data` is too close to random for zstd to gain anything. */
function looksRandom(data: Uint8Array): boolean {
  const counts = new Uint32Array(256);
  const step = Math.max(1, Math.floor(data.length / ENTROPY_SAMPLE));
  let sampled = 0;
  // Evenly spread over the chunk, so a compressible tail after a random head still counts.
  for (let at = 0; at < data.length && sampled < ENTROPY_SAMPLE; at += step) {
    counts[data[at]]++;
    sampled++;
  }
  let bits = 0;
  for (const count of counts) {
    if (count === 0) continue;
    const p = count / sampled;
    bits -= p * Math.log2(p);
  }
  return bits > RANDOM_ENTROPY;
}

function withTag(tag: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + 1);
  out[0] = tag;
  out.set(payload, 1);
  return out;
}

/**
 * Encodes chunk bytes for storage: zstd when that makes the chunk smaller, raw otherwise.
 *
 * @example
 * ```ts
 * import { compressChunk, decompressChunk } from "./compression.ts";
 *
 * const text = new TextEncoder().encode("hello ".repeat(1000));
 * const stored = compressChunk(text);
 * console.log(stored.length < text.length); // true
 * console.log(decompressChunk(stored).length); // 6000
 * ```
 */
export function compressChunk(data: Uint8Array, options: CompressOptions = {}): Uint8Array {
  const level = options.level ?? 3;
  if (!Number.isInteger(level) || level < 1 || level > 19) {
    throw new RangeError(`Invalid compression level ${level} (expected an integer from 1 to 19)`);
  }
  if (data.length >= MIN_COMPRESSIBLE && !looksRandom(data)) {
    const packed = zstdCompressSync(data, {
      params: { [constants.ZSTD_c_compressionLevel]: level },
    });
    if (packed.length < data.length) return withTag(CODEC_ZSTD, packed);
  }
  return withTag(CODEC_RAW, data);
}

/**
 * Returns the codec a stored chunk was written with.
 *
 * @example
 * ```ts
 * import { codecOf, compressChunk } from "./compression.ts";
 *
 * codecOf(compressChunk(new Uint8Array(4))); // "raw"
 * ```
 */
export function codecOf(stored: Uint8Array): CodecName {
  if (stored.length === 0) {
    throw new Error("Stored chunk is empty: expected at least the 1-byte codec tag");
  }
  const name = CODEC_NAMES[stored[0]];
  if (name === undefined) throw unknownTag(stored[0]);
  return name;
}

function unknownTag(tag: number): Error {
  const hex = `0x${tag.toString(16).padStart(2, "0")}`;
  return new Error(
    `Unknown chunk codec tag ${hex} (known: 0x00 raw, 0x01 zstd); the data is corrupt or was ` +
      `written by a newer version`,
  );
}

/**
 * Decodes bytes written by {@linkcode compressChunk}. Throws on an empty input, an unknown codec
 * tag, a corrupt payload, or output larger than `maxOutputLength`.
 *
 * @example
 * ```ts
 * import { compressChunk, decompressChunk } from "./compression.ts";
 *
 * const bytes = new Uint8Array([1, 2, 3]);
 * decompressChunk(compressChunk(bytes)); // Uint8Array [1, 2, 3]
 * ```
 */
export function decompressChunk(stored: Uint8Array, options: DecompressOptions = {}): Uint8Array {
  const codec = codecOf(stored);
  const payload = stored.subarray(1);
  if (codec === "raw") return payload.slice();
  const maxOutputLength = options.maxOutputLength ?? DEFAULT_MAX_OUTPUT;
  let out: Uint8Array;
  try {
    out = zstdDecompressSync(payload, { maxOutputLength });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot decompress zstd chunk of ${stored.length} bytes: ${reason}`, {
      cause: error,
    });
  }
  // node:zlib hands back a Buffer; callers expect a plain Uint8Array over the same memory.
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
