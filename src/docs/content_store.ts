/**
 * The content-addressed store: a document's bytes are split by FastCDC into
 * chunks, each kept once (zstd-compressed, keyed by its SHA-256, reference
 * counted), and the document is the ordered list of its chunks under the
 * SHA-256 of all its bytes. Every read re-hashes what it returns, so a
 * damaged chunk is reported — naming the chunk and the document — instead
 * of being handed back.
 *
 * Writes must run inside the caller's transaction; they are synchronous so a
 * transaction never spans an `await`.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { VantageError } from "../core/errors.ts";
import { type DatabaseSync, transaction } from "../store/database.ts";
import {
  addChunkReferences,
  chunkExists,
  chunkPackFile,
  compactChunkPacks,
  contentExists,
  contentManifest,
  contentSize,
  deleteUnreferencedChunks,
  insertChunk,
  insertContent,
  type ManifestEntry,
  readChunk,
} from "../store/docs/chunks.ts";
import { documentsWithContent } from "../store/docs/integrity.ts";
import { noticeStoreDamage } from "../store/store_health.ts";
import { chunkSpans, ChunkStream, takeBytes } from "./chunker.ts";
import { compressChunk, decompressChunk } from "./compression.ts";
import { ContentHasher, sha256Hex } from "./content_hash.ts";

/** Files up to this size are read whole; larger ones are streamed in two passes. */
export const MAX_IN_MEMORY_BYTES = 64 * 1024 * 1024;

const PIECE_BYTES = 4 * 1024 * 1024;

/** What storing one content did. */
export interface PutResult {
  /** SHA-256 of the whole content. */
  hash: string;
  /** Bytes. */
  size: number;
  /** Chunks the content is made of. */
  chunk_count: number;
  /** Chunks that were not stored before. */
  new_chunks: number;
  /** Raw bytes of those new chunks. */
  new_bytes: number;
  /** Their bytes as stored (after compression). */
  stored_bytes: number;
  /** True when the content was already stored (nothing was written). */
  existed: boolean;
}

/** A stored chunk does not match its hash, cannot be decoded, or is missing. */
export class CorruptContentError extends VantageError {
  /** Creates the error for one chunk of one document. */
  constructor(message: string, details: Record<string, unknown>) {
    super("internal_error", message, { details });
    this.name = "CorruptContentError";
  }
}

/**
 * The error for damaged content, recorded first as the store's health (so
 * `/api/health` and `docs.status` know, whoever met it and whether or not
 * the caller goes on past it). A document deleted by another process while
 * it was being read also loses its chunks midway: that is not damage, and
 * is not recorded.
 */
function corrupt(
  db: DatabaseSync,
  message: string,
  details: Record<string, unknown>,
): CorruptContentError {
  const error = new CorruptContentError(message, details);
  const hash = details.document_hash;
  try {
    const stillStored = typeof hash !== "string" || contentExists(db, hash) ||
      documentsWithContent(db, hash).length > 0;
    if (stillStored) noticeStoreDamage(db, error);
  } catch {
    // A store too damaged to answer: the error itself still says what was met.
  }
  return error;
}

class ChunkWriter {
  readonly manifest: ManifestEntry[] = [];
  newChunks = 0;
  newBytes = 0;
  storedBytes = 0;
  #offset = 0;

  constructor(private readonly db: DatabaseSync) {}

  /** Stores one chunk; `knownHash` is its SHA-256 when the caller already has it. */
  write(data: Uint8Array, knownHash?: string): void {
    const hash = knownHash ?? sha256Hex(data);
    if (chunkExists(this.db, hash)) {
      addChunkReferences(this.db, hash, 1);
    } else {
      const stored = compressChunk(data);
      insertChunk(this.db, hash, data.length, stored);
      this.newChunks++;
      this.newBytes += data.length;
      this.storedBytes += stored.length;
    }
    this.manifest.push({
      seq: this.manifest.length,
      chunk_hash: hash,
      offset: this.#offset,
      length: data.length,
    });
    this.#offset += data.length;
  }

  /**
   * Gives back the references taken so far (the content will not be
   * recorded); chunks left unreferenced are removed by the next collection.
   */
  abandon(): void {
    for (const entry of this.manifest) addChunkReferences(this.db, entry.chunk_hash, -1);
    this.manifest.length = 0;
  }

