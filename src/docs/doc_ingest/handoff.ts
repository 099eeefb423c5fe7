/**
 * What an add hands to the index worker, and what it takes back. Each write queues full-text
 * changes and texts to embed; after it commits they go to the worker (or the changes are applied
 * here when there is none), the estimates decide which texts this thread embeds itself, and what
 * the worker sends back (vectors, the queue positions it applied) is recorded with the next
 * write. When nothing is left to store, this thread embeds the jobs the worker has not reached.
 *
 * @module
 */
import type { DatabaseSync } from "../../store/database.ts";
import { isLatestDocument, setVectorModel } from "../../store/docs/documents.ts";
import { clearIndexChanges, docsIndexFile, openDocsIndex } from "../../store/docs/search_index.ts";
import type { IndexChange } from "../../store/docs/search_index_apply.ts";
import { bumpCounter } from "../../store/docs/state.ts";
import { deleteVectors, insertVector } from "../../store/docs/vectors.ts";
import {
  applyOwnChanges,
  EMBED_PIECE_CHARS,
  markInFlight,
  MAX_EMBED_PIECES,
} from "../doc_index.ts";
import { type Embedder, vectorToBytes } from "../embedder.ts";
import { HashedEmbedder } from "../hashed_embedder.ts";
import { type HandedOver, WorkBalance } from "../ingest_balance.ts";
import { type EmbeddedDocument, type EmbedJob, IndexWorker } from "../index_worker.ts";

/** Adds of at least this many files index and embed on a worker while the next batch is stored. */
export const WORKER_MIN_FILES = 128;
/**
 * Batches the worker may have in hand before the main thread embeds the next
 * one itself whatever the estimates say: each holds up to 64 MiB of text.
 */
const MAX_IN_FLIGHT = 3;

/** What the hand-off held when a write began, so a write that fails can be undone. */
export interface WriteMark {
  /** Vectors waiting to be stored. */
  embedded: EmbeddedDocument[];
  /** Applied queue positions waiting to be cleared. */
  applied: number[];
  /** Full-text changes queued before the write. */
  changes: number;
  /** Embedding jobs queued before the write. */
  jobs: number;
}

/** The hand-off between an add and its index worker (if it has one). */
export class WorkerHandOff {
  /** Full-text changes queued by the current write, applied once it commits. */
  changes: IndexChange[] = [];
  /** Documents of the current batch waiting to be sent to the worker. */
  jobs: EmbedJob[] = [];
  /** Estimates deciding which thread embeds each text (with a worker). */
  readonly balance: WorkBalance = new WorkBalance();
  /** Indexes and embeds on the second core, when the add is large enough to be worth a worker. */
  #worker: IndexWorker | undefined;
  /** The index file the worker applies changes to (they are cleared from the queue against it). */
  #indexFile = "";
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
  #workerFailure: Error | undefined;

  /**
   * @param embed The embedder as a synchronous function, when it is one (this thread's own
   *   embedding, and the only kind the worker can share).
   */
  constructor(
    private readonly db: DatabaseSync,
    private readonly embedder: Embedder,
    private readonly embed: ((text: string) => Float32Array) | undefined,
  ) {}

