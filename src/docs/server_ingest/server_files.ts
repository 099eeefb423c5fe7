/**
 * A file of an add on a database server, read before its write begins: its times, its hash
 * and size, and its bytes (or, for a file too large to hold, only what the index takes), so
 * the write holds the path's and the content's locks (see the store's `lockDocumentKeys`) for
 * as short a time as it can. Then storing it: the same chunks, counts and checks as SQLite's
 * content_store.ts (`putContent`, `putFileContent`), through the store's interface.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { ManifestEntry } from "../../store/docs/chunks.ts";
import type { StoreMode } from "../../store/repository.ts";
import { compressChunk } from "../compression.ts";
import { ContentHasher, sha256Hex } from "../content_hash.ts";
import { chunksOf, filePieces, MAX_IN_MEMORY_BYTES, type PutResult } from "../content_store.ts";
import { MAX_INDEXED_BYTES } from "../doc_index.ts";
import type { FileEntry } from "../doc_ingest/scan.ts";
import { readPrefix } from "../doc_ingest/scan.ts";
import { putContentIn } from "../store_content.ts";

/** A document's creation and modification times, ms. */
export interface FileTimes {
  /** Created. */
  created: number;
  /** Last modified. */
  modified: number;
}

/** One file (or inline content) ready to store. */
export interface PreparedFile {
  /** What is added, and where. */
  entry: FileEntry;
  /** Its times. */
  times: FileTimes;
  /** Its content hash. */
  hash: string;
  /** Its size, bytes. */
  size: number;
  /** All its bytes, when it is held in memory; undefined for a file streamed from disk. */
  bytes?: Uint8Array;
  /** Its first bytes, up to what the keyword index takes (text extraction reads these). */
  prefix: Uint8Array;
}

/** The times a file's status gives, as SQLite's engine takes them. */
export function timesOf(info: Deno.FileInfo, now: number): FileTimes {
  return {
    created: info.birthtime?.getTime() ?? info.mtime?.getTime() ?? now,
    modified: info.mtime?.getTime() ?? now,
  };
}

/** Bytes held in memory, ready to store. */
export function preparedBytes(entry: FileEntry, bytes: Uint8Array, times: FileTimes): PreparedFile {
  return {
    entry,
    times,
    hash: sha256Hex(bytes),
    size: bytes.length,
    bytes,
    prefix: bytes.length > MAX_INDEXED_BYTES ? bytes.subarray(0, MAX_INDEXED_BYTES) : bytes,
  };
}

/**
 * Reads a file of a folder add. A file larger than SQLite's in-memory limit (or
 * `inMemoryLimit`) is hashed piece by piece here and read again while it is stored, as SQLite's
 * `putFileContent` does.
 */
export async function prepareFile(
  entry: FileEntry,
  info: Deno.FileInfo,
  now: number,
  inMemoryLimit: number = MAX_IN_MEMORY_BYTES,
): Promise<PreparedFile> {
  const times = timesOf(info, now);
  if (info.size > inMemoryLimit) {
    const hasher = new ContentHasher();
    for (const piece of filePieces(entry.path)) hasher.update(piece);
    return {
      entry,
      times,
      hash: hasher.digestHex(),
      size: hasher.byteLength,
      prefix: readPrefix(entry.path, MAX_INDEXED_BYTES),
    };
  }
  return preparedBytes(entry, await Deno.readFile(entry.path), times);
}

/** Stores a prepared file's content (inside the caller's write, which holds its hash's lock). */
export function putPreparedIn(
  docs: DocsStore<StoreMode>,
  file: PreparedFile,
  now: number,
): Promise<PutResult> {
  if (file.bytes !== undefined) return putContentIn(docs, file.bytes, now);
  return putStreamedIn(docs, file, now);
}

/**
 * Stores a file too large to hold, chunk by chunk as it is read again. A file that changed
 * since it was hashed fails with `conflict` (the add reports it skipped), and the write's
 * rollback takes back the chunks it stored.
 */
async function putStreamedIn(
  docs: DocsStore<StoreMode>,
  file: PreparedFile,
  now: number,
): Promise<PutResult> {
  if (await docs.contentExists(file.hash)) {
    return {
      hash: file.hash,
      size: file.size,
      chunk_count: (await docs.contentManifest(file.hash)).length,
      new_chunks: 0,
      new_bytes: 0,
      stored_bytes: 0,
      existed: true,
    };
  }
  const manifest: ManifestEntry[] = [];
  const check = new ContentHasher();
  const put = { new_chunks: 0, new_bytes: 0, stored_bytes: 0 };
  let offset = 0;
  for (const chunk of chunksOf(filePieces(file.entry.path))) {
    check.update(chunk);
    const chunkHash = sha256Hex(chunk);
    if (await docs.chunkExists(chunkHash)) {
      await docs.addChunkReferences(chunkHash, 1);
    } else {
      const stored = compressChunk(chunk);
      await docs.insertChunk(chunkHash, chunk.length, stored);
      put.new_chunks++;
      put.new_bytes += chunk.length;
      put.stored_bytes += stored.length;
    }
    manifest.push({ seq: manifest.length, chunk_hash: chunkHash, offset, length: chunk.length });
    offset += chunk.length;
  }
  if (check.digestHex() !== file.hash) {
    throw new VantageError(
      "conflict",
      `${file.entry.path} changed while it was being stored; add it again once it is no longer being written`,
      { details: { path: file.entry.path } },
    );
  }
  await docs.insertContent(file.hash, offset, manifest, now);
  return {
    hash: file.hash,
    size: offset,
    chunk_count: manifest.length,
    ...put,
    existed: false,
  };
}
