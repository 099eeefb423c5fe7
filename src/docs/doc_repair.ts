/**
 * Repairing the store: rebuilds what can be rebuilt from what is whole, and
 * says what cannot be and what to do about it.
 *
 * - A damaged, lost or incomplete document index: the store moves to a new
 *   index generation and every queued change is applied now.
 * - Damaged or lost chunks: when a document's original file is still at its
 *   stored path and hashes to the stored content hash, the file is chunked
 *   again (the chunker cuts the same bytes the same way) and the damaged
 *   chunks' bytes are written back, each checked against its own hash, in
 *   one transaction per content. Otherwise the document is unrecoverable
 *   and its path is named.
 * - Packs nothing uses (and what chunk rewrites left unused) are reclaimed
 *   by the garbage collection's own pack pass, inside a write transaction,
 *   so no other process's pack is touched.
 * - What searches leave for writes is done: every queued index change is
 *   applied, and vectors the configured embedder has not stored are stored.
 * - A damaged message index is rebuilt only when no `serve` holds the data
 *   home (its indexer writes that file); otherwise it is reported.
 * - A structurally damaged store cannot be rebuilt from anything: it is
 *   reported with the file and what to do, and nothing else is touched.
 *
 * @module
 */
import { maxMessageId } from "../store/agent/messages.ts";
import { type DatabaseSync, transaction } from "../store/database.ts";
import { documentsNeedingVectors } from "../store/docs/documents.ts";
import { queueIndexChange, replaceDocsIndex } from "../store/docs/search_index.ts";
import {
  type DocumentCheckRow,
  documentsWithContent,
  removeIndexFile,
} from "../store/docs/integrity.ts";
import { listPackFiles } from "../store/docs/packs.ts";
import { MessageIndexer } from "../store/agent/message_index.ts";
import { chunkProblem } from "./chunk_check.ts";
import { collectGarbage, compactPacks } from "./content_store.ts";
import { catchUpDocsIndex, vectorsComplete } from "./doc_index.ts";
import type { Embedder } from "./embedder.ts";
import { catchUpSearchData } from "./search_upkeep.ts";
import { type RecoveredChunk, recoverFromFile, writeRecovered } from "./chunk_recovery.ts";
import { verifyStore } from "./doc_verify.ts";
import { Pacer } from "./pacer.ts";
import { storeDamageAdvice, verifyUnopenedStore } from "./store_structure.ts";
import { type ContentDamage, counted, type VerifyFindings } from "./verify_report.ts";

/** What to repair, and how. */
export interface RepairOptions {
  /** Report what would be done without doing it. */
  dryRun?: boolean;
  /** Stops the repair between steps (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Whether a `serve` holds the data home (the message index is then left alone). */
  serveRunning(): Promise<boolean>;
  /** Documents listed one by one (all are counted). */
  maxDocuments?: number;
  /** The configured embedder: vectors it has not stored are stored (none when omitted). */
  embedder?: Embedder;
}

/** What happened to one damaged document. */
export interface RepairedDocument {
  /** Its id. */
  id: number;
  /** Its path. */
  path: string;
  /** Its content hash. */
  hash: string;
  /** `restored`, `would_restore` (dry run) or `unrecoverable`. */
  status: "restored" | "would_restore" | "unrecoverable";
  /** Why it could not be restored, or from which file it was. */
  reason: string;
  /** The damaged files it involved. */
  files: string[];
}