  /**
   * Indexes and embeds on a worker from now on: full-text changes when the
   * store is a file (the worker writes the index file), vectors when the
   * embedder is the built-in hashed one (the worker computes the same
   * vectors). Nothing to hand over, no worker.
   */
  start(): void {
    const embedder = this.embedder instanceof HashedEmbedder && this.embed !== undefined
      ? this.embedder
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

  /** Whether a worker indexes or embeds for this add. */
  get active(): boolean {
    return this.#worker !== undefined;
  }

  /** Whether the worker applies the full-text changes. */
  get indexes(): boolean {
    return this.#worker?.indexes === true;
  }

  /** Why the worker failed, if it did. */
  get failure(): Error | undefined {
    return this.#workerFailure;
  }

  /** Sends the documents stored by the last write to the worker. */
  dispatch(): void {
    if (this.#worker === undefined) return;
    const changes = this.#worker.indexes ? this.changes : [];
    if (this.#worker.indexes) this.changes = [];
    const jobs = this.jobs;
    this.jobs = [];
    if (changes.length === 0 && jobs.length === 0) return;
    const seqs = changes.map((change) => change.seq);
    markInFlight(this.db, seqs, true);
    const handed = this.balance.handOver();
    const done = this.#worker.run(changes, jobs);
    this.#handedOut.push(handed);
    this.#inFlight.push(done);
    done.then((out) => {
      this.balance.workerDone(handed, out.ms.index, out.ms.embed);
      for (const doc of out.embedded) this.#embedded.push(doc);
      for (const seq of out.applied) this.#applied.push(seq);
    }, (error) => {
      this.balance.workerFailed(handed);
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

  /** Notes what is waiting, before a write. */
  mark(): WriteMark {
    return {
      embedded: this.#embedded,
      applied: this.#applied,
      changes: this.changes.length,
      jobs: this.jobs.length,
    };
  }

  /**
   * Inside a write's transaction, before its work: stores the vectors the worker sent back and
   * clears the queue positions it applied.
   */
  settle(mark: WriteMark): void {
    this.#storeEmbedded();
    this.#applied = [];
    clearIndexChanges(this.db, mark.applied, this.#indexFile);
  }

  /**
   * After a write failed: vectors and applied positions not recorded are kept for the next
   * write; what the work queued was rolled back with it.
   */
  rollBack(mark: WriteMark): void {
    this.#embedded = mark.embedded.concat(this.#embedded);
    this.#applied = mark.applied.concat(this.#applied);
    this.changes.length = Math.min(this.changes.length, mark.changes);
    this.jobs.length = Math.min(this.jobs.length, mark.jobs);
  }

  /** After a write committed: applies its full-text changes here, unless the worker will. */
  applyUnlessWorkerIndexes(): void {
    if (this.#worker?.indexes !== true) {
      const changes = this.changes;
      this.changes = [];
      applyOwnChanges(this.db, changes);
    }
  }

  /** Stores vectors the worker has sent back (inside the caller's transaction). */
  #storeEmbedded(): void {
    if (this.#embedded.length === 0) return;
    const db = this.db;
    const model = this.embedder.id;
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

  /** Whether a text of `length` characters is embedded on this thread (else on the worker). */
  embedsHere(length: number): boolean {
    const worker = this.#worker;
    if (worker?.embeds !== true) return true;
    // The worker works through its batches in order, so the oldest ones beyond those it has
    // not finished are done, whether or not their reports have been taken in.
    const unfinished = worker.unfinished;
    while (this.#handedOut.length > unfinished) {
      this.balance.workerFinished(this.#handedOut.shift()!);
    }
    if (unfinished >= MAX_IN_FLIGHT) return true;
    return this.balance.embedHere(Math.min(length, EMBED_PIECE_CHARS * MAX_EMBED_PIECES));
  }

  /**
   * Sends what is left and waits for the worker. Nothing is left to store, so this thread helps
   * it by embedding the jobs it has not reached, newest first, instead of waiting.
   */
  async drain(): Promise<void> {
    this.dispatch();
    let helped = 0;
    while (this.#inFlight.length > 0) {
      const job = this.embed === undefined ? undefined : this.#worker?.steal();
      if (job === undefined) {
        await this.#inFlight[0].catch(() => {});
        continue;
      }
      const embed = this.embed!;
      this.#embedded.push({
        id: job.id,
        vectors: job.pieces.map((piece) => vectorToBytes(embed(piece))),
      });
      // Now and then the worker's answers are let in.
      if (++helped % 32 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /** Applies here the changes the worker could not apply (it failed). */
  applyFailed(): void {
    applyOwnChanges(this.db, this.#failed);
    this.#failed = [];
  }
}
