/**
 * Chunk packs: the stored bytes of larger chunks live in append-only files
 * beside the database (`docs-packs/pack-<n>.vpk`) instead of in SQLite rows,
 * which keep only where the bytes are. SQLite in WAL mode writes every BLOB
 * page twice (into the WAL, then into the database at checkpoint); a pack is
 * written once, so bulk ingest moves about half the bytes it otherwise would.
 *
 * Appends happen only inside a {@linkcode transaction}, under its write lock,
 * so one writer at a time appends and the next offset is the file's size. The
 * pack joins the transaction: it is synced to disk before COMMIT (a committed
 * row never points at bytes that are not there), cut back to its old size on
 * ROLLBACK, and files emptied by compaction are removed only after COMMIT.
 * Bytes in a pack are never rewritten, only appended or removed with the
 * whole file, so a reader holding a location either reads what was committed
 * there or finds the file gone and asks again.
 *
 * @module
 */
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from "../../core/private_files.ts";
import {
  type DatabaseSync,
  joinTransaction,
  storeFilePath,
  type TransactionParticipant,
} from "../database.ts";
import { readState, writeState } from "./state.ts";

/** Chunks stored at least this large go to a pack; smaller ones stay in their row. */
export const PACK_MIN_BYTES = 4096;

/** A pack stops taking appends once it is this large. */
export const PACK_ROTATE_BYTES = 128 * 1024 * 1024;

/** The `docs_state` key holding the number of the pack appends go to. */
const CURRENT_PACK_KEY = "chunk_pack";

const PACK_NAME = /^pack-(\d+)\.vpk$/;

/** Where a chunk's bytes are in the packs. */
export interface PackLocation {
  /** The pack's number. */
  pack: number;
  /** Byte offset of the chunk in the pack. */
  offset: number;
}

/** One pack file on disk. */
export interface PackFile {
  /** The pack's number. */
  pack: number;
  /** Its size in bytes. */
  bytes: number;
}

/** A pack appended to by the running transaction. */
interface OpenPack {
  pack: number;
  fd: number;
  /** Size before this transaction appended (the size a rollback returns it to). */
  startBytes: number;
  bytes: number;
}

/** The packs of one database file, and what the running transaction did to them. */
class ChunkPacks implements TransactionParticipant {
  /** Packs appended to in the running transaction; the last is the one appends go to. */
  #open: OpenPack[] = [];
  /** Packs to remove once the running transaction commits. */
  #removals = new Set<number>();
  #joined = false;

  constructor(readonly db: DatabaseSync, readonly dir: string) {}

  pathOf(pack: number): string {
    return join(this.dir, `pack-${pack}.vpk`);
  }