/** The outcome of a repair. */
export interface RepairReport {
  /** Nothing damaged is left (or, in a dry run, everything found could be repaired). */
  ok: boolean;
  /** Whether nothing was changed. */
  dry_run: boolean;
  /** How long it took, ms. */
  duration_ms: number;
  /** The store file's structural state (damage there stops the repair). */
  store: { file: string | null; status: string; problems: string[]; what_to_do?: string };
  /** The document search index. */
  docs_index: {
    file: string | null;
    action: "none" | "rebuilt" | "would_rebuild";
    reason?: string;
    new_file?: string;
    documents_indexed?: number;
  };
  /**
   * Documents without vectors from the configured embedder (searches embed
   * them for themselves, slowly, until they are stored): stored now, or
   * counted in a dry run.
   */
  vectors: { model: string | null; action: "none" | "stored" | "would_store"; documents: number };
  /** The message search index. */
  message_index: {
    file: string | null;
    action: "none" | "rebuilt" | "would_rebuild" | "left";
    reason?: string;
    what_to_do?: string;
  };
  /** Index files of earlier generations removed (or that would be). */
  earlier_index_files: string[];
  /** Damaged chunks found, and how many were written back. */
  chunks: { damaged: number; restored: number };
  /** Damaged documents by outcome. */
  restored_documents: number;
  /** Documents that could not be restored. */
  unrecoverable_documents: number;
  /** Per damaged document (the first `maxDocuments`). */
  documents: RepairedDocument[];
  /** Whether more documents were found than listed. */
  documents_truncated: boolean;
  /** Packs reclaimed by the garbage collection. */
  packs: { unreferenced: number; removed: number; bytes_reclaimed: number };
  /** What is still damaged, and what to do about it. */
  remaining: string[];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Repairs the store `db` belongs to.
 *
 * @example
 * ```ts ignore
 * const report = await repairStore(db, { serveRunning: async () => false });
 * report.remaining; // what could not be repaired, and what to do
 * ```
 */
export async function repairStore(
  db: DatabaseSync,
  options: RepairOptions,
): Promise<RepairReport> {
  const started = performance.now();
  const dryRun = options.dryRun ?? false;
  const maxDocuments = options.maxDocuments ?? 100;
  const signal = options.signal;
  const findings = await verifyStore(db, { chunks: true, signal, maxDocuments });
  const verified = findings.report;
  const report: RepairReport = {
    ok: false,
    dry_run: dryRun,
    duration_ms: 0,
    store: {
      file: verified.store.file,
      status: verified.store.status,
      problems: verified.store.problems,
    },
    docs_index: { file: verified.index.file, action: "none" },
    vectors: { model: options.embedder?.id ?? null, action: "none", documents: 0 },
    message_index: { file: verified.message_index.file, action: "none" },
    earlier_index_files: [],
    chunks: { damaged: verified.damaged.chunks, restored: 0 },
    restored_documents: 0,
    unrecoverable_documents: 0,
    documents: [],
    documents_truncated: false,
    packs: { unreferenced: verified.reclaimable.pack_files, removed: 0, bytes_reclaimed: 0 },
    remaining: [],
  };
  // A store whose own pages are damaged cannot be rebuilt from anything, and writing to it
  // could spread the damage: say what to do and touch nothing.
  if (verified.store.status === "damaged") {
    const file = verified.store.file ?? "the store";
    report.store.what_to_do = storeDamageAdvice(file);
    report.remaining.push(`${file}: ${verified.store.problems.slice(0, 3).join("; ")}`);
  } else {
    const repair = new Repair(db, findings, report, dryRun, maxDocuments, new Pacer(signal));
    await repair.contents();
    if (!dryRun) repair.reclaimPacks();
    repair.docsIndex();
    signal?.throwIfAborted();
    if (options.embedder !== undefined) await repair.searchData(options.embedder);
    signal?.throwIfAborted();
    await repair.messageIndex(options.serveRunning, signal);
  }
  report.ok = report.remaining.length === 0;
  report.duration_ms = Math.round(performance.now() - started);
  return report;
}

/** One repair's steps, filling in its report. */
class Repair {
  /** Chunks written back. */
  readonly #restored = new Set<string>();
  /** Restored latest text documents, to index again from their whole text. */
  readonly #reindex: number[] = [];

  constructor(
    readonly db: DatabaseSync,
    readonly findings: VerifyFindings,
    readonly report: RepairReport,
    readonly dryRun: boolean,
    readonly maxDocuments: number,
    readonly pacer: Pacer,
  ) {}

  /** Damaged chunks, content by content, from the documents' original files. */
  async contents(): Promise<void> {
    for (const [contentHash, damage] of this.findings.contents) {
      if (this.pacer.due) await this.pacer.pause();
      const documents = documentsWithContent(this.db, contentHash);
      const outcome = await this.#content(contentHash, damage, documents);
      for (const document of documents) this.#record(document, outcome, [...damage.files]);
    }
  }

