/**
 * The document index worker of a large add (started by `IndexWorker` in
 * index_worker.ts): it applies batches of full-text changes to the index
 * file with `applyIndexChanges` and embeds pieces with
 * {@linkcode HashedEmbedder}, the very functions the main thread runs, so
 * its rows and vectors are identical to those made without it. It imports
 * docs_fts_apply.ts rather than docs_fts.ts, and so starts without loading
 * `node:path` or `node:fs` (see src/core/module_worker.ts).
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { workerScope } from "../core/module_worker.ts";
import {
  allTerms,
  applyIndexBatch,
  type IndexChange,
  KnownWords,
  openDocsIndexFile,
} from "../store/docs/search_index_apply.ts";
import { vectorToBytes } from "./embedder.ts";
import { HashedEmbedder } from "./hashed_embedder.ts";
import type { EmbeddedDocument, EmbedJob } from "./index_worker.ts";

/** The worker's set-up, sent first: what it embeds with and where it indexes. */
export interface IndexWorkerSetup {
  type: "setup";
  /** Dimensions of the hashed embedder to embed with (no embedding when absent). */
  dimensions?: number;
  /** Index file to apply changes to (changes are refused when absent). */
  indexPath?: string;
}

/** One batch to index and embed. */
export interface IndexWorkerBatch {
  type: "batch";
  /** The batch's number, echoed in the answer. */
  seq: number;
  /** Full-text changes, applied in one index transaction. */
  changes: readonly IndexChange[];
  /** Documents to embed. */
  jobs: readonly EmbedJob[];
  /** Per job: 0 unclaimed, 1 taken by the worker, 2 taken by the main thread. */
  claims: Int32Array;
  /** Batches finished, counted here as each one ends. */
  progress: Int32Array;
}

/** What the worker is sent. */
export type IndexWorkerRequest = IndexWorkerSetup | IndexWorkerBatch;

/** The worker's answer to one batch. */
export type IndexWorkerReply =
  | {
    seq: number;
    embedded: EmbeddedDocument[];
    applied: number[];
    ms: { index: number; embed: number };
  }
  | { seq: number; error: string };

const scope = workerScope<IndexWorkerRequest, IndexWorkerReply>();
let setup: IndexWorkerSetup = { type: "setup" };
let embedder: HashedEmbedder | undefined;
let index: { db: DatabaseSync; known: KnownWords } | undefined;

function openIndex(): { db: DatabaseSync; known: KnownWords } {
  if (index !== undefined) return index;
  if (setup.indexPath === undefined) throw new Error("this index worker has no index file");
  const db = openDocsIndexFile(setup.indexPath);
  index = { db, known: new KnownWords(allTerms(db)) };
  return index;
}

function applyChanges(changes: readonly IndexChange[]): void {
  const { db, known } = openIndex();
  try {
    applyIndexBatch(db, changes, known);
  } catch (error) {
    // Words the rolled-back transaction added to `known` are not stored: start afresh.
    index = undefined;
    db.close();
    throw error;
  }
}

function embedJobs(jobs: readonly EmbedJob[], claims: Int32Array) {
  const embedded: EmbeddedDocument[] = [];
  const buffers: ArrayBuffer[] = [];
  const using = embedder;
  if (jobs.length > 0 && using === undefined) throw new Error("this index worker has no embedder");
  for (let i = 0; i < jobs.length; i++) {
    // A job the main thread has claimed is its to embed.
    if (Atomics.compareExchange(claims, i, 0, 1) !== 0) continue;
    const job = jobs[i];
    const vectors = job.pieces.map((piece) => vectorToBytes(using!.embedOne(piece)));
    for (const vector of vectors) buffers.push(vector.buffer as ArrayBuffer);
    embedded.push({ id: job.id, vectors });
  }
  return { embedded, buffers };
}

function runBatch(batch: IndexWorkerBatch): void {
  const { seq, changes, jobs, claims, progress } = batch;
  try {
    const started = performance.now();
    if (changes.length > 0) applyChanges(changes);
    const indexed = performance.now();
    const { embedded, buffers } = embedJobs(jobs, claims);
    const ms = { index: indexed - started, embed: performance.now() - indexed };
    Atomics.store(progress, 0, seq + 1);
    scope.postMessage({ seq, embedded, applied: changes.map((change) => change.seq), ms }, buffers);
  } catch (error) {
    Atomics.store(progress, 0, seq + 1);
    scope.postMessage({ seq, error: error instanceof Error ? error.message : String(error) });
  }
}

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "batch") {
    runBatch(message);
    return;
  }
  setup = message;
  embedder = message.dimensions === undefined
    ? undefined
    : new HashedEmbedder({ dimensions: message.dimensions });
};
