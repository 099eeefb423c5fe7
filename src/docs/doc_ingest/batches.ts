/**
 * Storing an add's files in batches, and each batch in short writes. A batch ends at a count or a
 * size (smaller at first, so the worker starts sooner); after each, the worker gets what it
 * stored. Within a batch, a write commits when another process waits to write or after
 * {@linkcode WRITE_SLICE_MS}, then this process's event loop gets a turn and waiting writers go
 * first. Between batches and writes, an aborted signal stops the add.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import { letWaitingWritersIn, writersWaiting } from "../../store/database.ts";
import type { Ingest } from "./ingest.ts";
import { type FileEntry, fileSize, kindOf } from "./scan.ts";
import type { IngestOptions } from "./types.ts";

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
export const WRITE_SLICE_MS = 50;

/** Stores `files` batch by batch, handing each batch to the worker, then ends the add. */
export async function addInBatches(
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
    await storeBatch(ingest, work, options.signal);
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

/**
 * Stores a batch of files, timing it for the estimates: in writes that end
 * when another writer waits for the store (a hook, another agent's add) or
 * after {@linkcode WRITE_SLICE_MS}, with a pause between them that lets
 * waiting writers go first.
 */
export async function storeBatch(
  ingest: Ingest,
  files: readonly FileEntry[],
  signal: AbortSignal | undefined,
): Promise<void> {
  let next = 0;
  let ms = 0;
  const bytes = { text: 0, binary: 0 };
  while (next < files.length) {
    if (next > 0) {
      await pause(signal);
      await letWaitingWritersIn(ingest.db);
    }
    const started = performance.now();
    ingest.recorder.embeddingMs = 0;
    ingest.write(() => {
      do {
        const file = files[next++];
        ingest.recorder.addFile(file);
        bytes[kindOf(file.path)] += file.info?.size ?? 0;
      } while (
        next < files.length && performance.now() - started < WRITE_SLICE_MS &&
        !writersWaiting(ingest.db)
      );
    });
    ms += performance.now() - started - ingest.recorder.embeddingMs;
  }
  ingest.handoff.balance.mainDone(bytes, ms);
}

/** Gives the event loop a turn; throws when the add was cancelled meanwhile. */
export async function pause(signal: AbortSignal | undefined): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (signal?.aborted) {
    const reason = signal.reason;
    throw reason instanceof Error ? reason : new VantageError("timeout", "the add was cancelled");
  }
}
