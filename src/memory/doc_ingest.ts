/**
 * Adding documents: a file, a folder (recursive, include/exclude globs) or
 * inline content. Bytes go to the content store, then a document row records
 * path, name, type, size, times, tags, metadata, collection, snapshot and
 * session, and the index rows are written. Work is done in batches, each one
 * synchronous transaction, with a pause between batches so a time limit or
 * cancellation can stop a long add.
 *
 * @module
 */
import { basename, extname, join, relative, resolve } from "node:path";
import { VantageError } from "../core/errors.ts";
import {
  type DatabaseSync,
  letWaitingWritersIn,
  transaction,
  writersWaiting,
} from "../store/database.ts";
import {
  addTags,
  type DocumentRow,
  insertDocument,
  latestDocumentForPath,
  pathVersions,
  refreshDocument,
  setMetadata,
  supersedeOtherVersions,
} from "../store/docs_documents.ts";
import {
  addSnapshotMember,
  refreshSnapshotCount,
  snapshotExists,
  upsertSnapshot,
} from "../store/docs_snapshots.ts";
import {
  clearIndexChanges,
  docsIndex,
  docsIndexFile,
  type IndexChange,
  openDocsIndex,
} from "../store/docs_fts.ts";
import { bumpCounter, useBulkWriteSettings } from "../store/docs_statements.ts";
import {
  collectGarbage,
  compactPacks,
  filePieces,
  MAX_IN_MEMORY_BYTES,
  putContent,
  putFileContent,
  type PutResult,
} from "./content_store.ts";
import {
  applyOwnChanges,
  EMBED_PIECE_CHARS,
  embeddingPieces,
  embedPending,
  indexDocument,
  markInFlight,
  markVectorsIncomplete,
  MAX_EMBED_PIECES,
  MAX_INDEXED_BYTES,
  type PendingVectors,
  unindexDocument,
} from "./doc_index.ts";
import { type Embedder, HashedEmbedder, vectorToBytes } from "./embedder.ts";
import { type EmbeddedDocument, type EmbedJob, IndexWorker } from "./index_worker.ts";
import { deleteVectors, insertVector } from "../store/docs_vectors.ts";
import { isLatestDocument, setVectorModel } from "../store/docs_documents.ts";
import { syncEmbedding } from "./embedding_config.ts";
import { gitInfo } from "./git_info.ts";
import { createPathFilter } from "./glob.ts";
import { extractText, namedAsBinary } from "./text_extract.ts";
import { type FileKind, type HandedOver, WorkBalance } from "./ingest_balance.ts";

/** How documents are added. */
export interface IngestOptions {
  /** Tags to add to every document. */
  tags?: readonly string[];
  /** Metadata to set on every document. */
  metadata?: Record<string, string>;
  /** Collection to put documents in. */
  collection?: string;
  /** Snapshot id to use (default: a new ISO-timestamp id). */
  snapshotId?: string;
  /** Snapshot label. */
  snapshotLabel?: string;
  /** Session the documents are added in (null: none). */
  session: string | null;
  /** Globs a file's path below the folder must match (default: all). */
  include?: readonly string[];
  /** Globs that exclude files below the folder. */
  exclude?: readonly string[];
  /** Descend into sub-folders (default true). */
  recursive?: boolean;
  /** Folders never to descend into (the data home). */
  skipFolders?: readonly string[];
  /** Skip files whose size and modification time match the stored latest version. */
  skipUnchangedByStat?: boolean;
  /** URL a downloaded document came from. */
  sourceUrl?: string;
  /** The embedder. */
  embedder: Embedder;
  /** "Now", ms. */
  now: number;
  /** Stops a long add between batches. */
  signal?: AbortSignal;
}

/** What happened to one document. */
export interface IngestedDocument {
  /** Document id. */
  id: number;
  /** Content hash. */
  hash: string;
  /** Stored path. */
  path: string;
  /** Base name. */
  name: string;
  /** Bytes. */
  size: number;
  /** MIME type. */
  mime: string;
  /** `added` (new path), `updated` (new content for a known path) or `unchanged`. */
  status: "added" | "updated" | "unchanged";
}

