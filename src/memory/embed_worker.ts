/**
 * Hashed embeddings computed on a worker, so a large add embeds one batch
 * on the second core while the main thread stores the next. The worker runs
 * the very same {@linkcode HashedEmbedder} code (its source is taken from the
 * functions themselves), so its vectors are identical to those embedded on
 * the main thread. It is started from a data URL, which needs no read
 * permission on Vantage's own files.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type HashedEmbedder, hashedEmbedderSource } from "./embedder.ts";

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

function workerSource(dimensions: number): string {
  return `
${hashedEmbedderSource()}
const embedder = new HashedEmbedder({ dimensions: ${dimensions} });
function toBytes(vector) {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i], true);
  return bytes;
}
self.onmessage = (event) => {
  const { seq, jobs } = event.data;
  try {
    const out = [];
    const buffers = [];
    for (const job of jobs) {
      const vectors = job.pieces.map((piece) => toBytes(embedder.embedOne(piece)));
      for (const vector of vectors) buffers.push(vector.buffer);
      out.push({ id: job.id, vectors });
    }
    self.postMessage({ seq, out }, buffers);
  } catch (error) {
    self.postMessage({ seq, error: error instanceof Error ? error.message : String(error) });
  }
};
`;
}

/** A worker that embeds documents' pieces with a {@linkcode HashedEmbedder}. */
export class EmbedWorker {
  #worker: Worker;
  #next = 0;
  #waiting = new Map<
    number,
    { resolve: (out: EmbeddedDocument[]) => void; reject: (error: Error) => void }
  >();

  /** Starts a worker embedding like `embedder`. */
  constructor(embedder: HashedEmbedder) {
    const source = workerSource(embedder.dimensions);
    const url = `data:application/javascript;base64,${btoa(unescape(encodeURIComponent(source)))}`;
    this.#worker = new Worker(url, { type: "module" });
    this.#worker.onmessage = (
      event: MessageEvent<{ seq: number; out?: EmbeddedDocument[]; error?: string }>,
    ) => {
      const waiter = this.#waiting.get(event.data.seq);
      if (waiter === undefined) return;
      this.#waiting.delete(event.data.seq);
      if (event.data.error !== undefined) {
        waiter.reject(new VantageError("internal_error", `embedding: ${event.data.error}`));
      } else {
        waiter.resolve(event.data.out ?? []);
      }
    };
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#failAll(`the embedding worker failed: ${event.message}`);
    };
  }

  /** Embeds the jobs' pieces; resolves with their vectors in job order. */
  embed(jobs: readonly EmbedJob[]): Promise<EmbeddedDocument[]> {
    const seq = this.#next++;
    const done = new Promise<EmbeddedDocument[]>((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
    });
    this.#worker.postMessage({ seq, jobs });
    return done;
  }

  /** Stops the worker; work still waiting is rejected. */
  close(): void {
    this.#worker.terminate();
    this.#failAll("the embedding worker was closed");
  }

  #failAll(message: string): void {
    for (const waiter of this.#waiting.values()) {
      waiter.reject(new VantageError("unavailable", message));
    }
    this.#waiting.clear();
  }
}
