/**
 * The reads behind verifying the document store: the chunks stored in rows
 * and in each pack, the contents and their chunk lists with the chunks they
 * name that are not stored, the documents with contents that are not
 * stored, the index queue, and the rows of the search index file. Every
 * read is a page (or one pack's rows), so the caller can yield between
 * them; each is its own short read, so writers of other processes carry on.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { numberColumn, RowReader, type RowShape } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A stored chunk's row, without its bytes. */
export interface ChunkRef {
  /** SHA-256 of its raw bytes. */
  hash: string;
  /** Raw length. */
  size: number;
  /** Stored length. */
  stored_size: number;
  /** Its pack, or null when the bytes are in the row. */
  pack: number | null;
  /** Its offset in the pack. */
  pack_offset: number | null;
}

/** A chunk whose bytes are in its row. */
export interface InlineChunk extends ChunkRef {
  /** The stored bytes. */
  data: Uint8Array;
}

const CHUNK_REF_SHAPE: RowShape<ChunkRef> = {
  hash: "text",
  size: "number",
  stored_size: "number",
  pack: "number?",
  pack_offset: "number?",
};

const CHUNK_REF = new RowReader<ChunkRef>("chunk", CHUNK_REF_SHAPE);
const INLINE_CHUNK = new RowReader<InlineChunk>("chunk", { ...CHUNK_REF_SHAPE, data: "bytes" });

/** Every pack number a chunk row names, ascending. */
export function packNumbersInUse(db: DatabaseSync): number[] {
  return numberColumn(
    prepared(db, "SELECT DISTINCT pack FROM docs_chunks WHERE pack IS NOT NULL ORDER BY pack")
      .all(),
    "pack",
  );
}

/** The rows of the chunks in `pack`, by offset. */
export function packedChunks(db: DatabaseSync, pack: number): ChunkRef[] {
  return CHUNK_REF.all(
    prepared(
      db,
      `SELECT ${CHUNK_REF.columns} FROM docs_chunks WHERE pack = ? ORDER BY pack_offset`,
    ).all(pack),
  );
}

/** Up to `limit` chunks stored in rows with a hash after `after`, by hash. */
export function inlineChunksPage(db: DatabaseSync, after: string, limit: number): InlineChunk[] {
  return INLINE_CHUNK.all(
    prepared(
      db,
      `SELECT ${INLINE_CHUNK.columns} FROM docs_chunks
     WHERE hash > ? AND pack IS NULL ORDER BY hash LIMIT ?`,
    ).all(after, limit),
  );
}

/** A content as verification reads it. */
export interface ContentCheckRow {
  /** Its SHA-256. */
  hash: string;
  /** Its bytes. */
  size: number;
  /** The chunks it says it has. */
  chunk_count: number;
  /** The entries of its chunk list. */
  listed: number;
  /** 1 when a chunk is stored under the content's own hash (a one-chunk content). */
  self_chunk: number;
}

const CONTENT_CHECK = new RowReader<ContentCheckRow>("content", {
  hash: "text",
  size: "number",
  chunk_count: "number",
  listed: "number",
  self_chunk: "number",
});

/** Up to `limit` contents with a hash after `after`, by hash. */
export function contentsPage(db: DatabaseSync, after: string, limit: number): ContentCheckRow[] {
  return CONTENT_CHECK.all(
    prepared(
      db,
      `SELECT c.hash, c.size, c.chunk_count,
       (SELECT count(*) FROM docs_content_chunks m WHERE m.content_hash = c.hash) AS listed,
       EXISTS (SELECT 1 FROM docs_chunks k WHERE k.hash = c.hash) AS self_chunk
     FROM docs_contents c WHERE c.hash > ? ORDER BY c.hash LIMIT ?`,
    ).all(after, limit),
  );
}

/** One entry of a chunk list, and whether the chunk it names is stored. */
export interface ManifestCheckRow {
  /** The content. */
  content_hash: string;
  /** Position in the content. */
  seq: number;
  /** The chunk named. */
  chunk_hash: string;
  /** 1 when no chunk row has that hash. */
  missing: number;
}

const MANIFEST_CHECK = new RowReader<ManifestCheckRow>("chunk list entry", {
  content_hash: "text",
  seq: "number",
  chunk_hash: "text",
  missing: "number",
});