/** The outcome of an add. */
export interface IngestReport {
  /** Snapshot the documents were recorded in. */
  snapshot_id: string;
  /** Session they were added in. */
  session_id: string | null;
  /** Files looked at. */
  files_scanned: number;
  /** New paths. */
  documents_added: number;
  /** Known paths with new content. */
  documents_updated: number;
  /** Documents whose content was already stored under the same path. */
  documents_unchanged: number;
  /** Bytes of every document added. */
  bytes: number;
  /** Chunks that were not stored before. */
  new_chunks: number;
  /** Raw bytes of those chunks. */
  new_bytes: number;
  /** Their compressed size. */
  stored_bytes: number;
  /** Each document, in the order processed. */
  documents: IngestedDocument[];
  /** Files that could not be added, with the reason. */
  skipped: Array<{ path: string; reason: string }>;
  /** Problems that did not stop the add (an embedding service that did not answer). */
  warnings: string[];
}

/** One file to add. */
interface FileEntry {
  path: string;
  relativePath: string;
  /** Display name when it is not the path's base name (inline content, downloads). */
  name?: string;
  /** The file's status, when the listing already read it. */
  info?: Deno.FileInfo;
}

/** Inline content to add. */
export interface InlineDocument {
  /** Name (also used as its path). */
  name: string;
  /** The bytes. */
  bytes: Uint8Array;
  /** Path to store it under (default: the name). */
  path?: string;
  /** Modification time, ms (default now). */
  modified?: number;
}

const BATCH_FILES = 256;
const BATCH_BYTES = 64 * 1024 * 1024;
/**
 * The first batches are smaller, growing fourfold to the full size: the
 * worker has nothing to do until the first batch is stored, so a small one
 * sets it to work sooner.
 */
const FIRST_BATCH_SHARE = 1 / 16;
/**
 * How long one write of a large add goes on at most before it commits and
 * gives this process's event loop a turn (in `serve`, a hook arriving over
 * HTTP waits for that). A writer of another process never waits this long:
 * the add commits as soon as one announces that it waits, after the file in
 * hand.
 */
const WRITE_SLICE_MS = 50;
/** Adds of at least this many files index and embed on a worker while the next batch is stored. */
const WORKER_MIN_FILES = 128;
/**
 * Batches the worker may have in hand before the main thread embeds the next
 * one itself whatever the estimates say: each holds up to 64 MiB of text.
 */
const MAX_IN_FLIGHT = 3;

/**
 * Adds a file or a folder, which must already be checked for read access.
 *
 * @example
 * ```ts ignore
 * const report = await ingestPath(db, "/repo/docs", { session: null, embedder, now: Date.now() });
 * ```
 */
export async function ingestPath(
  db: DatabaseSync,
  path: string,
  options: IngestOptions,
): Promise<IngestReport> {
  const absolute = resolve(path);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(absolute);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new VantageError("not_found", `no file or folder at ${absolute}`, {
        details: { path: absolute },
      });
    }
    throw error;
  }
  const report = newReport(options);
  const isDirectory = info.isDirectory;
  const git = isDirectory ? await gitInfo(absolute) : { commit: null, branch: null, remote: null };
  const files = isDirectory
    ? textFirst(listFiles(absolute, options, report))
    : [{ path: absolute, relativePath: basename(absolute) }];
  await ingestList(
    db,
    files,
    isDirectory ? absolute : resolve(absolute, ".."),
    git,
    options,
    report,
  );
  return report;
}

/**
 * Adds specific files below `root` (as a watcher does after changes); files
 * that no longer exist are skipped.
 */
export async function ingestFiles(
  db: DatabaseSync,
  root: string,
  paths: readonly string[],
  options: IngestOptions,
): Promise<IngestReport> {
  const report = newReport(options);
  const files = paths.map((path) => ({
    path,
    relativePath: relative(root, path).replaceAll("\\", "/"),
  }));
  await ingestList(db, files, root, { commit: null, branch: null, remote: null }, options, report);
  return report;
}

