/**
 * The content-addressed block store on PostgreSQL: SQLite's chunks and contents
 * (../../docs/chunks.ts) with every chunk's stored bytes in its row — a server keeps no pack
 * files beside its database, so there is nothing to compact (the server's own VACUUM reclaims
 * deleted rows' space).
 *
 * @module
 */
import {
  CHUNK_TOTALS,
  type ChunkTotals,
  CONTENT_SIZE,
  MANIFEST_ENTRY,
  type ManifestEntry,
  RELEASED,
  type StoredChunk,
} from "../../docs/chunks.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { plainBytes, readOptionalRow, readRow, readRows } from "../reads.ts";

async function exists(q: PgQueryable, table: string, hash: string): Promise<boolean> {
  return (await q.query(`SELECT 1 AS x FROM ${table} WHERE hash = $1`, [hash])).length > 0;
}

/** Whether a chunk is stored. */
export function chunkExists(q: PgQueryable, hash: string): Promise<boolean> {
  return exists(q, "docs_chunks", hash);
}

/** Stores a new chunk with one reference. */
export async function insertChunk(
  q: PgQueryable,
  hash: string,
  size: number,
  data: Uint8Array,
): Promise<void> {
  await q.query(
    `INSERT INTO docs_chunks (hash, size, stored_size, ref_count, data) VALUES ($1, $2, $3, 1, $4)`,
    [hash, size, data.length, data],
  );
}

/**
 * Puts back the bytes of a damaged or lost chunk; the row keeps its references, and a row that
 * was lost is made again with `references()` of them.
 */
export async function rewriteChunkBytes(
  q: PgQueryable,
  hash: string,
  size: number,
  data: Uint8Array,
  references: () => number,
): Promise<void> {
  const updated = await q.query(
    `UPDATE docs_chunks SET size = $1, stored_size = $2, data = $3, pack = NULL,
       pack_offset = NULL WHERE hash = $4 RETURNING hash`,
    [size, data.length, data, hash],
  );
  if (updated.length > 0) return;
  await q.query(
    `INSERT INTO docs_chunks (hash, size, stored_size, ref_count, data) VALUES ($1, $2, $3, $4, $5)`,
    [hash, size, data.length, references(), data],
  );
}

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** How many references a chunk should hold, counted from the chunk lists (for repair). */
export async function chunkReferenceCount(q: PgQueryable, hash: string): Promise<number> {
  const row = await readRow(
    q,
    COUNT,
    `SELECT (SELECT count(*) FROM docs_content_chunks WHERE chunk_hash = $1)
       + (SELECT count(*) FROM docs_contents c WHERE c.hash = $1 AND c.chunk_count = 1
          AND NOT EXISTS (SELECT 1 FROM docs_content_chunks m WHERE m.content_hash = c.hash)) AS n`,
    [hash],
  );
  return row.n;
}

/** Adds references to a chunk. */
export async function addChunkReferences(
  q: PgQueryable,
  hash: string,
  delta: number,
): Promise<void> {
  await q.query("UPDATE docs_chunks SET ref_count = ref_count + $1 WHERE hash = $2", [
    delta,
    hash,
  ]);
}

const CHUNK = new RowReader<StoredChunk>("chunk", { size: "number", data: "bytes" });

/** One chunk's stored bytes, or undefined when it is not stored. */
export async function readChunk(q: PgQueryable, hash: string): Promise<StoredChunk | undefined> {
  const row = await readOptionalRow(
    q,
    CHUNK,
    "SELECT size, data FROM docs_chunks WHERE hash = $1",
    [
      hash,
    ],
  );
  return row === undefined ? undefined : { size: row.size, data: plainBytes(row.data) };
}

/** Whether a content is stored. */
export function contentExists(q: PgQueryable, hash: string): Promise<boolean> {
  return exists(q, "docs_contents", hash);
}

/**
 * Records a content and its ordered chunk list (none for a content of one chunk, whose hash is
 * the chunk's own).
 */
