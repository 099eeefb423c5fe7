/**
 * Putting damaged chunks back from a document's original file: the file is
 * used only when it is still at the document's stored path and hashes to
 * the stored content hash; it is chunked again (the chunker cuts the same
 * bytes the same way) and each chunk wanted is taken by its own hash, then
 * written back in one transaction through the same pack placement as an
 * add.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { type DatabaseSync, transaction } from "../store/database.ts";
import { chunkReferenceCount, rewriteChunkBytes } from "../store/docs/chunks.ts";
import { currentPackNumber, rotatePack } from "../store/docs/packs.ts";
import { chunksOf, filePieces, putFileContent } from "./content_store.ts";
import { compressChunk } from "./compression.ts";
import { ContentHasher, sha256Hex } from "./content_hash.ts";
import type { Pacer } from "./pacer.ts";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A chunk's bytes recovered from a file, ready to store. */
export interface RecoveredChunk {
  /** Raw length. */
  size: number;
  /** The bytes as stored (codec-tagged). */
  stored: Uint8Array;
}

/**
 * Reads the original file of a document, if it is still there and still
 * the stored content, and takes the bytes of the chunks in `wanted`.
 * Returns the chunks found, or why the file cannot serve.
 */
export async function recoverFromFile(
  path: string,
  contentHash: string,
  wanted: ReadonlySet<string>,
  pacer: Pacer,
): Promise<Map<string, RecoveredChunk> | string> {
  if (!isAbsolute(path)) return `it was not added from a file ('${path}' is a name, not a path)`;
  const permission = Deno.permissions.querySync({ name: "read", path });
  if (permission.state !== "granted") {
    return `reading ${path} is not allowed here (add its folder to VANTAGE_ROOTS)`;
  }
  try {
    if (!Deno.statSync(path).isFile) return `${path} is no longer a file`;
  } catch {
    return `its original file ${path} no longer exists`;
  }
  try {
    const hasher = new ContentHasher();
    for (const piece of filePieces(path)) {
      hasher.update(piece);
      if (pacer.due) await pacer.pause();
    }
    const actual = hasher.digestHex();
    if (actual !== contentHash) {
      return `its original file ${path} has changed since it was stored (it hashes to ${actual})`;
    }
    const found = new Map<string, RecoveredChunk>();
    for (const chunk of chunksOf(filePieces(path))) {
      const hash = sha256Hex(chunk);
      if (wanted.has(hash) && !found.has(hash)) {
        found.set(hash, { size: chunk.length, stored: compressChunk(chunk) });
      }
      if (pacer.due) await pacer.pause();
    }
    return found;
  } catch (error) {
    if (pacer.signal?.aborted) throw error;
    return `reading its original file ${path} failed: ${messageOf(error)}`;
  }
}

/** Writes recovered chunks back (and the content row, when that was lost) in one transaction. */
export function writeRecovered(
  db: DatabaseSync,
  damagedPacks: ReadonlySet<number>,
  contentHash: string,
  contentMissing: boolean,
  path: string,
  chunks: ReadonlyMap<string, RecoveredChunk>,
): void {
  transaction(db, () => {
    // New bytes must not land in a pack that is itself missing, short or damaged.
    if (damagedPacks.has(currentPackNumber(db))) rotatePack(db);
    for (const [hash, chunk] of chunks) {
      rewriteChunkBytes(db, hash, chunk.size, chunk.stored, () => chunkReferenceCount(db, hash));
    }
    if (contentMissing) {
      const put = putFileContent(db, path, Date.now());
      if (put.hash !== contentHash) {
        throw new Error(`${path} changed while it was read (it now hashes to ${put.hash})`);
      }
    }
  });
}
