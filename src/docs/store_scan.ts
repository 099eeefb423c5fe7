/**
 * The passes of a verification over the document store's rows and packs:
 * the packs (missing, shorter than their rows say, holding damaged bytes,
 * or used by nothing), the chunks kept in rows, the contents and their
 * chunk lists, and the documents, whose damage is what those passes found
 * in their contents. Each pass reads a page (or one pack's rows) at a time
 * and takes a turn between them; a chunk that looks damaged is read again
 * through the normal read path before it counts, so a chunk a concurrent
 * compaction moved is not mistaken for a lost one.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import {
  contentsPage,
  documentsPage,
  inlineChunksPage,
  manifestEntriesBetween,
  packedChunks,
  packNumbersInUse,
} from "../store/docs/integrity.ts";
import { listPackFiles, packFilePath, readFromPack } from "../store/docs/packs.ts";
import { chunkProblem, storedBytesProblem } from "./chunk_check.ts";
import type { Pacer } from "./pacer.ts";
import {
  type ChunkDamage,
  type ContentDamage,
  counted,
  type DamagedDocument,
  type FileReport,
} from "./verify_report.ts";

/** What the passes counted. */
export interface ScanCounts {
  /** Document rows (every version). */
  documents: number;
  /** Contents. */
  contents: number;
  /** Chunks read and hashed. */
  chunks: number;
  /** Their raw bytes. */
  bytes: number;
  /** Their stored bytes. */
  stored_bytes: number;
  /** Pack files found. */
  pack_files: number;
}

/** One verification's passes over the store, and what they found. */
export class StoreScan {
  /** What was counted. */
  readonly counts: ScanCounts = {
    documents: 0,
    contents: 0,
    chunks: 0,
    bytes: 0,
    stored_bytes: 0,
    pack_files: 0,
  };
  /** Damaged chunks by hash. */
  readonly chunks = new Map<string, ChunkDamage>();
  /** Packs missing, short or holding damaged chunks. */
  readonly damagedPacks = new Set<number>();
  /** Packs with something to say. */
  readonly packReports: FileReport[] = [];
  /** Packs nothing uses. */
  readonly reclaimable = { pack_files: 0, bytes: 0 };
  /** Contents with damage by hash. */
  readonly contents = new Map<string, ContentDamage>();
  /** Chunks damaged in their rows. */
  inlineDamaged = 0;
  /** Chunk-list entries naming no stored chunk. */
  missingChunks = 0;
  /** Damaged documents found (all of them). */
  damagedDocuments = 0;
  /** The first damaged documents. */
  readonly documents: DamagedDocument[] = [];
  /** Latest text documents, ascending: what the search index should hold. */
  readonly indexable: number[] = [];

  /**
   * @param db The store.
   * @param storeLabel How the store file is named in reports.
   * @param readChunks Whether to read and hash every chunk.
   * @param maxDocuments Damaged documents listed.
   * @param pacer Takes the turns.
   */
  constructor(
    readonly db: DatabaseSync,
    readonly storeLabel: string,
    readonly readChunks: boolean,
    readonly maxDocuments: number,
    readonly pacer: Pacer,
  ) {}

  /** Runs every pass in order. */
  async run(): Promise<void> {
    await this.packs();
    if (this.readChunks) await this.inlineChunks();
    await this.contentLists();
    await this.documentRows();
  }