/** Every chunk-list entry of the contents from `first` to `last` (hashes, inclusive). */
export function manifestEntriesBetween(
  db: DatabaseSync,
  first: string,
  last: string,
): ManifestCheckRow[] {
  return MANIFEST_CHECK.all(
    prepared(
      db,
      `SELECT m.content_hash, m.seq, m.chunk_hash, (k.hash IS NULL) AS missing
     FROM docs_content_chunks m LEFT JOIN docs_chunks k ON k.hash = m.chunk_hash
     WHERE m.content_hash >= ? AND m.content_hash <= ? ORDER BY m.content_hash, m.seq`,
    ).all(first, last),
  );
}

/** A document as verification reads it. */
export interface DocumentCheckRow {
  /** Its id. */
  id: number;
  /** Its content hash. */
  hash: string;
  /** Its path. */
  path: string;
  /** 1 for the newest version of its path. */
  is_latest: number;
  /** 1 for text. */
  is_text: number;
  /** 1 when its content is not stored. */
  content_missing: number;
}

const DOCUMENT_CHECK = new RowReader<DocumentCheckRow>("document", {
  id: "number",
  hash: "text",
  path: "text",
  is_latest: "number",
  is_text: "number",
  content_missing: "number",
});

/** Up to `limit` documents with an id after `after`, by id. */
export function documentsPage(db: DatabaseSync, after: number, limit: number): DocumentCheckRow[] {
  return DOCUMENT_CHECK.all(
    prepared(
      db,
      `SELECT d.id, d.hash, d.path, d.is_latest, d.is_text, (c.hash IS NULL) AS content_missing
     FROM docs_documents d LEFT JOIN docs_contents c ON c.hash = d.hash
     WHERE d.id > ? ORDER BY d.id LIMIT ?`,
    ).all(after, limit),
  );
}

/** The documents stored with content `hash` (every version), by id. */
export function documentsWithContent(db: DatabaseSync, hash: string): DocumentCheckRow[] {
  return DOCUMENT_CHECK.all(
    prepared(
      db,
      `SELECT d.id, d.hash, d.path, d.is_latest, d.is_text, 0 AS content_missing
     FROM docs_documents d WHERE d.hash = ? ORDER BY d.id`,
    ).all(hash),
  );
}

const INDEXABLE = new RowReader<{ id: number; indexable: number }>("document", {
  id: "number",
  indexable: "number",
});

/** Whether each of `ids` is a latest text document now (ids not stored are absent). */
export function latestTextState(db: DatabaseSync, ids: readonly number[]): Map<number, boolean> {
  const rows = INDEXABLE.all(
    prepared(
      db,
      `SELECT id, (is_latest = 1 AND is_text = 1) AS indexable FROM docs_documents
     WHERE id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)),
  );
  return new Map(rows.map((row) => [row.id, row.indexable === 1]));
}

/** The ids of documents with an index change waiting in the queue. */
export function queuedDocumentIds(db: DatabaseSync): Set<number> {
  return new Set(
    numberColumn(
      prepared(db, "SELECT DISTINCT document_id AS id FROM docs_index_queue").all(),
      "id",
    ),
  );
}

/**
 * Opens a search index file read-only, for counting what it holds; the
 * caller closes it. Throws SQLite's error when the file cannot be read as a
 * database.
 */
export function openIndexForReading(path: string): DatabaseSync {
  return new DatabaseSync(path, { readOnly: true, timeout: 5000 });
}

/** Up to `limit` document ids in an index file after `after`, ascending. */
export function indexedIdsPage(index: DatabaseSync, after: number, limit: number): number[] {
  return numberColumn(
    prepared(index, "SELECT rowid AS id FROM docs_fts WHERE rowid > ? ORDER BY rowid LIMIT ?")
      .all(after, limit),
    "id",
  );
}

/** Which of `ids` an index file holds. */
export function indexedAmong(index: DatabaseSync, ids: readonly number[]): Set<number> {
  const statement = prepared(index, "SELECT 1 AS x FROM docs_fts WHERE rowid = ?");
  return new Set(ids.filter((id) => statement.get(id) !== undefined));
}

/**
 * Removes an index file that is no longer in use (an earlier generation, or
 * a damaged message index being rebuilt), with its `-wal` and `-shm`. A
 * process still holding it keeps reading its own open copy until it moves
 * on; nothing new is written to the name. Returns whether the file was there.
 */
export function removeIndexFile(path: string): boolean {
  let removed = false;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      Deno.removeSync(path + suffix);
      if (suffix === "") removed = true;
    } catch {
      // Not there, or already removed by another process.
    }
  }
  return removed;
}