async function ingestList(
  db: DatabaseSync,
  files: readonly FileEntry[],
  directory: string,
  git: { commit: string | null; branch: string | null; remote: string | null },
  options: IngestOptions,
  report: IngestReport,
): Promise<void> {
  // The index is opened (a new one filled from the store) before this add's documents exist.
  docsIndex(db);
  const ingest = new Ingest(db, options, report);
  ingest.openSnapshot(directory, git);
  if (files.length >= WORKER_MIN_FILES) ingest.useWorker();
  const restoreCache = useBulkWriteSettings(db);
  try {
    await addInBatches(ingest, files, options);
  } finally {
    ingest.close();
    restoreCache();
  }
}

async function addInBatches(
  ingest: Ingest,
  files: readonly FileEntry[],
  options: IngestOptions,
): Promise<void> {
  let batch: FileEntry[] = [];
  let batchBytes = 0;
  const flush = async () => {
    const work = batch;
    batch = [];
    batchBytes = 0;
    await ingest.storeBatch(work, options.signal);
    ingest.dispatch();
  };
  ingest.plan(files);
  // Without a worker there is no one to set to work sooner.
  let share = ingest.usesWorker ? FIRST_BATCH_SHARE : 1;
  for (const file of files) {
    batch.push(file);
    batchBytes += file.info?.size ?? fileSize(file.path);
    if (batch.length >= BATCH_FILES * share || batchBytes >= BATCH_BYTES * share) {
      share = Math.min(1, share * 4);
      await flush();
      await pause(options.signal);
    }
  }
  if (batch.length > 0) await flush();
  await ingest.finish();
}

/** Adds inline content (a `content` + `name` add, or downloaded bytes). */
export async function ingestInline(
  db: DatabaseSync,
  documents: readonly InlineDocument[],
  options: IngestOptions,
): Promise<IngestReport> {
  const report = newReport(options);
  docsIndex(db);
  const ingest = new Ingest(db, options, report);
  ingest.openSnapshot(null, { commit: null, branch: null, remote: null });
  if (documents.length >= WORKER_MIN_FILES) ingest.useWorker();
  ingest.planInline(documents);
  const restoreCache = useBulkWriteSettings(db);
  try {
    ingest.write(() => {
      for (const doc of documents) {
        report.files_scanned++;
        const path = doc.path ?? doc.name;
        const modified = doc.modified ?? options.now;
        ingest.record(
          { path, relativePath: doc.name, name: doc.name },
          putContent(db, doc.bytes, options.now),
          doc.bytes,
          { created: modified, modified },
        );
      }
    });
    await ingest.finish();
  } finally {
    ingest.close();
    restoreCache();
  }
  return report;
}

function newReport(options: IngestOptions): IngestReport {
  return {
    snapshot_id: "",
    session_id: options.session,
    files_scanned: 0,
    documents_added: 0,
    documents_updated: 0,
    documents_unchanged: 0,
    bytes: 0,
    new_chunks: 0,
    new_bytes: 0,
    stored_bytes: 0,
    documents: [],
    skipped: [],
    warnings: [],
  };
}

class Ingest {
  #pending: PendingVectors[] = [];
  #embed: ((text: string) => Float32Array) | undefined;
  #timedEmbed: ((text: string) => Float32Array) | undefined;
  /** Indexes and embeds on the second core, when the add is large enough to be worth a worker. */
  #worker: IndexWorker | undefined;
  /** The index file the worker applies changes to (they are cleared from the queue against it). */
  #indexFile = "";
  /** Documents of the current batch waiting to be sent to the worker. */
  #jobs: EmbedJob[] = [];
  /** Full-text changes queued by the current write, applied once it commits. */
  #changes: IndexChange[] = [];
  /** Batches sent to the worker, oldest first. */
  #inFlight: Array<Promise<unknown>> = [];
  /** The estimates of batches sent to the worker, oldest first, until it is seen to finish them. */
  #handedOut: HandedOver[] = [];
  /** Vectors back from the worker, stored with the next write. */
  #embedded: EmbeddedDocument[] = [];
  /** Queue positions the worker has applied, cleared from the queue with the next write. */
  #applied: number[] = [];
  /** Changes the worker failed to apply. */
  #failed: IndexChange[] = [];
  /** Estimates deciding which thread embeds each text (with a worker). */
  #balance = new WorkBalance();
  /** Milliseconds this thread spent embedding during the current batch. */
  #embeddingMs = 0;
  #workerFailure: Error | undefined;
  #markedIncomplete = false;
  #snapshotId = "";
  #snapshotOpened = false;
  #snapshotRow: Parameters<typeof upsertSnapshot>[1] | undefined;