  #damage(hash: string, problem: string, file: string, pack?: number): void {
    this.chunks.set(hash, { problem, file, ...(pack !== undefined ? { pack } : {}) });
    if (pack !== undefined) this.damagedPacks.add(pack);
  }

  /** Packs: missing, shorter than their rows say, or (reading chunks) holding damaged bytes. */
  async packs(): Promise<void> {
    const db = this.db;
    const onDisk = new Map(listPackFiles(db).map((file) => [file.pack, file.bytes]));
    const used = new Set<number>();
    for (const pack of packNumbersInUse(db)) {
      used.add(pack);
      const path = packFilePath(db, pack) ?? `pack ${pack}`;
      const rows = packedChunks(db, pack);
      let size: number | undefined;
      try {
        size = Deno.statSync(path).size;
      } catch {
        size = undefined;
      }
      let damaged = 0;
      let end = 0;
      for (const row of rows) {
        if (this.pacer.due) await this.pacer.pause();
        const offset = row.pack_offset ?? 0;
        end = Math.max(end, offset + row.stored_size);
        let problem: string | undefined;
        if (size === undefined || offset + row.stored_size > size) {
          problem = chunkProblem(db, row.hash);
        } else if (this.readChunks) {
          let stored: Uint8Array | undefined;
          try {
            stored = readFromPack(db, { pack, offset }, row.stored_size);
          } catch {
            stored = undefined;
          }
          problem = stored === undefined
            ? chunkProblem(db, row.hash)
            : storedBytesProblem(row.hash, row.size, stored);
          // Read again before calling it damaged: it may have been moved or rewritten meanwhile.
          if (problem !== undefined && stored !== undefined) problem = chunkProblem(db, row.hash);
        }
        if (this.readChunks) {
          this.counts.chunks++;
          this.counts.bytes += row.size;
          this.counts.stored_bytes += row.stored_size;
        }
        if (problem !== undefined) {
          this.#damage(row.hash, problem, path, pack);
          damaged++;
        }
      }
      if (size !== undefined) this.counts.pack_files++;
      if (damaged > 0) this.packReports.push(packReport(path, size, end, damaged));
    }
    for (const [pack, bytes] of onDisk) {
      if (used.has(pack)) continue;
      this.reclaimable.pack_files++;
      this.reclaimable.bytes += bytes;
      this.counts.pack_files++;
      this.packReports.push({
        path: packFilePath(db, pack) ?? `pack ${pack}`,
        kind: "pack",
        status: "unreferenced",
        problems: [`no chunk uses it: ${bytes} bytes the garbage collection can reclaim`],
        bytes,
      });
    }
  }

  /** Chunks kept in their rows. */
  async inlineChunks(): Promise<void> {
    let after = "";
    for (;;) {
      if (this.pacer.due) await this.pacer.pause();
      const page = inlineChunksPage(this.db, after, 64);
      if (page.length === 0) break;
      after = page[page.length - 1].hash;
      for (const row of page) {
        this.counts.chunks++;
        this.counts.bytes += row.size;
        this.counts.stored_bytes += row.stored_size;
        if (storedBytesProblem(row.hash, row.size, row.data) === undefined) continue;
        const problem = chunkProblem(this.db, row.hash);
        if (problem === undefined) continue;
        this.#damage(row.hash, problem, this.storeLabel);
        this.inlineDamaged++;
      }
    }
  }

  #contentDamage(hash: string): ContentDamage {
    let found = this.contents.get(hash);
    if (found === undefined) {
      found = { problems: [], files: new Set(), chunks: new Set(), missing: false };
      this.contents.set(hash, found);
    }
    return found;
  }

  /** A content names chunk `chunk` at `seq`: its damage, if any, becomes the content's. */
  #usesChunk(content: string, chunk: string, seq: number): void {
    const known = this.chunks.get(chunk);
    if (known === undefined) return;
    const entry = this.#contentDamage(content);
    entry.problems.push(`chunk ${chunk} (#${seq}) ${known.problem}`);
    entry.files.add(known.file);
    entry.chunks.add(chunk);
  }

  #missingChunk(content: string, chunk: string, seq: number): void {
    const entry = this.#contentDamage(content);
    entry.problems.push(`chunk ${chunk} (#${seq}) is missing from the store`);
    entry.files.add(this.storeLabel);
    entry.chunks.add(chunk);
    this.missingChunks++;
  }

  /** Contents and their chunk lists: chunks named but not stored, lists that do not add up. */
  async contentLists(): Promise<void> {
    let after = "";
    for (;;) {
      if (this.pacer.due) await this.pacer.pause();
      const page = contentsPage(this.db, after, 500);
      if (page.length === 0) break;
      after = page[page.length - 1].hash;
      this.counts.contents += page.length;
      const inPage = new Set(page.map((row) => row.hash));
      for (const row of page) {
        if (row.listed === 0 && row.chunk_count === 1) {
          // A one-chunk content is its own chunk.
          if (row.self_chunk === 0) this.#missingChunk(row.hash, row.hash, 0);
          else this.#usesChunk(row.hash, row.hash, 0);
        } else if (row.listed === 0 && row.chunk_count > 1) {
          const entry = this.#contentDamage(row.hash);
          entry.problems.push(
            `its chunk list is missing from the store (it should name ${row.chunk_count} chunks)`,
          );
          entry.files.add(this.storeLabel);
        } else if (row.listed > 0 && row.listed !== row.chunk_count) {
          const entry = this.#contentDamage(row.hash);
          entry.problems.push(
            `its chunk list names ${
              counted(row.listed, "chunk")
            }; it should name ${row.chunk_count}`,
          );
          entry.files.add(this.storeLabel);
        }
      }
      if (!page.some((row) => row.listed > 0)) continue;
      for (
        const entry of manifestEntriesBetween(this.db, page[0].hash, page[page.length - 1].hash)
      ) {
        // A content stored since the page was read is left for the next verification.
        if (!inPage.has(entry.content_hash)) continue;
        if (entry.missing === 1) {
          this.#missingChunk(entry.content_hash, entry.chunk_hash, entry.seq);
        } else this.#usesChunk(entry.content_hash, entry.chunk_hash, entry.seq);
      }
    }
  }

  /** Documents: the damage of their contents, and which the search index should hold. */
  async documentRows(): Promise<void> {
    let after = 0;
    for (;;) {
      if (this.pacer.due) await this.pacer.pause();
      const page = documentsPage(this.db, after, 1000);
      if (page.length === 0) break;
      after = page[page.length - 1].id;
      this.counts.documents += page.length;
      for (const row of page) {
        if (row.is_latest === 1 && row.is_text === 1) this.indexable.push(row.id);
        let problems: string[];
        let files: string[];
        if (row.content_missing === 1) {
          this.#contentDamage(row.hash).missing = true;
          problems = [`its content ${row.hash} is missing from the store`];
          files = [this.storeLabel];
        } else {
          const entry = this.contents.get(row.hash);
          if (entry === undefined) continue;
          problems = entry.problems;
          files = [...entry.files];
        }
        this.damagedDocuments++;
        if (this.documents.length >= this.maxDocuments) continue;
        this.documents.push({
          id: row.id,
          hash: row.hash,
          path: row.path,
          latest: row.is_latest === 1,
          problems,
          files,
        });
      }
    }
  }
}

/** What a pack with damaged chunks is: missing, short, or holding bytes that do not hash. */
function packReport(
  path: string,
  size: number | undefined,
  end: number,
  damaged: number,
): FileReport {
  if (size === undefined) {
    return {
      path,
      kind: "pack",
      status: "missing",
      problems: [`it does not exist; ${counted(damaged, "chunk")} stored in it are lost`],
      chunks_damaged: damaged,
    };
  }
  if (end > size) {
    return {
      path,
      kind: "pack",
      status: "short",
      problems: [`it ends at byte ${size}, but its chunks reach byte ${end}`],
      bytes: size,
      chunks_damaged: damaged,
    };
  }
  return {
    path,
    kind: "pack",
    status: "damaged",
    problems: [`${counted(damaged, "chunk")} stored in it do not match their hashes`],
    bytes: size,
    chunks_damaged: damaged,
  };
}
