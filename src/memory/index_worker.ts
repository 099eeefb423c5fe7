/**
 * The index worker of a large add: on the second core it applies one
 * batch's full-text changes to the index file and embeds the batch's pieces
 * with the built-in hashed embedder, while the main thread stores the next
 * batch. It runs the very same code as the main thread (the source of
 * `applyIndexChanges` and of {@linkcode HashedEmbedder} is sent to it), so
 * its index rows and vectors are identical to those made without it. It is
 * started from a data URL, which needs no read permission on Vantage's own
 * files. Each embed job carries a claim in a shared array: the main thread,
 * once it has nothing left to store, takes the jobs the worker has not
 * reached instead of waiting for them. A shared counter of finished batches
 * tells the main thread how far the worker has got while it is busy storing
 * and cannot take the worker's messages.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import {
  applyIndexChangesSource,
  DOCS_INDEX_SCHEMA,
  type IndexChange,
  MAX_VOCABULARY_CHARS,
} from "../store/docs_fts.ts";
import { type HashedEmbedder, hashedEmbedderSource, vectorToBytes } from "./embedder.ts";

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

function workerSource(options: IndexWorkerOptions): string {
  return `
import { DatabaseSync } from "node:sqlite";
${options.embedder === undefined ? "" : hashedEmbedderSource()}
${applyIndexChangesSource()}
const embedder = ${
    options.embedder === undefined
      ? "undefined"
      : `new HashedEmbedder({ dimensions: ${options.embedder.dimensions} })`
  };
let index;
let known;
function openIndex() {
  if (index !== undefined) return index;
  index = new DatabaseSync(${JSON.stringify(options.indexPath ?? "")}, { timeout: 5000 });
  index.exec("PRAGMA journal_mode = WAL");
  index.exec("PRAGMA synchronous = NORMAL");
  index.exec("PRAGMA cache_size = -65536");
  index.exec(${JSON.stringify(DOCS_INDEX_SCHEMA)});
  known = new KnownWords(index.prepare("SELECT term FROM docs_terms").all().map((row) => row.term));
  return index;
}
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
${vectorToBytes.toString()}
self.onmessage = (event) => {
  const { seq, changes, jobs, claims, progress } = event.data;
  try {
    const started = performance.now();
    const applied = [];
    if (changes.length > 0) {
      const db = openIndex();
      db.exec("BEGIN IMMEDIATE");
      try {
        applyIndexChanges(db, changes, known, ${MAX_VOCABULARY_CHARS});
        db.exec("COMMIT");
      } catch (error) {
        // SQLite may have rolled back by itself; the error that caused it is the one to report.
        if (db.isTransaction) {
          try {
            db.exec("ROLLBACK");
          } catch { /* the cause below is reported */ }
        }
        known = undefined;
        index = undefined;
        db.close();
        throw error;
      }
      for (const change of changes) applied.push(change.seq);
    }
    const indexed = performance.now();
    const embedded = [];
    const buffers = [];
    for (let i = 0; i < jobs.length; i++) {
      // A job the main thread has claimed is its to embed.
      if (Atomics.compareExchange(claims, i, 0, 1) !== 0) continue;
      const job = jobs[i];
      const vectors = job.pieces.map((piece) => vectorToBytes(embedder.embedOne(piece)));
      for (const vector of vectors) buffers.push(vector.buffer);
      embedded.push({ id: job.id, vectors });
    }
    const ms = { index: indexed - started, embed: performance.now() - indexed };
    Atomics.store(progress, 0, seq + 1);
    self.postMessage({ seq, embedded, applied, ms }, buffers);
  } catch (error) {
    Atomics.store(progress, 0, seq + 1);
    self.postMessage({ seq, error: error instanceof Error ? error.message : String(error) });
  }
};
`;
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

  /** Starts a worker. */
  constructor(options: IndexWorkerOptions) {
    this.indexes = options.indexPath !== undefined;
    this.embeds = options.embedder !== undefined;
    const source = workerSource(options);
    const url = `data:application/javascript;base64,${btoa(unescape(encodeURIComponent(source)))}`;
    this.#worker = new Worker(url, { type: "module" });
    this.#worker.onmessage = (
      event: MessageEvent<
        {
          seq: number;
          embedded?: EmbeddedDocument[];
          applied?: number[];
          ms?: { index: number; embed: number };
          error?: string;
        }
      >,
    ) => {
      this.#sent = this.#sent.filter((batch) => batch.seq !== event.data.seq);
      const waiter = this.#waiting.get(event.data.seq);
      if (waiter === undefined) return;
      this.#waiting.delete(event.data.seq);
      if (event.data.error !== undefined) {
        waiter.reject(new VantageError("internal_error", `index worker: ${event.data.error}`));
      } else {
        waiter.resolve({
          embedded: event.data.embedded ?? [],
          applied: event.data.applied ?? [],
          ms: event.data.ms ?? { index: 0, embed: 0 },
        });
      }
    };
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#failAll(`the index worker failed: ${event.message}`);
    };
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
    this.#worker.postMessage({ seq, changes, jobs, claims, progress: this.#progress });
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

  #failAll(message: string): void {
    for (const waiter of this.#waiting.values()) {
      waiter.reject(new VantageError("unavailable", message));
    }
    this.#waiting.clear();
  }
}