  finish(hash: string, size: number, now: number): PutResult {
    insertContent(this.db, hash, size, this.manifest, now);
    return {
      hash,
      size,
      chunk_count: this.manifest.length,
      new_chunks: this.newChunks,
      new_bytes: this.newBytes,
      stored_bytes: this.storedBytes,
      existed: false,
    };
  }
}

function existing(db: DatabaseSync, hash: string, size: number): PutResult {
  return {
    hash,
    size,
    chunk_count: contentManifest(db, hash).length,
    new_chunks: 0,
    new_bytes: 0,
    stored_bytes: 0,
    existed: true,
  };
}

/**
 * Stores bytes held in memory; an already stored content costs one lookup.
 *
 * @example
 * ```ts ignore
 * transaction(db, () => putContent(db, new TextEncoder().encode("hello"), Date.now()));
 * ```
 */
export function putContent(db: DatabaseSync, bytes: Uint8Array, now: number): PutResult {
  const hash = sha256Hex(bytes);
  if (contentExists(db, hash)) return existing(db, hash, bytes.length);
  const writer = new ChunkWriter(db);
  for (const span of chunkSpans(bytes)) {
    // A content that is one chunk (most text files) is hashed once, not twice.
    const whole = span.offset === 0 && span.length === bytes.length;
    writer.write(bytes.subarray(span.offset, span.offset + span.length), whole ? hash : undefined);
  }
  return writer.finish(hash, bytes.length, now);
}

/**
 * Stores a file too large to hold in memory: one pass hashes it (an
 * unchanged file stops there), a second chunks and stores it.
 */
export function putFileContent(db: DatabaseSync, path: string, now: number): PutResult {
  const hasher = new ContentHasher();
  for (const piece of filePieces(path)) hasher.update(piece);
  const hash = hasher.digestHex();
  const size = hasher.byteLength;
  if (contentExists(db, hash)) return existing(db, hash, size);
  const writer = new ChunkWriter(db);
  const check = new ContentHasher();
  try {
    for (const chunk of chunksOf(filePieces(path))) {
      check.update(chunk);
      writer.write(chunk);
    }
  } catch (error) {
    writer.abandon();
    throw error;
  }
  // The file changed between the passes: storing it under the first hash would be a lie.
  if (check.digestHex() !== hash) {
    writer.abandon();
    throw new VantageError(
      "conflict",
      `${path} changed while it was being stored; add it again once it is no longer being written`,
      { details: { path } },
    );
  }
  return writer.finish(hash, size, now);
}

/** Reads a file synchronously in fresh buffers (callers may keep each piece). */
export function* filePieces(path: string, pieceBytes = PIECE_BYTES): Generator<Uint8Array> {
  const file = Deno.openSync(path, { read: true });
  try {
    while (true) {
      const buffer = new Uint8Array(pieceBytes);
      let filled = 0;
      while (filled < buffer.length) {
        const read = file.readSync(buffer.subarray(filled));
        if (read === null) break;
        filled += read;
      }
      if (filled > 0) yield buffer.subarray(0, filled);
      if (filled < buffer.length) return;
    }
  } finally {
    file.close();
  }
}

/** Splits a sequence of byte pieces into FastCDC chunks (the same cuts as one buffer would get). */
export function* chunksOf(pieces: Iterable<Uint8Array>): Generator<Uint8Array> {
  const stream = new ChunkStream();
  const pending: Uint8Array[] = [];
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    pending.push(piece);
    for (const span of stream.push(piece)) yield takeBytes(pending, span.length);
  }
  for (const span of stream.finish()) yield takeBytes(pending, span.length);
}

/** How a document is named in integrity errors. */
export interface ContentLabel {
  /** The document's path or name. */
  path: string;
  /** Its id, when known. */
  id?: number;
}

/**
 * Yields a stored content's bytes chunk by chunk, verifying each chunk's
 * hash and length and finally the whole content's hash.
 */
export function* readContentPieces(
  db: DatabaseSync,
  hash: string,
  label: ContentLabel,
): Generator<Uint8Array> {
  const size = contentSize(db, hash);
  if (size === undefined) {
    throw corrupt(db, `the content of document ${label.path} (${hash}) is missing from the store`, {
      document: label.path,
      document_hash: hash,
      document_id: label.id,
    });
  }
  const whole = new ContentHasher();
  for (const entry of contentManifest(db, hash)) {
    const data = readVerifiedChunk(db, entry, hash, label);
    whole.update(data);
    yield data;
  }
  const actual = whole.digestHex();
  if (actual !== hash || whole.byteLength !== size) {
    throw corrupt(
      db,
      `document ${label.path} (${hash}) is corrupt: its chunks reassemble to ${whole.byteLength} bytes hashing to ${actual}`,
      { document: label.path, document_hash: hash, document_id: label.id, actual_hash: actual },
    );
  }
}

