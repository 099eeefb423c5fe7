/**
 * The content-addressed block store: chunks (compressed, keyed by the
 * SHA-256 of their raw bytes, reference-counted) and contents (one row per
 * distinct document SHA-256, with the ordered list of its chunks). A small
 * chunk's bytes are in its row; a larger one's are in a pack file
 * (`packs.ts`) and its row says where.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import {
  appendToPack,
  currentPackNumber,
  listPackFiles,
  packFilePath,
  type PackLocation,
  readFromPack,
  removePackAfterCommit,
  rotatePack,
} from "./packs.ts";

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

/** Reads an entry of a content's chunk list. (Both backends read it with this reader.) */
export const MANIFEST_ENTRY: RowReader<ManifestEntry> = new RowReader<ManifestEntry>(
  "chunk list entry",
  {
    seq: "number",
    chunk_hash: "text",
    offset: "number",
    length: "number",
  },
);

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

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

/** Stores a new chunk with one reference (its bytes in a pack when it is large enough). */
export function insertChunk(db: DatabaseSync, hash: string, size: number, data: Uint8Array): void {
  prepared(
    db,
    `INSERT INTO docs_chunks (hash, size, stored_size, ref_count, data, pack, pack_offset)
     VALUES (?, ?, ?, 1, ?, ?, ?)`,
  ).run(hash, size, data.length, ...place(db, data));
}

const EMPTY = new Uint8Array(0);

/**
 * Puts a chunk's stored bytes in a pack when they go there; returns the
 * row's `data`, `pack` and `pack_offset` values either way.
 */
function place(db: DatabaseSync, data: Uint8Array): [Uint8Array, number | null, number | null] {
  const location = appendToPack(db, data);
  return location === undefined ? [data, null, null] : [EMPTY, location.pack, location.offset];
}

/**
 * Puts back the stored bytes of a damaged (or lost) chunk, inside the
 * caller's transaction, through the same placement as
 * {@linkcode insertChunk}: into the current pack when they are large enough,
 * else into the row. The row keeps its references; a row that was lost is
 * made again with `references` (see {@linkcode chunkReferenceCount}). The
 * bytes the row pointed at before stay where they are, unreferenced, until
 * pack compaction reclaims them.
 */
