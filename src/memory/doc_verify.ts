/**
 * Verifying the store: SQLite's structural check of the store and of every
 * index file (on a worker, while the rest runs here), every stored chunk
 * read back from its row or pack, decoded and hashed, the chunk lists
 * checked for chunks that are not stored, the pack files for being missing,
 * shorter than their rows say, or used by nothing, and the search index for
 * holding every latest text document (allowing for changes still queued).
 * Damage is reported by document — id, path, hash, what is wrong and the
 * files involved — and by file.
 *
 * It runs while other processes work on the same store: every read is a
 * short page of its own, the event loop gets a turn every
 * {@linkcode YIELD_EVERY_MS}, and anything that looks damaged is read again
 * before it is reported, so a chunk that a concurrent compaction moved is
 * not mistaken for a lost one.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { readChunk } from "../store/docs_chunks.ts";
import { docsIndexFile, docsIndexFiles } from "../store/docs_fts.ts";
import {
  contentsPage,
  documentsPage,
  indexedAmong,
  indexedIdsPage,
  inlineChunksPage,
  latestTextState,
  manifestEntriesBetween,
  openIndexForReading,
  packedChunks,
  packNumbersInUse,
  queuedDocumentIds,
} from "../store/docs_integrity.ts";
import { listPackFiles, packFilePath, readFromPack } from "../store/docs_packs.ts";
import { type DatabaseSync, isCorruptionError, storeFailure } from "../store/database.ts";
import { messageIndexPath } from "../store/message_index_schema.ts";
import { type FileCheck, quickCheckConnection, quickCheckFiles } from "../store/quick_check.ts";
import { clearStoreDamage, noticeDamageIn, recordStoreDamage } from "../store/store_health.ts";
import { CODEC_RAW, decompressChunk } from "./compression.ts";
import { sha256Hex } from "./content_hash.ts";

/** How often a verification gives the event loop a turn, ms. */
export const YIELD_EVERY_MS = 20;

/** Damaged documents listed one by one, unless the caller asks otherwise. */
export const DEFAULT_LISTED_DOCUMENTS = 100;

/** Ids listed per kind of index discrepancy. */
const LISTED_IDS = 20;