/** Reads a whole stored content, verified. */
export function readContent(db: DatabaseSync, hash: string, label: ContentLabel): Uint8Array {
  return concatBytes([...readContentPieces(db, hash, label)]);
}

/**
 * Reads the first bytes of a stored content (at least `limit` when the
 * content is that long), verifying every chunk it touches.
 */
export function readContentPrefix(
  db: DatabaseSync,
  hash: string,
  label: ContentLabel,
  limit: number,
): Uint8Array {
  const pieces: Uint8Array[] = [];
  let total = 0;
  for (const entry of contentManifest(db, hash)) {
    if (total >= limit) break;
    const data = readVerifiedChunk(db, entry, hash, label);
    pieces.push(data);
    total += data.length;
  }
  const out = new Uint8Array(Math.min(total, limit));
  let offset = 0;
  for (const piece of pieces) {
    const take = Math.min(piece.length, out.length - offset);
    out.set(piece.subarray(0, take), offset);
    offset += take;
    if (offset >= out.length) break;
  }
  return out;
}

/** How a chunk of a document is named in integrity errors, and the details they carry. */
export function chunkPlace(
  entry: ManifestEntry,
  documentHash: string,
  label: ContentLabel,
): { where: string; details: Record<string, unknown> } {
  return {
    where: `chunk ${entry.chunk_hash} (#${entry.seq}) of document ${label.path} (${documentHash})`,
    details: {
      chunk_hash: entry.chunk_hash,
      chunk_index: entry.seq,
      document: label.path,
      document_hash: documentHash,
      document_id: label.id,
    },
  };
}

/**
 * A stored chunk's bytes decoded and checked against its chunk-list entry: the raw bytes, or
 * what is wrong (the words after "is corrupt: ", and the hash the bytes have when they decode).
 */
export function decodeCheckedChunk(
  entry: ManifestEntry,
  stored: Uint8Array,
): { data: Uint8Array } | { problem: string; actual?: string } {
  let data: Uint8Array;
  try {
    data = decompressChunk(stored);
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  const actual = sha256Hex(data);
  if (actual !== entry.chunk_hash || data.length !== entry.length) {
    return { problem: `its ${data.length} stored bytes hash to ${actual}`, actual };
  }
  return { data };
}

function readVerifiedChunk(
  db: DatabaseSync,
  entry: ManifestEntry,
  documentHash: string,
  label: ContentLabel,
): Uint8Array {
  const { where, details } = chunkPlace(entry, documentHash, label);
  let stored;
  try {
    stored = readChunk(db, entry.chunk_hash);
  } catch (error) {
    const pack = chunkPackFile(db, entry.chunk_hash);
    throw corrupt(
      db,
      `${where} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      { ...details, ...(pack === undefined ? {} : { pack_file: pack }) },
    );
  }
  if (stored === undefined) {
    throw corrupt(db, `${where} is missing from the store`, details);
  }
  const decoded = decodeCheckedChunk(entry, stored.data);
  if ("data" in decoded) return decoded.data;
  const pack = chunkPackFile(db, entry.chunk_hash);
  throw corrupt(
    db,
    `${where} is corrupt${pack === undefined ? "" : ` (stored in ${pack})`}: ${decoded.problem}`,
    {
      ...details,
      ...(decoded.actual === undefined ? {} : { actual_hash: decoded.actual }),
      ...(pack === undefined ? {} : { pack_file: pack }),
    },
  );
}

/**
 * Deletes chunks no content references any more (inside the caller's
 * transaction); returns how many and the bytes freed. Follow it with
 * {@linkcode compactPacks} once the transaction has committed.
 */
export function collectGarbage(db: DatabaseSync): { chunks: number; bytes: number } {
  return deleteUnreferencedChunks(db);
}

/** Bytes of chunks one compaction transaction copies at most (about 25 ms of work). */
const COMPACTION_STEP_BYTES = 8 * 1024 * 1024;

/**
 * Removes packs nothing uses and rewrites packs mostly unused, in
 * transactions of its own that each copy at most a few MiB, so other writers
 * never wait long behind it. Must not run inside a transaction.
 */
export function compactPacks(db: DatabaseSync): void {
  while (transaction(db, () => compactChunkPacks(db, COMPACTION_STEP_BYTES)));
}
