/**
 * The index worker of a large add: on the second core it applies one
 * batch's full-text changes to the index file and embeds the batch's pieces
 * with the built-in hashed embedder, while the main thread stores the next
 * batch. Its module (doc_index_worker.ts) imports the very functions the
 * main thread runs (`applyIndexChanges`, {@linkcode HashedEmbedder}), so its
 * index rows and vectors are identical to those made without it. Each embed
 * job carries a claim in a shared array: the main thread,
 * once it has nothing left to store, takes the jobs the worker has not
 * reached instead of waiting for them. A shared counter of finished batches
 * tells the main thread how far the worker has got while it is busy storing
 * and cannot take the worker's messages.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { startModuleWorker } from "../core/module_worker.ts";
import type { IndexChange } from "../store/docs/search_index_apply.ts";
import type { IndexWorkerReply, IndexWorkerRequest } from "./doc_index_worker.ts";
import type { HashedEmbedder } from "./hashed_embedder.ts";

/** Pieces of text of one document to embed. */
export interface EmbedJob {
  /** Document id. */
  id: number;
  /** The pieces, in order (see `embeddingPieces`). */
  pieces: string[];
}

/** The vectors of one document, as little-endian float32 bytes, one per piece. */
export interface EmbeddedDocument {
  /** Document id. */
  id: number;
  /** One vector per piece, serialized as `vectorToBytes` does. */
  vectors: Uint8Array[];
}

/** What the worker did with one batch. */
export interface IndexedBatch {
  /** Vectors of the batch's embed jobs. */
  embedded: EmbeddedDocument[];
  /** Queue positions of the changes now committed to the index. */
  applied: number[];
  /** Milliseconds the worker spent indexing and embedding. */
  ms: { index: number; embed: number };
}

/** What the worker does. */
export interface IndexWorkerOptions {
  /** Embeds jobs like this embedder (no embedding when absent). */
  embedder?: HashedEmbedder;
  /** Index file to apply changes to (changes are refused when absent). */
  indexPath?: string;
}

/** A batch sent to the worker, with the claim on each of its embed jobs. */
interface SentBatch {
  seq: number;
  jobs: readonly EmbedJob[];
  /** Per job: 0 unclaimed, 1 taken by the worker, 2 taken by the main thread. */
  claims: Int32Array;
  /** Jobs below this index are (or will be) the worker's: it takes them in order. */
  stealable: number;
}

/** A worker that indexes and embeds batches of documents. */
export class IndexWorker {
  #worker: Worker;
  #next = 0;
  /**
   * Batches the worker has finished, counted by the worker itself: its
   * messages wait while this thread is busy, the counter does not.
   */
  #progress = new Int32Array(new SharedArrayBuffer(4));
  /** Batches sent and not answered yet, oldest first. */
  #sent: SentBatch[] = [];
  #waiting = new Map<
    number,
    { resolve: (out: IndexedBatch) => void; reject: (error: Error) => void }
  >();
  /** Whether this worker applies full-text changes (it has an index file). */
  readonly indexes: boolean;
  /** Whether this worker embeds. */
  readonly embeds: boolean;

  /**
   * Starts a worker; throws a `VantageError` (`unavailable`) when this
   * process may not read the worker's module, so the caller can do the work
   * itself.
   */
  constructor(options: IndexWorkerOptions) {
    this.indexes = options.indexPath !== undefined;
    this.embeds = options.embedder !== undefined;
    this.#worker = startModuleWorker(
      new URL("./doc_index_worker.ts", import.meta.url),
      "document index",
    );
    this.#worker.onmessage = (event: MessageEvent<IndexWorkerReply>) => {
      const reply = event.data;
      this.#sent = this.#sent.filter((batch) => batch.seq !== reply.seq);
      const waiter = this.#waiting.get(reply.seq);
      if (waiter === undefined) return;
      this.#waiting.delete(reply.seq);
      if ("error" in reply) {
        waiter.reject(new VantageError("internal_error", `index worker: ${reply.error}`));
      } else {
        waiter.resolve({ embedded: reply.embedded, applied: reply.applied, ms: reply.ms });
      }
    };
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#failAll(`the index worker failed: ${event.message}`);
    };
    this.#post({
      type: "setup",
      dimensions: options.embedder?.dimensions,
      indexPath: options.indexPath,
    });
  }

  /**
   * Applies the changes (in one index transaction) and embeds the jobs'
   * pieces; resolves with the vectors of the jobs it embedded (in job order;
   * not those {@linkcode steal} took) and the applied seqs.
   */
  run(changes: readonly IndexChange[], jobs: readonly EmbedJob[]): Promise<IndexedBatch> {
    if (changes.length > 0 && !this.indexes) {
      return Promise.reject(new VantageError("internal_error", "this index worker has no index"));
    }
    if (jobs.length > 0 && !this.embeds) {
      return Promise.reject(
        new VantageError("internal_error", "this index worker has no embedder"),
      );
    }
    const seq = this.#next++;
    const done = new Promise<IndexedBatch>((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
    });
    const claims = new Int32Array(new SharedArrayBuffer(Math.max(1, jobs.length) * 4));
    this.#sent.push({ seq, jobs, claims, stealable: jobs.length });
    this.#post({ type: "batch", seq, changes, jobs, claims, progress: this.#progress });
    return done;
  }

  /**
   * Batches sent that the worker has not finished yet, as of now (not as of
   * the last message this thread took in).
   */
  get unfinished(): number {
    return this.#next - Atomics.load(this.#progress, 0);
  }

  /**
   * Takes an embed job the worker has not started, for the caller to embed
   * itself: the last one of the newest batch, as the worker works from the
   * oldest forward. Undefined when every job is taken.
   */
  steal(): EmbedJob | undefined {
    for (let b = this.#sent.length - 1; b >= 0; b--) {
      const batch = this.#sent[b];
      while (batch.stealable > 0) {
        const index = --batch.stealable;
        if (Atomics.compareExchange(batch.claims, index, 0, 2) === 0) return batch.jobs[index];
        // The worker has reached this job, so it has every earlier one too.
        batch.stealable = 0;
      }
    }
    return undefined;
  }

  /** Stops the worker; work still waiting is rejected. */
  close(): void {
    this.#worker.terminate();
    this.#sent = [];
    this.#failAll("the index worker was closed");
  }

  #post(request: IndexWorkerRequest): void {
    this.#worker.postMessage(request);
  }

  #failAll(message: string): void {
    for (const waiter of this.#waiting.values()) {
      waiter.reject(new VantageError("unavailable", message));
    }
    this.#waiting.clear();
  }
}
