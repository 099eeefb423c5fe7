/**
 * The content-addressed block store: chunks (compressed, keyed by the
 * SHA-256 of their raw bytes, reference-counted) and contents (one row per
 * distinct document SHA-256, with the ordered list of its chunks).
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";
import { prepared } from "./docs_statements.ts";

/** One entry of a content's chunk list. */
export interface ManifestEntry {
  /** Position of the chunk in the content, from 0. */
  seq: number;
  /** SHA-256 of the chunk's raw bytes. */
  chunk_hash: string;
  /** Byte offset of the chunk in the content. */
  offset: number;
  /** Raw length of the chunk. */
  length: number;
}

/** A stored chunk as read back. */
export interface StoredChunk {
  /** Raw length recorded at write time. */
  size: number;
  /** The stored (codec-tagged, possibly compressed) bytes. */
  data: Uint8Array;
}

/** Whether a chunk with this hash is stored. */
export function chunkExists(db: DatabaseSync, hash: string): boolean {
  return prepared(db, "SELECT 1 AS x FROM docs_chunks WHERE hash = ?").get(hash) !== undefined;
}

/** Stores a new chunk with one reference. */
export function insertChunk(db: DatabaseSync, hash: string, size: number, data: Uint8Array): void {
  prepared(
    db,
    "INSERT INTO docs_chunks (hash, size, stored_size, ref_count, data) VALUES (?, ?, ?, 1, ?)",
  ).run(hash, size, data.length, data);
}

/** Adds `delta` references to a stored chunk. */
export function addChunkReferences(db: DatabaseSync, hash: string, delta: number): void {
  prepared(db, "UPDATE docs_chunks SET ref_count = ref_count + ? WHERE hash = ?").run(delta, hash);
}

/** Reads one chunk, or undefined when it is not stored. */
export function readChunk(db: DatabaseSync, hash: string): StoredChunk | undefined {
  const row = prepared(db, "SELECT size, data FROM docs_chunks WHERE hash = ?").get(hash) as
    | { size: number; data: Uint8Array }
    | undefined;
  return row === undefined ? undefined : { size: row.size, data: row.data };
}

/** Whether a content with this document hash is stored. */
export function contentExists(db: DatabaseSync, hash: string): boolean {
  return prepared(db, "SELECT 1 AS x FROM docs_contents WHERE hash = ?").get(hash) !== undefined;
}

/**
 * Records a content and its ordered chunk list (the chunks must already hold
 * a reference each). A content of one chunk needs no list: that chunk's hash
 * is the content's own hash.
 */
export function insertContent(
  db: DatabaseSync,
  hash: string,
  size: number,
  manifest: readonly ManifestEntry[],
  createdAt: number,
): void {
  prepared(
    db,
    "INSERT INTO docs_contents (hash, size, chunk_count, created_at) VALUES (?, ?, ?, ?)",
  ).run(hash, size, manifest.length, createdAt);
  if (manifest.length === 1 && manifest[0].chunk_hash === hash) return;
  const entry = prepared(
    db,
    "INSERT INTO docs_content_chunks (content_hash, seq, chunk_hash, offset, length) VALUES (?, ?, ?, ?, ?)",
  );
  for (const item of manifest) entry.run(hash, item.seq, item.chunk_hash, item.offset, item.length);
}

/** The ordered chunk list of a content (empty when the content is unknown or empty). */
export function contentManifest(db: DatabaseSync, hash: string): ManifestEntry[] {
  const rows = prepared(
    db,
    "SELECT seq, chunk_hash, offset, length FROM docs_content_chunks WHERE content_hash = ? ORDER BY seq",
  ).all(hash) as unknown as ManifestEntry[];
  if (rows.length > 0) return rows;
  const content = prepared(db, "SELECT size, chunk_count FROM docs_contents WHERE hash = ?").get(
    hash,
  ) as { size: number; chunk_count: number } | undefined;
  if (content === undefined || content.chunk_count !== 1) return [];
  return [{ seq: 0, chunk_hash: hash, offset: 0, length: content.size }];
}

/** Size of a stored content, or undefined when unknown. */
export function contentSize(db: DatabaseSync, hash: string): number | undefined {
  const row = prepared(db, "SELECT size FROM docs_contents WHERE hash = ?").get(hash) as
    | { size: number }
    | undefined;
  return row?.size;
}

/**
 * Removes a content no document uses any more, releasing one reference on
 * each of its chunks. Returns false when a document still uses it.
 */
export function releaseContentIfUnused(db: DatabaseSync, hash: string): boolean {
  const used = prepared(db, "SELECT 1 AS x FROM docs_documents WHERE hash = ? LIMIT 1").get(hash);
  if (used !== undefined) return false;
  const release = prepared(db, "UPDATE docs_chunks SET ref_count = ref_count - 1 WHERE hash = ?");
  for (const entry of contentManifest(db, hash)) release.run(entry.chunk_hash);
  prepared(db, "DELETE FROM docs_contents WHERE hash = ?").run(hash);
  return true;
}

/** Deletes every chunk no content references; returns how many and their stored bytes. */
export function deleteUnreferencedChunks(db: DatabaseSync): { chunks: number; bytes: number } {
  const row = prepared(
    db,
    "SELECT count(*) AS chunks, coalesce(sum(stored_size), 0) AS bytes FROM docs_chunks WHERE ref_count <= 0",
  ).get() as { chunks: number; bytes: number };
  if (row.chunks > 0) prepared(db, "DELETE FROM docs_chunks WHERE ref_count <= 0").run();
  return { chunks: row.chunks, bytes: row.bytes };
}

/** Totals of the block store. */
export interface ChunkTotals {
  /** Distinct chunks stored. */
  chunks: number;
  /** Their raw bytes. */
  raw_bytes: number;
  /** Their bytes as stored (after compression). */
  stored_bytes: number;
}

/** Counts stored chunks and their bytes. */
export function chunkTotals(db: DatabaseSync): ChunkTotals {
  return prepared(
    db,
    `SELECT count(*) AS chunks, coalesce(sum(size), 0) AS raw_bytes,
            coalesce(sum(stored_size), 0) AS stored_bytes FROM docs_chunks`,
  ).get() as unknown as ChunkTotals;
}