  /** Appends bytes to the current pack, or returns undefined outside a transaction. */
  append(bytes: Uint8Array): PackLocation | undefined {
    if (!this.#join()) return undefined;
    let target = this.#open.at(-1);
    const current = currentPackNumber(this.db);
    if (target === undefined || target.pack !== current) target = this.#openPack(current);
    if (target.bytes > 0 && target.bytes + bytes.length > PACK_ROTATE_BYTES) {
      target = this.#openPack(this.rotate());
    }
    const offset = target.bytes;
    let written = 0;
    while (written < bytes.length) {
      written += writeSync(target.fd, bytes, written, bytes.length - written);
    }
    target.bytes += bytes.length;
    return { pack: target.pack, offset };
  }

  /** Makes a new pack the current one (inside the running transaction); returns its number. */
  rotate(): number {
    // A file left by a crashed transaction under this number is appended after, never read.
    const next = currentPackNumber(this.db) + 1;
    writeState(this.db, CURRENT_PACK_KEY, String(next));
    return next;
  }

  /** Schedules a pack's removal for when the running transaction commits. */
  removeAfterCommit(pack: number): boolean {
    if (!this.#join()) return false;
    this.#removals.add(pack);
    return true;
  }

  #join(): boolean {
    if (this.#joined) return true;
    if (!joinTransaction(this.db, this)) return false;
    this.#joined = true;
    return true;
  }

  #openPack(pack: number): OpenPack {
    const already = this.#open.find((open) => open.pack === pack);
    if (already !== undefined) return already;
    mkdirSync(this.dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    // Append mode, so even a writer that broke the one-writer rule could not overwrite bytes.
    const fd = openSync(this.pathOf(pack), "a", PRIVATE_FILE_MODE);
    const bytes = fstatSync(fd).size;
    const open = { pack, fd, startBytes: bytes, bytes };
    this.#open.push(open);
    return open;
  }

  beforeCommit(): void {
    let created = false;
    for (const open of this.#open) {
      if (open.bytes > open.startBytes) fdatasyncSync(open.fd);
      if (open.startBytes === 0 && open.bytes > 0) created = true;
    }
    // A new file's name must survive a power cut as well as its bytes.
    if (created) {
      const dir = openSync(this.dir, "r");
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    }
  }

  beforeRollback(): void {
    for (const open of this.#open) {
      try {
        if (open.startBytes === 0) unlinkSync(this.pathOf(open.pack));
        else ftruncateSync(open.fd, open.startBytes);
      } catch {
        // Bytes left past the committed end are never pointed at; the next append goes after them.
      }
    }
    this.#end();
  }

  abandon(): void {
    // The write lock is gone: another writer may have appended after these bytes since, so they
    // stay where they are, unreferenced, and the next append goes after them.
    this.#end();
  }

  afterCommit(): void {
    for (const pack of this.#removals) {
      try {
        unlinkSync(this.pathOf(pack));
      } catch {
        // Already gone (or never written): nothing points into it any more either way.
      }
    }
    this.#end();
  }

  #end(): void {
    for (const open of this.#open) {
      try {
        closeSync(open.fd);
      } catch {
        // A descriptor that will not close holds nothing this transaction needs.
      }
    }
    this.#open = [];
    this.#removals.clear();
    this.#joined = false;
  }
}

const PACKS = new WeakMap<DatabaseSync, ChunkPacks | null>();

/** The packs of `db`, or undefined for a database that has no file (in memory). */
function packsOf(db: DatabaseSync): ChunkPacks | undefined {
  let packs = PACKS.get(db);
  if (packs === undefined) {
    const file = storeFilePath(db);
    packs = file === undefined ? null : new ChunkPacks(db, join(dirname(file), "docs-packs"));
    PACKS.set(db, packs);
  }
  return packs ?? undefined;
}

/** The number of the pack appends go to. */
export function currentPackNumber(db: DatabaseSync): number {
  return Number(readState(db, CURRENT_PACK_KEY) ?? "1");
}

/**
 * Appends a chunk's stored bytes to the current pack; undefined when they
 * belong in the row instead (too small, a database without a file, or no
 * {@linkcode transaction} running to keep the pack in step with).
 */
export function appendToPack(db: DatabaseSync, bytes: Uint8Array): PackLocation | undefined {
  if (bytes.length < PACK_MIN_BYTES) return undefined;
  return packsOf(db)?.append(bytes);
}

/** Makes a fresh pack current, so the one appended to so far can be compacted. */
export function rotatePack(db: DatabaseSync): number {
  const packs = packsOf(db);
  if (packs === undefined) throw new Error("a database without a file has no packs");
  return packs.rotate();
}

/** Removes a pack once the running transaction commits; false when none is running. */
export function removePackAfterCommit(db: DatabaseSync, pack: number): boolean {
  return packsOf(db)?.removeAfterCommit(pack) ?? false;
}

/** The pack files of `db` on disk, by number (none for a database without a file). */
export function listPackFiles(db: DatabaseSync): PackFile[] {
  const packs = packsOf(db);
  return packs === undefined ? [] : listPacks(packs);
}

function listPacks(packs: ChunkPacks): PackFile[] {
  let names: string[];
  try {
    names = readdirSync(packs.dir);
  } catch {
    return [];
  }
  const files: PackFile[] = [];
  for (const name of names) {
    const match = PACK_NAME.exec(name);
    if (match === null) continue;
    const pack = Number(match[1]);
    try {
      files.push({ pack, bytes: statSync(packs.pathOf(pack)).size });
    } catch {
      // Removed while listing.
    }
  }
  return files.sort((a, b) => a.pack - b.pack);
}

/** The file of pack `pack` (whether or not it exists); undefined for a database without a file. */
export function packFilePath(db: DatabaseSync, pack: number): string | undefined {
  return packsOf(db)?.pathOf(pack);
}

/**
 * Reads `length` bytes at `offset` of a pack. Throws an error naming the
 * pack when it is missing or shorter than that.
 */
export function readFromPack(
  db: DatabaseSync,
  location: PackLocation,
  length: number,
): Uint8Array {
  const packs = packsOf(db);
  if (packs === undefined) {
    throw new Error(`it is stored in pack ${location.pack}, but this database has no pack folder`);
  }
  const path = packs.pathOf(location.pack);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    const reason = (error as { code?: string }).code === "ENOENT"
      ? "does not exist"
      : `cannot be opened (${error instanceof Error ? error.message : String(error)})`;
    throw new Error(`its pack ${path} ${reason}`);
  }
  try {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const read = readSync(fd, out, filled, length - filled, location.offset + filled);
      if (read === 0) {
        throw new Error(
          `its pack ${path} ends before byte ${location.offset + length} (it holds ${
            fstatSync(fd).size
          })`,
        );
      }
      filled += read;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}