export async function insertContent(
  q: PgQueryable,
  hash: string,
  size: number,
  manifest: readonly ManifestEntry[],
  createdAt: number,
): Promise<void> {
  await q.query(
    "INSERT INTO docs_contents (hash, size, chunk_count, created_at) VALUES ($1, $2, $3, $4)",
    [hash, size, manifest.length, createdAt],
  );
  if (manifest.length === 1 && manifest[0].chunk_hash === hash) return;
  await q.query(
    `INSERT INTO docs_content_chunks (content_hash, seq, chunk_hash, "offset", length)
     SELECT $1, seq, chunk_hash, "offset", length
     FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::bigint[])
       AS m (seq, chunk_hash, "offset", length)`,
    [
      hash,
      manifest.map((entry) => entry.seq),
      manifest.map((entry) => entry.chunk_hash),
      manifest.map((entry) => entry.offset),
      manifest.map((entry) => entry.length),
    ],
  );
}

/** A content's chunk list (empty when the content is unknown or empty). */
export async function contentManifest(q: PgQueryable, hash: string): Promise<ManifestEntry[]> {
  const rows = await readRows(
    q,
    MANIFEST_ENTRY,
    `SELECT seq, chunk_hash, "offset", length FROM docs_content_chunks WHERE content_hash = $1
     ORDER BY seq`,
    [hash],
  );
  if (rows.length > 0) return rows;
  const content = await readOptionalRow(
    q,
    CONTENT_SIZE,
    "SELECT size, chunk_count FROM docs_contents WHERE hash = $1",
    [hash],
  );
  if (content === undefined || content.chunk_count !== 1) return [];
  return [{ seq: 0, chunk_hash: hash, offset: 0, length: content.size }];
}

/** A content's size, or undefined when unknown. */
export async function contentSize(q: PgQueryable, hash: string): Promise<number | undefined> {
  return (await readOptionalRow(
    q,
    CONTENT_SIZE,
    "SELECT size, chunk_count FROM docs_contents WHERE hash = $1",
    [hash],
  ))?.size;
}

/**
 * Removes a content no document uses, releasing one reference on each of its chunks; false
 * when a document still uses it. One write: the content and its references go together.
 */
export function releaseContentIfUnused(q: PgQueryable, hash: string): Promise<boolean> {
  return q.write(async (w) => {
    const used = await w.query("SELECT 1 AS x FROM docs_documents WHERE hash = $1 LIMIT 1", [
      hash,
    ]);
    if (used.length > 0) return false;
    const chunks = (await contentManifest(w, hash)).map((entry) => entry.chunk_hash);
    // A chunk listed twice in one content loses a reference for each listing.
    await w.query(
      `UPDATE docs_chunks c SET ref_count = c.ref_count - r.n
       FROM (SELECT hash, count(*) AS n FROM unnest($1::text[]) AS u (hash) GROUP BY hash) r
       WHERE c.hash = r.hash`,
      [chunks],
    );
    await w.query("DELETE FROM docs_contents WHERE hash = $1", [hash]);
    return true;
  });
}

/** Deletes every chunk no content references; answers how many and their stored bytes. */
export function deleteUnreferencedChunks(
  q: PgQueryable,
): Promise<{ chunks: number; bytes: number }> {
  return readRow(
    q,
    RELEASED,
    `WITH gone AS (DELETE FROM docs_chunks WHERE ref_count <= 0 RETURNING stored_size)
     SELECT count(*) AS chunks, coalesce(sum(stored_size), 0) AS bytes FROM gone`,
  );
}

/** No pack files here: nothing ever remains to compact. */
export function compactChunkPacks(_q: PgQueryable, _budgetBytes: number): Promise<boolean> {
  return Promise.resolve(false);
}

/** Chunk totals. */
export function chunkTotals(q: PgQueryable): Promise<ChunkTotals> {
  return readRow(
    q,
    CHUNK_TOTALS,
    `SELECT count(*) AS chunks, coalesce(sum(size), 0) AS raw_bytes,
       coalesce(sum(stored_size), 0) AS stored_bytes FROM docs_chunks`,
  );
}
