/**
 * The content-addressed store written and read through the {@linkcode DocsStore} interface,
 * so the same code runs on SQLite (answers at once) and on a database server (answers later):
 * the same FastCDC chunks, the same zstd framing and the same hashes as content_store.ts, and
 * the same verification on every read (each chunk's hash and length, then the whole content's).
 *
 * content_store.ts stays SQLite's fast path: its writes are synchronous so a SQLite
 * transaction never spans an `await`, and its reads name the pack file of a damaged chunk and
 * record the damage as the store's health. Here a damaged chunk is reported the same way to
 * the caller; a server keeps no pack files to name.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { ManifestEntry } from "../store/docs/chunks.ts";
import type { StoreMode } from "../store/repository.ts";
import { chunkSpans } from "./chunker.ts";
import { compressChunk } from "./compression.ts";
import { ContentHasher, sha256Hex } from "./content_hash.ts";
import {
  chunkPlace,
  type ContentLabel,
  CorruptContentError,
  decodeCheckedChunk,
  type PutResult,
} from "./content_store.ts";

/**
 * Stores bytes as a content (inside the caller's write); an already stored content costs one
 * lookup. The same chunks and counts as content_store.ts's `putContent`.
 *
 * @example
 * ```ts ignore
 * await store.transaction((s) => putContentIn(s.docs, bytes, Date.now()));
 * ```
 */
export async function putContentIn(
  docs: DocsStore<StoreMode>,
  bytes: Uint8Array,
  now: number,
): Promise<PutResult> {
  const hash = sha256Hex(bytes);
  if (await docs.contentExists(hash)) {
    return {
      hash,
      size: bytes.length,
      chunk_count: (await docs.contentManifest(hash)).length,
      new_chunks: 0,
      new_bytes: 0,
      stored_bytes: 0,
      existed: true,
    };
  }
  const manifest: ManifestEntry[] = [];
  let newChunks = 0;
  let newBytes = 0;
  let storedBytes = 0;
  for (const span of chunkSpans(bytes)) {
    const data = bytes.subarray(span.offset, span.offset + span.length);
    // A content that is one chunk (most text files) is hashed once, not twice.
    const chunkHash = span.offset === 0 && span.length === bytes.length ? hash : sha256Hex(data);
    if (await docs.chunkExists(chunkHash)) {
      await docs.addChunkReferences(chunkHash, 1);
    } else {
      const stored = compressChunk(data);
      await docs.insertChunk(chunkHash, data.length, stored);
      newChunks++;
      newBytes += data.length;
      storedBytes += stored.length;
    }
    manifest.push({
      seq: manifest.length,
      chunk_hash: chunkHash,
      offset: span.offset,
      length: span.length,
    });
  }
  await docs.insertContent(hash, bytes.length, manifest, now);
  return {
    hash,
    size: bytes.length,
    chunk_count: manifest.length,
    new_chunks: newChunks,
    new_bytes: newBytes,
    stored_bytes: storedBytes,
    existed: false,
  };
}

/** Reads one chunk of a content, checked against its manifest entry. */
async function verifiedChunk(
  docs: DocsStore<StoreMode>,
  entry: ManifestEntry,
  documentHash: string,
  label: ContentLabel,
): Promise<Uint8Array> {
  const { where, details } = chunkPlace(entry, documentHash, label);
  const stored = await docs.readChunk(entry.chunk_hash);
  if (stored === undefined) {
    throw new CorruptContentError(`${where} is missing from the store`, details);
  }
  const decoded = decodeCheckedChunk(entry, stored.data);
  if ("data" in decoded) return decoded.data;
  throw new CorruptContentError(`${where} is corrupt: ${decoded.problem}`, {
    ...details,
    ...(decoded.actual === undefined ? {} : { actual_hash: decoded.actual }),
  });
}

/**
 * Reads the first `limit` bytes of a stored content (all of it without a limit), verifying
 * every chunk it reads and, when it reads them all, the whole content's hash and size.
 *
 * @example
 * ```ts ignore
 * const bytes = await readContentFrom(store.docs, doc.hash, { path: doc.path, id: doc.id });
 * ```
 */
export async function readContentFrom(
  docs: DocsStore<StoreMode>,
  hash: string,
  label: ContentLabel,
  limit = Infinity,
): Promise<Uint8Array> {
  const size = await docs.contentSize(hash);
  if (size === undefined) {
    throw new CorruptContentError(
      `the content of document ${label.path} (${hash}) is missing from the store`,
      { document: label.path, document_hash: hash, document_id: label.id },
    );
  }
  const pieces: Uint8Array[] = [];
  const whole = new ContentHasher();
  let total = 0;
  for (const entry of await docs.contentManifest(hash)) {
    if (total >= limit) break;
    const data = await verifiedChunk(docs, entry, hash, label);
    whole.update(data);
    pieces.push(data);
    total += data.length;
  }
  if (total >= size) {
    const actual = whole.digestHex();
    if (actual !== hash || whole.byteLength !== size) {
      throw new CorruptContentError(
        `document ${label.path} (${hash}) is corrupt: its chunks reassemble to ${whole.byteLength} bytes hashing to ${actual}`,
        { document: label.path, document_hash: hash, document_id: label.id, actual_hash: actual },
      );
    }
  }
  const bytes = concatBytes(pieces);
  return bytes.length > limit ? bytes.subarray(0, limit) : bytes;
}
