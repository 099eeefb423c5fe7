/**
 * One add in progress: the snapshot, the recorder of documents and the hand-off to the index
 * worker, tied together by its writes (each one transaction that also records what the worker
 * sent back) and by its end (waiting for the worker, counting the snapshot, freeing chunks,
 * embedding through a service, sealing the new vectors into the files searches read).
 *
 * @module
 */
import { type DatabaseSync, transaction } from "../../store/database.ts";
import { bumpCounter } from "../../store/docs/state.ts";
import { collectGarbage, compactPacks } from "../content_store.ts";
import { syncEmbedding } from "../embedding_config.ts";
import { maintainVectorIndex } from "../vector_segments.ts";
import { WorkerHandOff } from "./handoff.ts";
import { DocumentRecorder } from "./record.ts";
import { type FileEntry, kindOf } from "./scan.ts";
import { type GitFacts, IngestSnapshot } from "./snapshot.ts";
import type { IngestOptions, IngestReport, InlineDocument } from "./types.ts";

/** An add in progress. */
export class Ingest {
  /** Records each document. */
  readonly recorder: DocumentRecorder;
  /** What goes to the index worker and comes back. */
  readonly handoff: WorkerHandOff;
  readonly #snapshot: IngestSnapshot;

  constructor(
    readonly db: DatabaseSync,
    private readonly options: IngestOptions,
    private readonly report: IngestReport,
  ) {
    const embed = syncEmbedding(options.embedder);
    this.#snapshot = new IngestSnapshot(db, options);
    this.handoff = new WorkerHandOff(db, options.embedder, embed);
    this.recorder = new DocumentRecorder(db, options, report, this.#snapshot, this.handoff, embed);
  }

  /** Picks the snapshot the documents are recorded in. */
  openSnapshot(directory: string | null, git: GitFacts): void {
    this.report.snapshot_id = this.#snapshot.open(directory, git);
  }

  /** Indexes and embeds on a worker from now on, when there is work it can take. */
  useWorker(): void {
    this.handoff.start();
  }

  /** Whether a worker indexes or embeds for this add. */
  get usesWorker(): boolean {
    return this.handoff.active;
  }

  /** Sends the documents stored by the last write to the worker. */
  dispatch(): void {
    this.handoff.dispatch();
  }

  /** Stops the worker. */
  close(): void {
    this.handoff.close();
  }

  /** Counts the bytes this add will store, for the estimates. */
  plan(files: readonly FileEntry[]): void {
    for (const file of files) {
      this.handoff.balance.plan(kindOf(file.path), file.info?.size ?? 0);
    }
  }

  /** Counts the bytes of inline documents this add will store, for the estimates. */
  planInline(documents: readonly InlineDocument[]): void {
    for (const doc of documents) this.handoff.balance.plan(kindOf(doc.name), doc.bytes.length);
  }

  /**
   * Runs `work` in one transaction, bumping the search generation when it
   * commits; then applies its full-text changes, unless a worker will.
   */
  write(work: () => void): void {
    const savesSnapshot = !this.#snapshot.saved;
    const mark = this.handoff.mark();
    try {
      transaction(this.db, () => {
        if (savesSnapshot) this.#snapshot.save();
        this.handoff.settle(mark);
        work();
        bumpCounter(this.db, "index_generation");
      });
      this.#snapshot.markSaved();
    } catch (error) {
      this.handoff.rollBack(mark);
      throw error;
    }
    this.handoff.applyUnlessWorkerIndexes();
  }

  /** Ends the add once everything is stored. */
  async finish(): Promise<void> {
    await this.handoff.drain();
    const failure = this.handoff.failure;
    if (failure !== undefined) {
      this.report.warnings.push(
        `indexing on a worker failed (${failure.message}); the main thread indexed the documents; the next add or docs.repair stores their vectors`,
      );
    }
    let freed = 0;
    this.write(() => {
      this.#snapshot.refreshCount();
      // Chunks given back by a file that changed while it was stored.
      freed = collectGarbage(this.db).chunks;
    });
    if (freed > 0) compactPacks(this.db);
    this.handoff.applyFailed();
    await this.recorder.embedPending();
    try {
      await maintainVectorIndex(this.db, this.options.embedder.id);
    } catch (error) {
      // The vectors are stored; a search reads those not sealed from the store instead.
      this.report.warnings.push(
        `sealing the new vectors for search failed (${
          error instanceof Error ? error.message : String(error)
        }); a later add or search seals them`,
      );
    }
  }
}

/** The report of an add that has done nothing yet. */
export function newReport(options: IngestOptions): IngestReport {
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