  constructor(
    private readonly db: DatabaseSync,
    private readonly options: IngestOptions,
    private readonly report: IngestReport,
  ) {
    const embed = syncEmbedding(options.embedder);
    this.#embed = embed;
    // Embedding here is timed on its own: it is the one part of this thread's work the worker
    // could have done, so the estimates leave it out of this thread's own costs.
    this.#timedEmbed = embed === undefined ? undefined : (text: string) => {
      const started = performance.now();
      const vector = embed(text);
      this.#embeddingMs += performance.now() - started;
      return vector;
    };
  }

  openSnapshot(
    directory: string | null,
    git: { commit: string | null; branch: string | null; remote: string | null },
  ): void {
    let id = this.options.snapshotId ?? newSnapshotId(this.options.now);
    if (this.options.snapshotId === undefined) {
      while (snapshotExists(this.db, id)) id = newSnapshotId(this.options.now);
    }
    this.#snapshotId = id;
    this.report.snapshot_id = id;
    this.#snapshotRow = {
      snapshot_id: id,
      label: this.options.snapshotLabel ?? null,
      created_at: this.options.now,
      directory_path: directory,
      collection: this.options.collection ?? null,
      session_id: this.options.session,
      git_commit: git.commit,
      git_branch: git.branch,
      git_remote: git.remote,
      files_count: 0,
    };
  }

  /**
   * Indexes and embeds on a worker from now on: full-text changes when the
   * store is a file (the worker writes the index file), vectors when the
   * embedder is the built-in hashed one (the worker computes the same
   * vectors). Nothing to hand over, no worker.
   */
  useWorker(): void {
    const embedder = this.options.embedder instanceof HashedEmbedder && this.#embed !== undefined
      ? this.options.embedder
      : undefined;
    if (embedder === undefined && docsIndexFile(this.db) === undefined) return;
    // The index file exists, with its schema, before the worker opens it.
    const opened = openDocsIndex(this.db).path;
    const indexPath = opened === ":memory:" ? undefined : opened;
    this.#indexFile = opened;
    try {
      this.#worker = new IndexWorker({ embedder, indexPath });
    } catch {
      // No worker (a restricted runtime): the main thread indexes and embeds as before.
    }
  }

  /** Sends the documents stored by the last write to the worker. */
  dispatch(): void {
    if (this.#worker === undefined) return;
    const changes = this.#worker.indexes ? this.#changes : [];
    if (this.#worker.indexes) this.#changes = [];
    const jobs = this.#jobs;
    this.#jobs = [];
    if (changes.length === 0 && jobs.length === 0) return;
    const seqs = changes.map((change) => change.seq);
    markInFlight(this.db, seqs, true);
    const handed = this.#balance.handOver();
    const done = this.#worker.run(changes, jobs);
    this.#handedOut.push(handed);
    this.#inFlight.push(done);
    done.then((out) => {
      this.#balance.workerDone(handed, out.ms.index, out.ms.embed);
      for (const doc of out.embedded) this.#embedded.push(doc);
      for (const seq of out.applied) this.#applied.push(seq);
    }, (error) => {
      this.#balance.workerFailed(handed);
      this.#workerFailure ??= error instanceof Error ? error : new Error(String(error));
      // Not applied: the main thread applies them when the add finishes.
      for (const change of changes) this.#failed.push(change);
    }).finally(() => {
      this.#inFlight.splice(this.#inFlight.indexOf(done), 1);
      markInFlight(this.db, seqs, false);
    });
  }

  /** Stops the worker. */
  close(): void {
    this.#worker?.close();
    this.#worker = undefined;
  }

  /** Stores vectors the worker has sent back (inside the caller's transaction). */
  #storeEmbedded(): void {
    if (this.#embedded.length === 0) return;
    const db = this.db;
    const model = this.options.embedder.id;
    for (const doc of this.#embedded) {
      // Another process may have deleted or replaced the document since it was stored.
      if (!isLatestDocument(db, doc.id)) continue;
      if (deleteVectors(db, doc.id) > 0) bumpCounter(db, "vector_removals");
      for (const [seq, vector] of doc.vectors.entries()) {
        insertVector(db, doc.id, seq, model, vector);
      }
      setVectorModel(db, doc.id, model);
    }
    this.#embedded = [];
  }

  /**
   * Runs `work` in one transaction, bumping the search generation when it
   * commits; then applies its full-text changes, unless a worker will.
   */
  write(work: () => void): void {
    const opensSnapshot = !this.#snapshotOpened;
    const embedded = this.#embedded;
    const applied = this.#applied;
    const changesBefore = this.#changes.length;
    const jobsBefore = this.#jobs.length;
    try {
      transaction(this.db, () => {
        if (opensSnapshot) upsertSnapshot(this.db, this.#snapshotRow!);
        this.#storeEmbedded();
        this.#applied = [];
        clearIndexChanges(this.db, applied, this.#indexFile);
        work();
        bumpCounter(this.db, "index_generation");
      });
      this.#snapshotOpened = true;
    } catch (error) {
      // Vectors and applied positions not recorded are kept for the next write; what the work
      // queued was rolled back with it.
      this.#embedded = embedded.concat(this.#embedded);
      this.#applied = applied.concat(this.#applied);
      this.#changes.length = Math.min(this.#changes.length, changesBefore);
      this.#jobs.length = Math.min(this.#jobs.length, jobsBefore);
      throw error;
    }
    if (this.#worker?.indexes !== true) {
      const changes = this.#changes;
      this.#changes = [];
      applyOwnChanges(this.db, changes);
    }
  }

  /** Whether a worker indexes or embeds for this add. */
  get usesWorker(): boolean {
    return this.#worker !== undefined;
  }

  /** Counts the bytes this add will store, for the estimates. */
  plan(files: readonly FileEntry[]): void {
    for (const file of files) {
      this.#balance.plan(kindOf(file.path), file.info?.size ?? 0);
    }
  }

  /** Counts the bytes of inline documents this add will store, for the estimates. */
  planInline(documents: readonly InlineDocument[]): void {
    for (const doc of documents) this.#balance.plan(kindOf(doc.name), doc.bytes.length);
  }

  /**
   * Stores a batch of files, timing it for the estimates: in writes that end
   * when another writer waits for the store (a hook, another agent's add) or
   * after {@linkcode WRITE_SLICE_MS}, with a pause between them that lets
   * waiting writers go first.
   */
  async storeBatch(files: readonly FileEntry[], signal: AbortSignal | undefined): Promise<void> {
    let next = 0;
    let ms = 0;
    const bytes = { text: 0, binary: 0 };
    while (next < files.length) {
      if (next > 0) {
        await pause(signal);
        await letWaitingWritersIn(this.db);
      }
      const started = performance.now();
      this.#embeddingMs = 0;
      this.write(() => {
        do {
          const file = files[next++];
          this.addFile(file);
          bytes[kindOf(file.path)] += file.info?.size ?? 0;
        } while (
          next < files.length && performance.now() - started < WRITE_SLICE_MS &&
          !writersWaiting(this.db)
        );
      });
      ms += performance.now() - started - this.#embeddingMs;
    }
    this.#balance.mainDone(bytes, ms);
  }

  addFile(file: FileEntry): void {
    this.report.files_scanned++;
    let info: Deno.FileInfo;
    try {
      info = file.info ?? Deno.statSync(file.path);
    } catch (error) {
      this.report.skipped.push({ path: file.path, reason: messageOf(error) });
      return;
    }
    const times = {
      created: info.birthtime?.getTime() ?? info.mtime?.getTime() ?? this.options.now,
      modified: info.mtime?.getTime() ?? this.options.now,
    };
    if (this.options.skipUnchangedByStat) {
      const latest = latestDocumentForPath(this.db, file.path);
      if (
        latest !== undefined && latest.size === info.size && latest.modified_at === times.modified
      ) {
        this.#membership(latest);
        this.#note(latest, "unchanged");
        return;
      }
    }
    // Reading comes first, so a file that cannot be read is skipped before anything is written.
    // (No savepoint per file: FTS5 flushes its pending index at every savepoint.)
    try {
      if (info.size > MAX_IN_MEMORY_BYTES) {
        const prefix = readPrefix(file.path, MAX_INDEXED_BYTES);
        this.record(file, putFileContent(this.db, file.path, this.options.now), prefix, times);
      } else {
        const bytes = Deno.readFileSync(file.path);
        this.record(file, putContent(this.db, bytes, this.options.now), bytes, times);
      }
    } catch (error) {
      if (!isFileProblem(error)) throw error;
      this.report.skipped.push({ path: file.path, reason: messageOf(error) });
    }
  }

  /** Records one stored content as a document at `file.path`. */
  record(
    file: FileEntry,
    put: PutResult,
    bytes: Uint8Array,
    times: { created: number; modified: number },
  ): void {
    const db = this.db;
    const options = this.options;
    this.report.bytes += put.size;
    this.report.new_chunks += put.new_chunks;
    this.report.new_bytes += put.new_bytes;
    this.report.stored_bytes += put.stored_bytes;
    const { same: existing, latest: previous } = pathVersions(db, file.path, put.hash);
    if (existing !== undefined) {
      refreshDocument(db, existing.id, {
        relative_path: file.relativePath,
        modified_at: times.modified,
        collection: options.collection,
        session_id: options.session ?? undefined,
      });
      if (existing.is_latest === 0) {
        for (const old of supersedeOtherVersions(db, file.path, existing.id)) this.#unindex(old);
        this.#index(existing.id, file.path, existing.title, bytes);
      }
      this.#decorate(existing.id);
      this.#membership(existing);
      this.#note(existing, "unchanged");
      return;
    }
    const prefix = bytes.length > MAX_INDEXED_BYTES ? bytes.subarray(0, MAX_INDEXED_BYTES) : bytes;
    const name = basename(file.name ?? file.path) || file.relativePath;
    const extracted = extractText(file.name ?? file.path, prefix);
    const row = {
      hash: put.hash,
      path: file.path,
      relative_path: file.relativePath,
      name,
      extension: extname(name).toLowerCase(),
      mime: extracted.mime,
      is_text: extracted.isText ? 1 : 0,
      size: put.size,
      title: (extracted.title ?? name).slice(0, 500),
      created_at: times.created,
      modified_at: times.modified,
      indexed_at: options.now,
      collection: options.collection ?? null,
      snapshot_id: this.#snapshotId,
      session_id: options.session,
      source_url: options.sourceUrl ?? null,
    };
    const here = extracted.text !== undefined && this.#embedsHere(extracted.text.length);
    const embedsNow = this.#embed !== undefined && here;
    const id = insertDocument(db, { ...row, vector_model: embedsNow ? options.embedder.id : null });
    // A path is only ever latest once, so with no latest version there is nothing to supersede.
    if (previous !== undefined) {
      for (const old of supersedeOtherVersions(db, file.path, id)) this.#unindex(old);
    }
    this.#indexText(id, file.path, row.title, extracted.text, here, embedsNow);
    this.#decorate(id);
    this.#note(
      { id, ...row, is_latest: 1, vector_model: null },
      previous === undefined ? "added" : "updated",
    );
  }

  #unindex(id: number): void {
    this.#changes.push(unindexDocument(this.db, id));
  }

  /** Whether a text of `length` characters is embedded on this thread (else on the worker). */
  #embedsHere(length: number): boolean {
    const worker = this.#worker;
    if (worker?.embeds !== true) return true;
    // The worker works through its batches in order, so the oldest ones beyond those it has
    // not finished are done, whether or not their reports have been taken in.
    const unfinished = worker.unfinished;
    while (this.#handedOut.length > unfinished) {
      this.#balance.workerFinished(this.#handedOut.shift()!);
    }
    if (unfinished >= MAX_IN_FLIGHT) return true;
    return this.#balance.embedHere(Math.min(length, EMBED_PIECE_CHARS * MAX_EMBED_PIECES));
  }

  #index(id: number, path: string, title: string, bytes: Uint8Array): void {
    const prefix = bytes.length > MAX_INDEXED_BYTES ? bytes.subarray(0, MAX_INDEXED_BYTES) : bytes;
    const text = extractText(path, prefix).text;
    const here = this.#embedsHere(text?.length ?? 0);
    // Its old vectors are gone until the worker's land: a crash before then must leave it findable
    // by the backfill, which looks for documents without a vector model.
    if (!here) setVectorModel(this.db, id, null);
    this.#indexText(id, path, title, text, here);
  }

  #indexText(
    id: number,
    path: string,
    title: string,
    text: string | undefined,
    embedHere: boolean,
    modelRecorded = false,
  ): void {
    const onWorker = !embedHere;
    const change = indexDocument(
      this.db,
      { model: this.options.embedder.id, embed: onWorker ? undefined : this.#timedEmbed },
      { id, path, title, text, modelRecorded },
    );
    if (change !== undefined) {
      this.#changes.push(change);
      if (this.#worker?.indexes === true) {
        this.#balance.toIndex(title.length + path.length + (change.text?.length ?? 0));
      }
    }
    if (onWorker && text !== undefined) {
      // Until the worker's vectors are stored, a search after a crash must know to fill the gap.
      if (!this.#markedIncomplete) markVectorsIncomplete(this.db);
      this.#markedIncomplete = true;
      const pieces = embeddingPieces(title, text);
      let chars = 0;
      for (const piece of pieces) chars += piece.length;
      this.#balance.toEmbed(chars);
      this.#jobs.push({ id, pieces });
    } else if (this.#embed === undefined && text !== undefined) {
      // Until the embedding service has answered, a later search must know to fill the gap.
      if (this.#pending.length === 0) markVectorsIncomplete(this.db);
      this.#pending.push({ id, title, text });
    }
  }

  #decorate(id: number): void {
    if (this.options.tags !== undefined && this.options.tags.length > 0) {
      addTags(this.db, id, this.options.tags);
    }
    if (this.options.metadata !== undefined && Object.keys(this.options.metadata).length > 0) {
      setMetadata(this.db, id, this.options.metadata);
    }
  }

  #membership(doc: DocumentRow): void {
    if (doc.snapshot_id !== this.#snapshotId) addSnapshotMember(this.db, this.#snapshotId, doc.id);
  }

  #note(doc: DocumentRow, status: IngestedDocument["status"]): void {
    if (status === "added") this.report.documents_added++;
    else if (status === "updated") this.report.documents_updated++;
    else this.report.documents_unchanged++;
    this.report.documents.push({
      id: doc.id,
      hash: doc.hash,
      path: doc.path,
      name: doc.name,
      size: doc.size,
      mime: doc.mime,
      status,
    });
  }

  async finish(): Promise<void> {
    this.dispatch();
    // Nothing left to store: this thread helps the worker by embedding the jobs it has not
    // reached, newest first, instead of waiting.
    let helped = 0;
    while (this.#inFlight.length > 0) {
      const job = this.#embed === undefined ? undefined : this.#worker?.steal();
      if (job === undefined) {
        await this.#inFlight[0].catch(() => {});
        continue;
      }
      const embed = this.#embed!;
      this.#embedded.push({
        id: job.id,
        vectors: job.pieces.map((piece) => vectorToBytes(embed(piece))),
      });
      // Now and then the worker's answers are let in.
      if (++helped % 32 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    if (this.#workerFailure !== undefined) {
      this.report.warnings.push(
        `indexing on a worker failed (${this.#workerFailure.message}); the main thread indexed the documents and semantic search will embed them later`,
      );
    }
    let freed = 0;
    this.write(() => {
      refreshSnapshotCount(this.db, this.#snapshotId);
      // Chunks given back by a file that changed while it was stored.
      freed = collectGarbage(this.db).chunks;
    });
    if (freed > 0) compactPacks(this.db);
    // Changes the worker could not apply (it failed) are applied here.
    applyOwnChanges(this.db, this.#failed);
    this.#failed = [];
    if (this.#pending.length > 0) {
      try {
        await embedPending(
          this.db,
          this.options.embedder,
          this.#pending,
          (work) => transaction(this.db, work),
        );
      } catch (error) {
        // The documents are stored and searchable by keyword; a later search embeds them.
        this.report.warnings.push(
          `embedding with ${this.options.embedder.id} failed (${
            error instanceof Error ? error.message : String(error)
          }); semantic search will embed these documents later`,
        );
      }
      this.#pending = [];
    }
  }
}

/** A new snapshot id: the ISO time with three extra random digits for uniqueness. */
export function newSnapshotId(now: number): string {
  const iso = new Date(now).toISOString();
  const extra = Math.floor(Math.random() * 1000).toString().padStart(3, "0");
  return iso.replace("Z", `${extra}Z`);
}

function listFiles(
  root: string,
  options: IngestOptions,
  report: IngestReport,
): FileEntry[] {
  const filter = createPathFilter(options.include, options.exclude);
  const skip = new Set((options.skipFolders ?? []).map((folder) => resolve(folder)));
  const recursive = options.recursive ?? true;
  const files: FileEntry[] = [];
  // Synchronous reads: one call per folder instead of one awaited step per entry, several
  // times faster on folders of thousands of files.
  const walk = (folder: string): void => {
    if (skip.has(folder)) return;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch (error) {
      report.skipped.push({ path: folder, reason: messageOf(error) });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const relativePath = relative(root, path).replaceAll("\\", "/");
      if (entry.isDirectory) {
        // Git's object store is never a document; the user's files beside it are.
        if (entry.name === ".git" || !recursive) continue;
        if (filter.excludes(relativePath + "/")) continue;
        walk(path);
      } else if (entry.isFile) {
        if (!filter.selects(relativePath)) continue;
        let info: Deno.FileInfo | undefined;
        try {
          info = Deno.statSync(path);
        } catch {
          // Gone already: the add reports it when it gets there.
        }
        files.push({ path, relativePath, info });
      }
      // Symbolic links are skipped: following them could leave the folder or loop.
    }
  };
  walk(root);
  return files;
}

/**
 * The files in listing order, those named as binary moved to the end. Text
 * gives the index worker its work (full-text indexing, embedding) while
 * binaries are main-thread work only: taken last, they are stored while the
 * worker finishes the last texts instead of leaving it idle at the start.
 */
function textFirst(files: FileEntry[]): FileEntry[] {
  const texts: FileEntry[] = [];
  const binaries: FileEntry[] = [];
  for (const file of files) (namedAsBinary(file.path) ? binaries : texts).push(file);
  return texts.concat(binaries);
}

/** How a file's storing cost is estimated: by what its name says. */
function kindOf(path: string): FileKind {
  return namedAsBinary(path) ? "binary" : "text";
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

function readPrefix(path: string, limit: number): Uint8Array {
  for (const piece of filePieces(path, limit)) return piece;
  return new Uint8Array(0);
}

async function pause(signal: AbortSignal | undefined): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (signal?.aborted) {
    const reason = signal.reason;
    throw reason instanceof Error ? reason : new VantageError("timeout", "the add was cancelled");
  }
}

function isFileProblem(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied ||
    error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.IsADirectory ||
    error instanceof Deno.errors.InvalidData ||
    (error instanceof VantageError && error.kind === "conflict");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