  async #content(
    contentHash: string,
    damage: ContentDamage,
    documents: readonly DocumentCheckRow[],
  ): Promise<{ status: RepairedDocument["status"]; reason: string }> {
    if (damage.problems.some((problem) => problem.startsWith("its chunk list"))) {
      return {
        status: "unrecoverable",
        reason: `${damage.problems[0]}; delete the document and add it again`,
      };
    }
    const wanted = new Set([...damage.chunks].filter((hash) => !this.#restored.has(hash)));
    if (!damage.missing && wanted.size === 0) {
      return {
        status: this.dryRun ? "would_restore" : "restored",
        reason: "its chunks were restored with another document's",
      };
    }
    const reasons: string[] = [];
    let source: { path: string; chunks: Map<string, RecoveredChunk> } | undefined;
    for (const path of new Set(documents.map((document) => document.path))) {
      const result = await recoverFromFile(path, contentHash, wanted, this.pacer);
      if (typeof result === "string") {
        reasons.push(result);
      } else if (result.size < wanted.size && !damage.missing) {
        reasons.push(`${path} holds only ${result.size} of the ${wanted.size} damaged chunks`);
      } else {
        source = { path, chunks: result };
        break;
      }
    }
    if (source === undefined) {
      return {
        status: "unrecoverable",
        reason: (reasons.length > 0 ? reasons : ["no document names a file it came from"])
          .join("; "),
      };
    }
    if (this.dryRun) return { status: "would_restore", reason: `from ${source.path}` };
    try {
      writeRecovered(
        this.db,
        this.findings.damagedPacks,
        contentHash,
        damage.missing,
        source.path,
        source.chunks,
      );
      const still = [...source.chunks.keys()].filter((hash) =>
        chunkProblem(this.db, hash) !== undefined
      );
      if (still.length > 0) {
        throw new Error(`chunks ${still.join(", ")} still fail their check after rewriting`);
      }
    } catch (error) {
      return {
        status: "unrecoverable",
        reason: `writing it back from ${source.path} failed: ${messageOf(error)}`,
      };
    }
    for (const hash of source.chunks.keys()) this.#restored.add(hash);
    this.report.chunks.restored += source.chunks.size;
    return { status: "restored", reason: `from ${source.path}` };
  }

  #record(
    document: DocumentCheckRow,
    outcome: { status: RepairedDocument["status"]; reason: string },
    files: string[],
  ): void {
    const report = this.report;
    if (outcome.status === "unrecoverable") {
      report.unrecoverable_documents++;
      report.remaining.push(
        `document #${document.id} ${document.path} (${document.hash}) cannot be restored: ${outcome.reason}`,
      );
    } else {
      report.restored_documents++;
      if (document.is_latest === 1 && document.is_text === 1) this.#reindex.push(document.id);
    }
    if (report.documents.length >= this.maxDocuments) {
      report.documents_truncated = true;
      return;
    }
    report.documents.push({
      id: document.id,
      path: document.path,
      hash: document.hash,
      status: outcome.status,
      reason: outcome.reason,
      files,
    });
  }

  /**
   * Packs nothing uses, and what the rewrites left unused, through the
   * garbage collection's own pass (inside a write transaction, so no other
   * process's pack is touched); damaged chunks no document uses are dropped
   * by it once nothing refers to them, and reported while they stay.
   */
  reclaimPacks(): void {
    const db = this.db;
    const before = listPackFiles(db);
    transaction(db, () => collectGarbage(db));
    // In steps of their own, as after a delete, so nobody waits long behind the copying.
    compactPacks(db);
    const after = new Set(listPackFiles(db).map((file) => file.pack));
    for (const file of before) {
      if (after.has(file.pack)) continue;
      this.report.packs.removed++;
      this.report.packs.bytes_reclaimed += file.bytes;
    }
    const contents = [...this.findings.contents.values()];
    const left = [...this.findings.chunks.keys()].filter((hash) =>
      !this.#restored.has(hash) && !contents.some((content) => content.chunks.has(hash)) &&
      chunkProblem(db, hash) !== undefined
    );
    if (left.length > 0) {
      this.report.remaining.push(
        `${counted(left.length, "damaged chunk")} still stored though no document uses ${
          left.length === 1 ? "it" : "them"
        } (${left.slice(0, 3).join(", ")}${left.length > 3 ? ", …" : ""})`,
      );
    }
  }

  /**
   * The document search index: a new generation when it is damaged, lost or
   * incomplete, with every queued change applied now; otherwise the restored
   * documents indexed again. Index files of earlier generations are removed.
   */
  docsIndex(): void {
    const db = this.db;
    const index = this.findings.report.index;
    const report = this.report;
    if (index.status === "damaged" || index.status === "missing" || index.status === "incomplete") {
      report.docs_index.reason = index.problems.join("; ");
      if (index.file === null) {
        report.remaining.push(
          `the search index of this in-memory store is ${index.status}; it cannot be replaced`,
        );
      } else if (this.dryRun) {
        report.docs_index.action = "would_rebuild";
      } else {
        report.docs_index.new_file = replaceDocsIndex(db, index.file);
        report.docs_index.documents_indexed = catchUpDocsIndex(db, 0);
        report.docs_index.action = "rebuilt";
      }
    } else if (this.#reindex.length > 0 && !this.dryRun) {
      // An index made while they were damaged holds only their titles and paths.
      transaction(db, () => {
        for (const id of this.#reindex) queueIndexChange(db, id, "add");
      });
      catchUpDocsIndex(db, 0);
    }
    for (const file of this.findings.report.files) {
      if (file.kind !== "earlier_index") continue;
      if (!this.dryRun) removeIndexFile(file.path);
      report.earlier_index_files.push(file.path);
    }
  }

  /**
   * What searches leave for writes: queued index changes, however recent, and
   * vectors `embedder` has not stored.
   */
  async searchData(embedder: Embedder): Promise<void> {
    const vectors = this.report.vectors;
    if (this.dryRun) {
      if (!vectorsComplete(this.db, embedder.id)) {
        vectors.documents = documentsNeedingVectors(this.db, embedder.id, -1).length;
        if (vectors.documents > 0) vectors.action = "would_store";
      }
      return;
    }
    try {
      const done = await catchUpSearchData(this.db, embedder, { minAgeMs: 0 });
      if (done.index_changes_applied > 0) {
        this.report.docs_index.documents_indexed = (this.report.docs_index.documents_indexed ?? 0) +
          done.index_changes_applied;
      }
      vectors.documents = done.documents_embedded;
      if (done.documents_embedded > 0) vectors.action = "stored";
    } catch (error) {
      this.report.remaining.push(
        `vectors from ${embedder.id}: storing them failed (${
          messageOf(error)
        }); run the repair again`,
      );
    }
  }

  /** The message index: its indexer runs in serve, so only rebuilt while no serve holds the home. */
  async messageIndex(
    serveRunning: () => Promise<boolean>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const messages = this.findings.report.message_index;
    const report = this.report;
    if (messages.status !== "damaged" || messages.file === null) return;
    report.message_index.reason = messages.problems.join("; ");
    if (await serveRunning()) {
      report.message_index.action = "left";
      report.message_index.what_to_do =
        `stop 'vantage serve' (it keeps ${messages.file} open and writes it), then run 'vantage repair' again`;
      report.remaining.push(`${messages.file}: damaged; ${report.message_index.what_to_do}`);
    } else if (this.dryRun) {
      report.message_index.action = "would_rebuild";
    } else {
      await rebuildMessageIndex(this.db, this.findings.report.store.file!, messages.file, signal);
      report.message_index.action = "rebuilt";
    }
  }
}

/**
 * The repair of a store file too damaged to open (`error` said why): only
 * its report and what to do, since nothing can be rebuilt without it.
 */
export async function repairUnopenedStore(
  file: string,
  error: unknown,
  dryRun: boolean,
  signal?: AbortSignal,
): Promise<RepairReport> {
  const verified = await verifyUnopenedStore(file, error, signal);
  return {
    ok: false,
    dry_run: dryRun,
    duration_ms: verified.duration_ms,
    store: {
      file,
      status: "damaged",
      problems: verified.store.problems,
      what_to_do: storeDamageAdvice(file),
    },
    docs_index: { file: null, action: "none" },
    vectors: { model: null, action: "none", documents: 0 },
    message_index: { file: verified.message_index.file, action: "none" },
    earlier_index_files: [],
    chunks: { damaged: 0, restored: 0 },
    restored_documents: 0,
    unrecoverable_documents: 0,
    documents: [],
    documents_truncated: false,
    packs: { unreferenced: 0, removed: 0, bytes_reclaimed: 0 },
    remaining: [`${file}: ${verified.store.problems.slice(0, 3).join("; ")}`],
  };
}

/** Removes a damaged message index and indexes every stored message into a new one. */
async function rebuildMessageIndex(
  db: DatabaseSync,
  storeFile: string,
  indexFile: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  removeIndexFile(indexFile);
  const indexer = await MessageIndexer.start(storeFile, () => maxMessageId(db));
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      indexer.caughtUp().then(resolve, reject).finally(() =>
        signal?.removeEventListener("abort", onAbort)
      );
    });
  } finally {
    indexer.close();
  }
}