export function rewriteChunkBytes(
  db: DatabaseSync,
  hash: string,
  size: number,
  data: Uint8Array,
  references: () => number,
): void {
  const [bytes, pack, offset] = place(db, data);
  const updated = prepared(
    db,
    "UPDATE docs_chunks SET size = ?, stored_size = ?, data = ?, pack = ?, pack_offset = ? WHERE hash = ?",
  ).run(size, data.length, bytes, pack, offset, hash);
  if (Number(updated.changes) > 0) return;
  prepared(
    db,
    `INSERT INTO docs_chunks (hash, size, stored_size, ref_count, data, pack, pack_offset)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(hash, size, data.length, references(), bytes, pack, offset);
}

/**
 * How many references a chunk should hold: one per entry of a chunk list
 * naming it, and one per single-chunk content that is the chunk itself.
 * Reads every chunk list (chunk lists are not indexed by chunk): for repair.
 */
export function chunkReferenceCount(db: DatabaseSync, hash: string): number {
  const listed = COUNT.one(
    prepared(db, "SELECT count(*) AS n FROM docs_content_chunks WHERE chunk_hash = ?").get(hash),
  ).n;
  const whole = prepared(
    db,
    `SELECT 1 AS x FROM docs_contents c WHERE c.hash = ? AND c.chunk_count = 1
       AND NOT EXISTS (SELECT 1 FROM docs_content_chunks m WHERE m.content_hash = c.hash)`,
  ).get(hash);
  return listed + (whole === undefined ? 0 : 1);
}

const PACK_OF = new RowReader<{ pack: number | null }>("chunk pack", { pack: "number?" });

/** The pack file a chunk's bytes are in; undefined when they are in its row (or it is not stored). */
export function chunkPackFile(db: DatabaseSync, hash: string): string | undefined {
  const row = PACK_OF.optional(
    prepared(db, "SELECT pack FROM docs_chunks WHERE hash = ?").get(hash),
  );
  return row?.pack === null || row?.pack === undefined ? undefined : packFilePath(db, row.pack);
}

/** Adds `delta` references to a stored chunk. */
export function addChunkReferences(db: DatabaseSync, hash: string, delta: number): void {
  prepared(db, "UPDATE docs_chunks SET ref_count = ref_count + ? WHERE hash = ?").run(delta, hash);
}

interface ChunkRow {
  size: number;
  stored_size: number;
  data: Uint8Array;
  pack: number | null;
  pack_offset: number | null;
}

const CHUNK = new RowReader<ChunkRow>("chunk", {
  size: "number",
  stored_size: "number",
  data: "bytes",
  pack: "number?",
  pack_offset: "number?",
});

function chunkRow(db: DatabaseSync, hash: string): ChunkRow | undefined {
  return CHUNK.optional(
    prepared(db, `SELECT ${CHUNK.columns} FROM docs_chunks WHERE hash = ?`).get(hash),
  );
}

function packLocation(row: ChunkRow): PackLocation | undefined {
  return row.pack === null ? undefined : { pack: row.pack, offset: row.pack_offset ?? 0 };
}

/**
 * Reads one chunk, or undefined when it is not stored. Throws an error
 * naming the pack when the chunk's pack is missing or too short.
 */
export function readChunk(db: DatabaseSync, hash: string): StoredChunk | undefined {
  const row = chunkRow(db, hash);
  if (row === undefined) return undefined;
  const location = packLocation(row);
  if (location === undefined) return { size: row.size, data: row.data };
  try {
    return { size: row.size, data: readFromPack(db, location, row.stored_size) };
  } catch (error) {
    // Another process may have compacted the pack away since the row was read: ask again.
    const again = chunkRow(db, hash);
    if (again === undefined) return undefined;
    const moved = packLocation(again);
    if (moved?.pack === location.pack && moved.offset === location.offset) throw error;
    if (moved === undefined) return { size: again.size, data: again.data };
    return { size: again.size, data: readFromPack(db, moved, again.stored_size) };
  }
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

/** Reads a content's size and chunk count. (Both backends read it with this reader.) */
export const CONTENT_SIZE: RowReader<{ size: number; chunk_count: number }> = new RowReader<
  { size: number; chunk_count: number }
>(
  "content",
  {
    size: "number",
    chunk_count: "number",
  },
);

/** The ordered chunk list of a content (empty when the content is unknown or empty). */
export function contentManifest(db: DatabaseSync, hash: string): ManifestEntry[] {
  const rows = MANIFEST_ENTRY.all(
    prepared(
      db,
      "SELECT seq, chunk_hash, offset, length FROM docs_content_chunks WHERE content_hash = ? ORDER BY seq",
    ).all(hash),
  );
  if (rows.length > 0) return rows;
  const content = CONTENT_SIZE.optional(
    prepared(db, "SELECT size, chunk_count FROM docs_contents WHERE hash = ?").get(hash),
  );
  if (content === undefined || content.chunk_count !== 1) return [];
  return [{ seq: 0, chunk_hash: hash, offset: 0, length: content.size }];
}

/** Size of a stored content, or undefined when unknown. */
export function contentSize(db: DatabaseSync, hash: string): number | undefined {
  return CONTENT_SIZE.optional(
    prepared(db, "SELECT size, chunk_count FROM docs_contents WHERE hash = ?").get(hash),
  )?.size;
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

/** Reads how many unreferenced chunks went, and their stored bytes. (Both backends read it with this reader.) */
export const RELEASED: RowReader<{ chunks: number; bytes: number }> = new RowReader<
  { chunks: number; bytes: number }
>(
  "unreferenced chunks",
  {
    chunks: "number",
    bytes: "number",
  },
);

/**
 * Deletes every chunk no content references (inside the caller's
 * transaction); returns how many and their stored bytes. Packs this leaves
 * unused or mostly unused are dealt with by {@linkcode compactChunkPacks}.
 */
export function deleteUnreferencedChunks(db: DatabaseSync): { chunks: number; bytes: number } {
  const row = RELEASED.one(
    prepared(
      db,
      "SELECT count(*) AS chunks, coalesce(sum(stored_size), 0) AS bytes FROM docs_chunks WHERE ref_count <= 0",
    ).get(),
  );
  if (row.chunks > 0) prepared(db, "DELETE FROM docs_chunks WHERE ref_count <= 0").run();
  return { chunks: row.chunks, bytes: row.bytes };
}

const PACK_USE = new RowReader<{ pack: number; bytes: number }>("pack use", {
  pack: "number",
  bytes: "number",
});

/** A pack is rewritten once less than this share of it is still used… */
const COMPACT_LIVE_SHARE = 0.5;
/** …and the unused part is at least this large (small waste is not worth the copying). */
const COMPACT_MIN_WASTE_BYTES = 1024 * 1024;

/**
 * One step of pack compaction, inside a transaction of its own: schedules
 * packs nothing uses for removal, and copies chunks still used out of packs
 * mostly unused — at most about `budgetBytes` of them — removing such a pack
 * once it is empty. Removal waits for COMMIT, so a rollback loses nothing.
 * Returns true when more remains to copy: the caller commits and calls again,
 * so a large compaction never holds the writer lock for long.
 */
export function compactChunkPacks(db: DatabaseSync, budgetBytes: number): boolean {
  const files = listPackFiles(db);
  if (files.length === 0) return false;
  const live = new Map<number, number>();
  const usage = PACK_USE.all(
    prepared(
      db,
      "SELECT pack, sum(stored_size) AS bytes FROM docs_chunks WHERE pack IS NOT NULL GROUP BY pack",
    ).all(),
  );
  for (const row of usage) live.set(row.pack, row.bytes);
  const current = currentPackNumber(db);
  const candidates = files.filter((file) => {
    const used = live.get(file.pack) ?? 0;
    // A pack numbered past the current one was left by a crashed rotation; appends will reuse it.
    if (file.pack > current || file.bytes === 0) return false;
    if (used === 0) return true;
    return used < file.bytes * COMPACT_LIVE_SHARE && file.bytes - used >= COMPACT_MIN_WASTE_BYTES;
  });
  if (candidates.length === 0) return false;
  // The pack appends go to can only be emptied once appends go elsewhere.
  if (candidates.some((file) => file.pack === current)) rotatePack(db);
  let budget = budgetBytes;
  for (const file of candidates) {
    const moved = moveChunksOutOf(db, file.pack, budget);
    if (moved.left > 0) return true;
    budget -= moved.bytes;
    // A chunk that could not be read stays where it is, so its pack stays too (and its damage
    // keeps being reported by reads, rather than vanishing with the file).
    if (moved.unreadable > 0) continue;
    if (!removePackAfterCommit(db, file.pack)) break;
  }
  return false;
}

const PACKED = new RowReader<{ hash: string; stored_size: number; pack_offset: number }>(
  "packed chunk",
  { hash: "text", stored_size: "number", pack_offset: "number" },
);

/**
 * Copies chunks still in `pack` that can be read to the current pack, until
 * `budgetBytes` are copied; says how many bytes it copied, how many readable
 * chunks are left, and how many could not be read.
 */
function moveChunksOutOf(
  db: DatabaseSync,
  pack: number,
  budgetBytes: number,
): { bytes: number; left: number; unreadable: number } {
  const rows = PACKED.all(
    prepared(
      db,
      "SELECT hash, stored_size, pack_offset FROM docs_chunks WHERE pack = ? ORDER BY pack_offset",
    ).all(pack),
  );
  const relocate = prepared(
    db,
    "UPDATE docs_chunks SET data = ?, pack = ?, pack_offset = ? WHERE hash = ?",
  );
  let bytes = 0;
  let unreadable = 0;
  for (const [index, row] of rows.entries()) {
    if (bytes >= budgetBytes) return { bytes, left: rows.length - index, unreadable };
    let data: Uint8Array;
    try {
      data = readFromPack(db, { pack, offset: row.pack_offset }, row.stored_size);
    } catch {
      unreadable++;
      continue;
    }
    relocate.run(...place(db, data), row.hash);
    bytes += row.stored_size;
  }
  return { bytes, left: 0, unreadable };
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

/** Reads the block store's totals. (Both backends read it with this reader.) */
export const CHUNK_TOTALS: RowReader<ChunkTotals> = new RowReader<ChunkTotals>("chunk totals", {
  chunks: "number",
  raw_bytes: "number",
  stored_bytes: "number",
});

/** Counts stored chunks and their bytes. */
export function chunkTotals(db: DatabaseSync): ChunkTotals {
  return CHUNK_TOTALS.one(
    prepared(
      db,
      `SELECT count(*) AS chunks, coalesce(sum(size), 0) AS raw_bytes,
            coalesce(sum(stored_size), 0) AS stored_bytes FROM docs_chunks`,
    ).get(),
  );
}
