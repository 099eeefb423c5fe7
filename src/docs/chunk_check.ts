/**
 * Checking one stored chunk: its bytes decoded and hashed against the hash
 * it is stored under. Verification uses it on every chunk, and repair on
 * every chunk it wrote back.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { readChunk } from "../store/docs/chunks.ts";
import { CODEC_RAW, decompressChunk } from "./compression.ts";
import { sha256Hex } from "./content_hash.ts";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What is wrong with a chunk's stored bytes (`stored`, as kept in its row
 * or pack) given its hash and raw size; undefined when they are whole.
 *
 * @example
 * ```ts
 * import { compressChunk } from "./compression.ts";
 * import { sha256Hex } from "./content_hash.ts";
 * import { storedBytesProblem } from "./chunk_check.ts";
 * const bytes = new TextEncoder().encode("hello");
 * storedBytesProblem(sha256Hex(bytes), bytes.length, compressChunk(bytes)); // undefined
 * ```
 */
export function storedBytesProblem(
  hash: string,
  size: number,
  stored: Uint8Array,
): string | undefined {
  let data: Uint8Array;
  try {
    // Raw bytes are hashed where they lie: copying them out would cost as much as the hash.
    data = stored.length > 0 && stored[0] === CODEC_RAW
      ? stored.subarray(1)
      : decompressChunk(stored);
  } catch (error) {
    return `cannot be decoded: ${messageOf(error)}`;
  }
  const actual = sha256Hex(data);
  if (actual !== hash) {
    return `is corrupt: its ${stored.length} stored bytes decode to ${data.length} bytes hashing to ${actual}`;
  }
  if (data.length !== size) return `is corrupt: it decodes to ${data.length} bytes, not ${size}`;
  return undefined;
}

/**
 * Reads a chunk through the normal read path (which follows a chunk a
 * concurrent compaction moved) and checks it: what is wrong with it now,
 * or undefined when it is whole (or no longer stored).
 */
export function chunkProblem(db: DatabaseSync, hash: string): string | undefined {
  let stored;
  try {
    stored = readChunk(db, hash);
  } catch (error) {
    return `cannot be read: ${messageOf(error)}`;
  }
  if (stored === undefined) return undefined;
  return storedBytesProblem(hash, stored.size, stored.data);
}
