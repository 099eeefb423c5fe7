/** Real damage to a real store's files, for the verification and repair tests. */
import { join } from "node:path";
import { type DatabaseSync, transaction } from "../../src/store/database.ts";
import { rotatePack } from "../../src/store/docs/packs.ts";

/** A stored chunk of a content, and where its bytes are. */
export interface StoredChunkRow {
  hash: string;
  seq: number;
  pack: number | null;
  pack_offset: number | null;
  stored_size: number;
}

/** The chunks of a stored content, in order (a one-chunk content is its own chunk). */
export function chunksOfContent(db: DatabaseSync, contentHash: string): StoredChunkRow[] {
  const listed = db.prepare(
    `SELECT c.hash, m.seq, c.pack, c.pack_offset, c.stored_size FROM docs_content_chunks m
     JOIN docs_chunks c ON c.hash = m.chunk_hash WHERE m.content_hash = ? ORDER BY m.seq`,
  ).all(contentHash) as unknown as StoredChunkRow[];
  if (listed.length > 0) return listed;
  return db.prepare(
    "SELECT hash, 0 AS seq, pack, pack_offset, stored_size FROM docs_chunks WHERE hash = ?",
  ).all(contentHash) as unknown as StoredChunkRow[];
}

/** Makes a fresh pack the one appends go to, so the next add lands in a pack of its own. */
export function startNewPack(db: DatabaseSync): number {
  return transaction(db, () => rotatePack(db));
}

/** The file of pack `n` in a data home. */
export function packFile(home: string, pack: number): string {
  return join(home, "docs-packs", `pack-${pack}.vpk`);
}

/** Cuts a file down to `bytes`. */
export function truncateFile(path: string, bytes: number): void {
  Deno.truncateSync(path, bytes);
}

/** Writes `bytes` over a file at `offset`, in place. */
export function overwriteFile(path: string, offset: number, bytes: Uint8Array): void {
  const file = Deno.openSync(path, { read: true, write: true });
  try {
    file.seekSync(offset, Deno.SeekMode.Start);
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
  } finally {
    file.close();
  }
}

/** Flips every byte of a chunk row's stored bytes past the codec tag (an inline chunk). */
export function corruptInlineChunk(db: DatabaseSync, hash: string): void {
  const row = db.prepare("SELECT data FROM docs_chunks WHERE hash = ?").get(hash) as {
    data: Uint8Array;
  };
  const damaged = new Uint8Array(row.data);
  for (let i = 1; i < damaged.length; i++) damaged[i] ^= 0x5a;
  db.prepare("UPDATE docs_chunks SET data = ? WHERE hash = ?").run(damaged, hash);
}

/**
 * Writes garbage over pages of a closed SQLite file: `pages` pages starting
 * `fromEnd` pages before its end, never its first page (which would make it
 * no database at all).
 */
export function corruptPages(path: string, fromEnd: number, pages: number, pageSize = 4096): void {
  const size = Deno.statSync(path).size;
  const first = Math.max(1, Math.floor(size / pageSize) - fromEnd);
  overwriteFile(path, first * pageSize, new Uint8Array(pages * pageSize).fill(0xa5));
}