/** What to verify. */
export interface VerifyOptions {
  /** Read, decode and hash every chunk (default true); false checks structure only. */
  chunks?: boolean;
  /** Damaged documents listed one by one (all are counted). */
  maxDocuments?: number;
  /** Stops the verification (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** One damaged document. */
export interface DamagedDocument {
  /** Its id. */
  id: number;
  /** Its path. */
  path: string;
  /** Its content hash. */
  hash: string;
  /** Whether it is the newest version of its path. */
  latest: boolean;
  /** What is wrong, one line each. */
  problems: string[];
  /** The files involved (packs, or the store for bytes kept in rows). */
  files: string[];
}

/** What a file is to the store. */
export type FileKind = "store" | "docs_index" | "message_index" | "pack" | "earlier_index";

/** What was found in one file. */
export interface FileReport {
  /** The file. */
  path: string;
  /** What it is. */
  kind: FileKind;
  /**
   * `ok`; `damaged`; `missing`; `short` (a pack ending before its rows say);
   * `unreferenced` (a pack nothing uses: reclaimable, not damage);
   * `left_behind` (an index file of an earlier generation); `unchecked`.
   */
  status: "ok" | "damaged" | "missing" | "short" | "unreferenced" | "left_behind" | "unchecked";
  /** What is wrong, one line each. */
  problems: string[];
  /** Its size, for packs. */
  bytes?: number;
  /** Damaged chunks in it, for packs and the store. */
  chunks_damaged?: number;
}

/** What was found in the document search index. */
export interface IndexReport {
  /** The index file in use (null for an in-memory store, whose index is inside it). */
  file: string | null;
  /** `ok`, `damaged`, `missing`, `incomplete` or `unchecked`. */
  status: "ok" | "damaged" | "missing" | "incomplete" | "unchecked";
  /** Latest text documents (what it should hold). */
  expected: number;
  /** Documents it holds. */
  indexed: number;
  /** Documents with a change still queued (allowed to differ). */
  queued: number;
  /** Latest text documents it lacks. */
  missing: number;
  /** Documents it holds that it should not. */
  extra: number;
  /** The first missing ids. */
  missing_ids: number[];
  /** The first extra ids. */
  extra_ids: number[];
  /** What is wrong, one line each. */
  problems: string[];
}

/** The outcome of a verification. */
export interface VerifyReport {
  /** Nothing damaged (unreferenced packs and left-behind files are not damage). */
  ok: boolean;
  /** Whether chunk bytes were read (false: structure only). */
  chunks_checked: boolean;
  /** How long it took, ms. */
  duration_ms: number;
  /** What was checked. */
  checked: {
    documents: number;
    contents: number;
    chunks: number;
    bytes: number;
    stored_bytes: number;
    pack_files: number;
    files: number;
  };
  /** What was found damaged. */
  damaged: { documents: number; chunks: number; files: number };
  /** SQLite's structural check of the store file. */
  store: { file: string | null; status: FileReport["status"]; problems: string[] };
  /** The document search index. */
  index: IndexReport;
  /** The message search index. */
  message_index: { file: string | null; status: FileReport["status"]; problems: string[] };
  /** The store, index files, and packs with something to say. */
  files: FileReport[];
  /** Damaged documents (the first `maxDocuments`). */
  documents: DamagedDocument[];
  /** Whether more damaged documents were found than listed. */
  documents_truncated: boolean;
  /** Packs nothing uses: their space is reclaimed by the garbage collection. */
  reclaimable: { pack_files: number; bytes: number };
  /** One line per problem (damage only). */
  problems: string[];
  /** Things worth knowing that are not damage. */
  notes: string[];
  /** What to do about the damage found (empty when none). */
  what_to_do: string[];
}

/** A damaged chunk. */
export interface ChunkDamage {
  /** What is wrong with it. */
  problem: string;
  /** Where its bytes are (its pack, or the store). */
  file: string;
  /** Its pack, when it is in one. */
  pack?: number;
}

/** A content with damage. */
export interface ContentDamage {
  /** What is wrong, one line each. */
  problems: string[];
  /** The files involved. */
  files: Set<string>;
  /** Chunks of it that are damaged or not stored. */
  chunks: Set<string>;
  /** The content row itself is not stored. */
  missing: boolean;
}

/** A verification's report and what a repair needs beyond it. */
export interface VerifyFindings {
  /** The report. */
  report: VerifyReport;
  /** Damaged chunks by hash. */
  chunks: Map<string, ChunkDamage>;
  /** Contents with damage by hash (every damaged document's content is here). */
  contents: Map<string, ContentDamage>;
  /** Packs that are missing, short or hold damaged chunks. */
  damagedPacks: Set<number>;
}

/** Gives the event loop a turn every {@linkcode YIELD_EVERY_MS}, and stops on abort. */
class Pacer {
  #last = performance.now();
  constructor(readonly signal: AbortSignal | undefined) {
    signal?.throwIfAborted();
  }
  get due(): boolean {
    return performance.now() - this.#last >= YIELD_EVERY_MS;
  }
  async pause(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#last = performance.now();
    this.signal?.throwIfAborted();
  }
}

/** `1 chunk`, `2 chunks`. */
function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Decodes and hashes a chunk's stored bytes; returns what is wrong, or undefined. */
function checkStoredBytes(hash: string, size: number, stored: Uint8Array): string | undefined {
  let data: Uint8Array;
  try {
    // Raw bytes are hashed where they lie: copying them out would cost as much as the hash.
    data = stored.length > 0 && stored[0] === CODEC_RAW
      ? stored.subarray(1)
      : decompressChunk(stored);
  } catch (error) {
    return `cannot be decoded: ${messageOf(error)}`;
  }
  const actual = sha256Hex(data);
  if (actual !== hash) {
    return `is corrupt: its ${stored.length} stored bytes decode to ${data.length} bytes hashing to ${actual}`;
  }
  if (data.length !== size) return `is corrupt: it decodes to ${data.length} bytes, not ${size}`;
  return undefined;
}

/**
 * Reads a chunk again through the normal read path (which follows a chunk a
 * concurrent compaction moved) and checks it; returns what is wrong now, or
 * undefined when it is whole (or no longer stored).
 */
function recheckChunk(db: DatabaseSync, hash: string): string | undefined {
  let stored;
  try {
    stored = readChunk(db, hash);
  } catch (error) {
    return `cannot be read: ${messageOf(error)}`;
  }
  if (stored === undefined) return undefined;
  return checkStoredBytes(hash, stored.size, stored.data);
}

function storeFileOf(db: DatabaseSync): string | undefined {
  const row = db.prepare("SELECT file FROM pragma_database_list WHERE name = 'main'").get() as
    | { file: string }
    | undefined;
  const file = row?.file ?? "";
  return file === "" || file === ":memory:" ? undefined : file;
}

function fileStatus(check: FileCheck | undefined): FileReport["status"] {
  return check === undefined ? "unchecked" : check.status;
}

/**
 * Verifies the store `db` belongs to. Read-only: it changes nothing.
 *
 * @example
 * ```ts ignore
 * const { report } = await verifyStore(db, { chunks: true });
 * if (!report.ok) console.log(report.problems.join("\n"));
 * ```
 */
export async function verifyStore(
  db: DatabaseSync,
  options: VerifyOptions = {},
): Promise<VerifyFindings> {
  const started = performance.now();
  const readChunks = options.chunks ?? true;
  const maxDocuments = options.maxDocuments ?? DEFAULT_LISTED_DOCUMENTS;
  const pacer = new Pacer(options.signal);
  const storeFile = storeFileOf(db);
  // A store that fails to read partway (a damaged page) is reported, not thrown.
  let readFailure: string | undefined;
  const failedRead = (error: unknown) => {
    if (!isCorruptionError(error)) throw error;
    readFailure ??= storeFailure(error, "reading the document store", storeFile).message;
  };
  let indexFile: string | undefined;
  try {
    indexFile = docsIndexFile(db);
  } catch (error) {
    failedRead(error);
  }
  const messageIndex = storeFile === undefined ? undefined : messageIndexPath(storeFile);
  const storeLabel = storeFile ?? "the in-memory store";

  // The structural checks run on a worker meanwhile; their result is awaited at the end.
  const structuralPaths = [storeFile, indexFile, messageIndex].filter((path): path is string =>
    path !== undefined
  );
  const structural: Promise<FileCheck[]> = storeFile === undefined
    ? Promise.resolve([])
    : quickCheckFiles(structuralPaths, { signal: options.signal });
  // A rejection is handled where it is awaited; until then it must not count as unhandled.
  structural.catch(() => {});

  const chunks = new Map<string, ChunkDamage>();
  const damagedPacks = new Set<number>();
  const packReports: FileReport[] = [];
  const checked = {
    documents: 0,
    contents: 0,
    chunks: 0,
    bytes: 0,
    stored_bytes: 0,
    pack_files: 0,
    files: 0,
  };
  const damage = (hash: string, problem: string, file: string, pack?: number) => {
    chunks.set(hash, { problem, file, ...(pack !== undefined ? { pack } : {}) });
    if (pack !== undefined) damagedPacks.add(pack);
  };

  const reclaimable = { pack_files: 0, bytes: 0 };
  let inlineDamaged = 0;
  const contents = new Map<string, ContentDamage>();
  let missingChunks = 0;
  const documents: DamagedDocument[] = [];
  let damagedDocuments = 0;
  const expected: number[] = [];
  try {
    // 1. Packs: missing, shorter than their rows say, or (reading chunks) holding damaged bytes.
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
      let damagedHere = 0;
      let end = 0;
      for (const row of rows) {
        if (pacer.due) await pacer.pause();
        const offset = row.pack_offset ?? 0;
        end = Math.max(end, offset + row.stored_size);
        let problem: string | undefined;
        if (size === undefined || offset + row.stored_size > size) {
          problem = recheckChunk(db, row.hash);
        } else if (readChunks) {
          let stored: Uint8Array | undefined;
          try {
            stored = readFromPack(db, { pack, offset }, row.stored_size);
          } catch {
            stored = undefined;
          }
          problem = stored === undefined
            ? recheckChunk(db, row.hash)
            : checkStoredBytes(row.hash, row.size, stored);
          // Read again before calling it damaged: it may have been moved or rewritten meanwhile.
          if (problem !== undefined && stored !== undefined) problem = recheckChunk(db, row.hash);
        }
        if (readChunks) {
          checked.chunks++;
          checked.bytes += row.size;
          checked.stored_bytes += row.stored_size;
        }
        if (problem !== undefined) {
          damage(row.hash, problem, path, pack);
          damagedHere++;
        }
      }
      if (size !== undefined) checked.pack_files++;
      if (size === undefined && damagedHere > 0) {
        packReports.push({
          path,
          kind: "pack",
          status: "missing",
          problems: [`it does not exist; ${counted(damagedHere, "chunk")} stored in it are lost`],
          chunks_damaged: damagedHere,
        });
      } else if (size !== undefined && end > size && damagedHere > 0) {
        packReports.push({
          path,
          kind: "pack",
          status: "short",
          problems: [`it ends at byte ${size}, but its chunks reach byte ${end}`],
          bytes: size,
          chunks_damaged: damagedHere,
        });
      } else if (damagedHere > 0) {
        packReports.push({
          path,
          kind: "pack",
          status: "damaged",
          problems: [`${counted(damagedHere, "chunk")} stored in it do not match their hashes`],
          bytes: size,
          chunks_damaged: damagedHere,
        });
      }
    }
    for (const [pack, bytes] of onDisk) {
      if (used.has(pack)) continue;
      reclaimable.pack_files++;
      reclaimable.bytes += bytes;
      checked.pack_files++;
      packReports.push({
        path: packFilePath(db, pack) ?? `pack ${pack}`,
        kind: "pack",
        status: "unreferenced",
        problems: [`no chunk uses it: ${bytes} bytes the garbage collection can reclaim`],
        bytes,
      });
    }

    // 2. Chunks stored in rows.
    if (readChunks) {
      let after = "";
      for (;;) {
        if (pacer.due) await pacer.pause();
        const page = inlineChunksPage(db, after, 64);
        if (page.length === 0) break;
        after = page[page.length - 1].hash;
        for (const row of page) {
          checked.chunks++;
          checked.bytes += row.size;
          checked.stored_bytes += row.stored_size;
          if (checkStoredBytes(row.hash, row.size, row.data) === undefined) continue;
          const problem = recheckChunk(db, row.hash);
          if (problem === undefined) continue;
          damage(row.hash, problem, storeLabel);
          inlineDamaged++;
        }
      }
    }

    // 3. Contents and their chunk lists.
    const contentDamage = (hash: string): ContentDamage => {
      let found = contents.get(hash);
      if (found === undefined) {
        found = { problems: [], files: new Set(), chunks: new Set(), missing: false };
        contents.set(hash, found);
      }
      return found;
    };
    const chunkProblem = (content: string, chunk: string, seq: number) => {
      const known = chunks.get(chunk);
      if (known === undefined) return;
      const entry = contentDamage(content);
      entry.problems.push(`chunk ${chunk} (#${seq}) ${known.problem}`);
      entry.files.add(known.file);
      entry.chunks.add(chunk);
    };
    {
      let after = "";
      for (;;) {
        if (pacer.due) await pacer.pause();
        const page = contentsPage(db, after, 500);
        if (page.length === 0) break;
        after = page[page.length - 1].hash;
        checked.contents += page.length;
        const inPage = new Set(page.map((row) => row.hash));
        for (const row of page) {
          if (row.listed === 0) {
            if (row.chunk_count === 1 && row.self_chunk === 0) {
              const entry = contentDamage(row.hash);
              entry.problems.push(`chunk ${row.hash} (#0) is missing from the store`);
              entry.files.add(storeLabel);
              entry.chunks.add(row.hash);
              missingChunks++;
            } else if (row.chunk_count > 1) {
              const entry = contentDamage(row.hash);
              entry.problems.push(
                `its chunk list is missing from the store (it should name ${row.chunk_count} chunks)`,
              );
              entry.files.add(storeLabel);
            } else if (row.chunk_count === 1) {
              chunkProblem(row.hash, row.hash, 0);
            }
          } else if (row.listed !== row.chunk_count) {
            const entry = contentDamage(row.hash);
            entry.problems.push(
              `its chunk list names ${row.listed} chunks; it should name ${row.chunk_count}`,
            );
            entry.files.add(storeLabel);
          }
        }
        if (page.some((row) => row.listed > 0)) {
          const entries = manifestEntriesBetween(db, page[0].hash, page[page.length - 1].hash);
          for (const entry of entries) {
            if (!inPage.has(entry.content_hash)) continue;
            if (entry.missing === 1) {
              const content = contentDamage(entry.content_hash);
              content.problems.push(
                `chunk ${entry.chunk_hash} (#${entry.seq}) is missing from the store`,
              );
              content.files.add(storeLabel);
              content.chunks.add(entry.chunk_hash);
              missingChunks++;
            } else {
              chunkProblem(entry.content_hash, entry.chunk_hash, entry.seq);
            }
          }
        }
      }
    }

    // 4. Documents: their contents, and which of them the search index should hold.
    {
      let after = 0;
      for (;;) {
        if (pacer.due) await pacer.pause();
        const page = documentsPage(db, after, 1000);
        if (page.length === 0) break;
        after = page[page.length - 1].id;
        checked.documents += page.length;
        for (const row of page) {
          if (row.is_latest === 1 && row.is_text === 1) expected.push(row.id);
          let problems: string[] | undefined;
          let files: string[] = [];
          if (row.content_missing === 1) {
            const entry = contentDamage(row.hash);
            entry.missing = true;
            problems = [`its content ${row.hash} is missing from the store`];
            files = [storeLabel];
          } else {
            const entry = contents.get(row.hash);
            if (entry !== undefined) {
              problems = entry.problems;
              files = [...entry.files];
            }
          }
          if (problems === undefined) continue;
          damagedDocuments++;
          if (documents.length < maxDocuments) {
            documents.push({
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
  } catch (error) {
    failedRead(error);
  }

  // 5. The structural checks.
  let structuralChecks: FileCheck[];
  if (storeFile === undefined) {
    const problems = quickCheckConnection(db);
    structuralChecks = [{
      path: storeLabel,
      status: problems.length === 0 ? "ok" : "damaged",
      problems,
    }];
  } else {
    structuralChecks = await structural;
  }
  const checkOf = (path: string | undefined) =>
    path === undefined ? undefined : structuralChecks.find((check) => check.path === path);
  const storeCheck = storeFile === undefined ? structuralChecks[0] : checkOf(storeFile);
  checked.files += structuralChecks.filter((check) => check.status !== "missing").length;

  // 6. The search index holds every latest text document (or a change for it is queued).
  const index = await checkIndex(
    db,
    indexFile,
    checkOf(indexFile),
    readFailure === undefined ? expected : undefined,
    pacer,
  );

  // 7. Compose.
  const files: FileReport[] = [];
  const storeProblems = [...(storeCheck?.problems ?? [])];
  if (readFailure !== undefined) storeProblems.push(readFailure);
  if (inlineDamaged > 0) {
    storeProblems.push(`${counted(inlineDamaged, "chunk")} stored in its rows are damaged`);
  }
  if (missingChunks > 0) {
    storeProblems.push(
      `${counted(missingChunks, "chunk-list entry", "chunk-list entries")} name no stored chunk`,
    );
  }
  files.push({
    path: storeLabel,
    kind: "store",
    status: storeCheck?.status === "damaged" || storeProblems.length > 0
      ? "damaged"
      : fileStatus(storeCheck),
    problems: storeProblems,
    ...(inlineDamaged > 0 ? { chunks_damaged: inlineDamaged } : {}),
  });
  if (indexFile !== undefined) {
    files.push({
      path: indexFile,
      kind: "docs_index",
      status: index.status === "incomplete" ? "damaged" : index.status,
      problems: index.problems,
    });
  }
  const messageCheck = checkOf(messageIndex);
  if (messageIndex !== undefined) {
    files.push({
      path: messageIndex,
      kind: "message_index",
      status: fileStatus(messageCheck),
      problems: messageCheck?.problems ?? [],
    });
  }
  for (const earlier of docsIndexFiles(db)) {
    if (earlier === indexFile) continue;
    files.push({
      path: earlier,
      kind: "earlier_index",
      status: "left_behind",
      problems: ["an index file of an earlier generation, no longer used; repair removes it"],
    });
  }
  files.push(...packReports);

  const problems: string[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const name = file.kind === "store" && storeFile === undefined ? file.path : basename(file.path);
    const line = `${name}: ${file.status}${
      file.problems.length > 0 ? ` (${file.problems.slice(0, 3).join("; ")})` : ""
    }`;
    if (file.status === "damaged" || file.status === "missing" || file.status === "short") {
      // A message index not made yet is not damage: serve makes it.
      if (file.kind === "message_index" && file.status === "missing") continue;
      if (file.kind === "docs_index" && file.status === "missing" && index.status === "ok") {
        continue;
      }
      problems.push(line);
    } else if (file.status !== "ok") {
      notes.push(line);
    }
  }
  for (const document of documents.slice(0, 10)) {
    problems.push(`document #${document.id} ${document.path}: ${document.problems[0]}`);
  }
  if (damagedDocuments > 10) problems.push(`and ${damagedDocuments - 10} more damaged documents`);
  const damagedFiles =
    files.filter((file) =>
      file.status === "damaged" || file.status === "short" ||
      (file.status === "missing" && file.kind === "pack")
    ).length;
  const storeDamaged = readFailure !== undefined || storeCheck?.status === "damaged";
  const report: VerifyReport = {
    ok: problems.length === 0,
    chunks_checked: readChunks,
    duration_ms: Math.round(performance.now() - started),
    checked,
    damaged: {
      documents: damagedDocuments,
      chunks: chunks.size + missingChunks,
      files: damagedFiles,
    },
    store: {
      file: storeFile ?? null,
      status: readFailure !== undefined ? "damaged" : fileStatus(storeCheck),
      problems: [
        ...(storeCheck?.problems ?? []),
        ...(readFailure !== undefined ? [readFailure] : []),
      ],
    },
    index,
    message_index: {
      file: messageIndex ?? null,
      status: fileStatus(messageCheck),
      problems: messageCheck?.problems ?? [],
    },
    files,
    documents,
    documents_truncated: damagedDocuments > documents.length,
    reclaimable,
    problems,
    notes,
    what_to_do: adviceFor(problems.length > 0, storeDamaged ? storeFile ?? storeLabel : undefined),
  };
  return { report, chunks, contents, damagedPacks };
}

/** Compares the index file's rows with the latest text documents (`expected`, ascending). */
async function checkIndex(
  db: DatabaseSync,
  file: string | undefined,
  check: FileCheck | undefined,
  expected: readonly number[] | undefined,
  pacer: Pacer,
): Promise<IndexReport> {
  const report: IndexReport = {
    file: file ?? null,
    status: "ok",
    expected: expected?.length ?? 0,
    indexed: 0,
    queued: 0,
    missing: 0,
    extra: 0,
    missing_ids: [],
    extra_ids: [],
    problems: [],
  };
  if (expected === undefined) {
    // The store could not be read to the end: what the index should hold is not known.
    report.status = check?.status === "damaged" ? "damaged" : "unchecked";
    report.problems.push(
      ...(check?.problems ?? []),
      "what it should hold is unknown: the store could not be read",
    );
    return report;
  }
  let queued = queuedDocumentIds(db);
  report.queued = queued.size;
  if (file !== undefined && check !== undefined && check.status !== "ok") {
    if (check.status === "missing") {
      const unqueued = expected.filter((id) => !queued.has(id)).length;
      report.status = unqueued > 0 ? "missing" : "ok";
      report.missing = unqueued;
      if (unqueued > 0) {
        report.problems.push(
          `it does not exist: ${
            counted(unqueued, "latest text document")
          } not searchable by keyword until it is rebuilt`,
        );
      }
      return report;
    }
    report.status = check.status;
    report.problems.push(...check.problems);
    return report;
  }
  let index: DatabaseSync;
  try {
    index = file === undefined ? db : openIndexForReading(file);
  } catch (error) {
    report.status = "damaged";
    report.problems.push(`it cannot be opened: ${messageOf(error)}`);
    return report;
  }
  const missing: number[] = [];
  const extra: number[] = [];
  try {
    let next = 0;
    let after = 0;
    for (;;) {
      if (pacer.due) await pacer.pause();
      const ids = indexedIdsPage(index, after, 5000);
      if (ids.length === 0) break;
      after = ids[ids.length - 1];
      report.indexed += ids.length;
      for (const id of ids) {
        while (next < expected.length && expected[next] < id) missing.push(expected[next++]);
        if (next < expected.length && expected[next] === id) next++;
        else extra.push(id);
      }
    }
    while (next < expected.length) missing.push(expected[next++]);
    // Read again what differs: a document added, indexed or removed meanwhile is not a gap.
    queued = queuedDocumentIds(db);
    const candidates = [...missing, ...extra].filter((id) => !queued.has(id));
    const indexable = latestTextState(db, candidates);
    const present = indexedAmong(index, candidates);
    for (const id of candidates) {
      const should = indexable.get(id) === true;
      const has = present.has(id);
      if (should && !has) {
        report.missing++;
        if (report.missing_ids.length < LISTED_IDS) report.missing_ids.push(id);
      } else if (!should && has) {
        report.extra++;
        if (report.extra_ids.length < LISTED_IDS) report.extra_ids.push(id);
      }
    }
  } catch (error) {
    report.status = "damaged";
    report.problems.push(`reading it failed: ${messageOf(error)}`);
    return report;
  } finally {
    if (index !== db) index.close();
  }
  if (report.missing > 0) {
    report.problems.push(
      `${counted(report.missing, "latest text document")} not in it (ids ${
        report.missing_ids.join(", ")
      }${report.missing > report.missing_ids.length ? ", …" : ""})`,
    );
  }
  if (report.extra > 0) {
    report.problems.push(
      `it holds ${counted(report.extra, "document")} no longer latest or stored (ids ${
        report.extra_ids.join(", ")
      }${report.extra > report.extra_ids.length ? ", …" : ""})`,
    );
  }
  if (report.problems.length > 0) report.status = "incomplete";
  return report;
}

/** What to do about damage: the store's own file first, since nothing else can be repaired without it. */
function adviceFor(damaged: boolean, damagedStore: string | undefined): string[] {
  if (!damaged) return [];
  if (damagedStore !== undefined) return [storeDamageAdvice(damagedStore)];
  return [
    "run 'vantage repair': it rebuilds the search indexes and writes damaged documents back from their original files where those are unchanged, and names what it cannot repair",
  ];
}

/** What to do about a store file whose own pages are damaged. */
export function storeDamageAdvice(file: string): string {
  return `${file} is damaged and cannot be rebuilt: stop every Vantage process, then restore it from a copy, or recover what SQLite can still read with 'sqlite3 ${
    basename(file)
  } ".recover" | sqlite3 recovered.db' and put recovered.db in its place`;
}

/**
 * Reads a chunk back and checks it: what is wrong with it, or undefined
 * when it is whole (or no longer stored).
 */
export function chunkProblem(db: DatabaseSync, hash: string): string | undefined {
  return recheckChunk(db, hash);
}

/**
 * The report for a store file that cannot even be opened (`error` said
 * why): its structural check and the message index's, nothing else.
 */
export async function verifyUnopenedStore(
  storeFile: string,
  error: unknown,
  signal?: AbortSignal,
): Promise<VerifyReport> {
  const started = performance.now();
  const messageIndex = messageIndexPath(storeFile);
  const [store, messages] = await quickCheckFiles([storeFile, messageIndex], { signal });
  const opening = `it cannot be opened: ${messageOf(error)}`;
  const storeProblems = [...store.problems.filter((problem) => problem !== messageOf(error))];
  storeProblems.unshift(opening);
  const files: FileReport[] = [
    { path: storeFile, kind: "store", status: "damaged", problems: storeProblems },
    {
      path: messageIndex,
      kind: "message_index",
      status: messages.status,
      problems: messages.problems,
    },
  ];
  const problems = [`${basename(storeFile)}: damaged (${storeProblems.slice(0, 3).join("; ")})`];
  if (messages.status === "damaged") {
    problems.push(
      `${basename(messageIndex)}: damaged (${messages.problems.slice(0, 3).join("; ")})`,
    );
  }
  return {
    ok: false,
    chunks_checked: false,
    duration_ms: Math.round(performance.now() - started),
    checked: {
      documents: 0,
      contents: 0,
      chunks: 0,
      bytes: 0,
      stored_bytes: 0,
      pack_files: 0,
      files: [store, messages].filter((check) => check.status !== "missing").length,
    },
    damaged: { documents: 0, chunks: 0, files: problems.length },
    store: { file: storeFile, status: "damaged", problems: storeProblems },
    index: {
      file: null,
      status: "unchecked",
      expected: 0,
      indexed: 0,
      queued: 0,
      missing: 0,
      extra: 0,
      missing_ids: [],
      extra_ids: [],
      problems: ["the store names the index file, and the store cannot be opened"],
    },
    message_index: {
      file: messageIndex,
      status: messages.status,
      problems: messages.problems,
    },
    files,
    documents: [],
    documents_truncated: false,
    reclaimable: { pack_files: 0, bytes: 0 },
    problems,
    notes: [],
    what_to_do: adviceFor(true, storeFile),
  };
}

/**
 * The structural check `serve` runs at start, in the background: the store,
 * the document index and the message index, on a worker. A file found
 * damaged is recorded as the store's health (so `/api/health` says
 * `degraded`); a file found whole takes back what an earlier start recorded
 * about it.
 */
export async function checkStructureAtStart(
  db: DatabaseSync,
  signal?: AbortSignal,
): Promise<FileCheck[]> {
  const storeFile = storeFileOf(db);
  if (storeFile === undefined) return [];
  const folder = dirname(storeFile);
  const files = [storeFile, messageIndexPath(storeFile)];
  try {
    const index = docsIndexFile(db);
    if (index !== undefined) files.splice(1, 0, index);
  } catch (error) {
    // The store cannot even say which index file it uses: that is damage to record too.
    noticeDamageIn(folder, error, storeFile);
  }
  const checks = await quickCheckFiles(files, { signal });
  for (const check of checks) {
    if (check.status === "damaged") {
      recordStoreDamage(folder, {
        source: "startup_check",
        file: check.path,
        message: `${check.path}: ${check.problems.slice(0, 3).join("; ")}`,
      });
    } else if (check.status === "ok") {
      clearStoreDamage(folder, "startup_check", check.path);
    }
  }
  return checks;
}
