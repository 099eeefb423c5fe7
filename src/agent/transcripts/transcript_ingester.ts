/**
 * Reads one transcript file from where it last stopped and stores what is
 * new. Records and the new byte offset (with the parser's state) commit in
 * one transaction, so a crash at any point loses and duplicates nothing: the
 * next run resumes from the last committed offset. OpenClaw's SQLite store
 * (`openclaw-agent.sqlite`) and Copilot CLI's OpenTelemetry files
 * (`~/.copilot/otel/*.jsonl`) are read by their own ingesters, from here.
 *
 * @module
 */
import { type DatabaseSync, transaction } from "../../store/database.ts";
import { getTranscriptCursor } from "../../store/agent/transcript_cursors.ts";
import { ingestOpenClawStore, isOpenClawStore } from "./openclaw_store_ingester.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import { BATCH_BYTES, type FileBatch, readTranscriptBatches } from "./transcript_batches.ts";
import { emptyCounts, type IngestCounts, storeBatch } from "./transcript_commit.ts";
import { isCopilotOtelPath } from "./transcript_paths.ts";
import type { AgentName } from "../../model/agent_records.ts";

export { emptyCounts, type IngestCounts } from "./transcript_commit.ts";

/** Options for {@link ingestTranscriptFile}. */
export interface IngestFileOptions {
  /** Price overrides, USD per million tokens. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Most bytes consumed per transaction (default 4 MiB). */
  batchBytes?: number;
  /** The clock. */
  now?: () => number;
  /** Called after each committed batch with the bytes consumed so far. */
  onProgress?: (bytes: number) => void;
}

/**
 * Ingests whatever `path` gained since its stored offset. A file that shrank
 * (rewritten or rotated) is read again from the start with a fresh parser;
 * keys keep the rereading from double counting.
 */
export async function ingestTranscriptFile(
  db: DatabaseSync,
  path: string,
  agent: AgentName,
  options: IngestFileOptions = {},
): Promise<IngestCounts> {
  if (agent === "openclaw" && isOpenClawStore(path)) {
    return await ingestOpenClawStore(db, path, options);
  }
  if (agent === "copilot_cli" && isCopilotOtelPath(path)) {
    // Loaded with the first such file: protobufjs and the OTLP schema come with it.
    const { ingestCopilotOtelFile } = await import("./copilot_otel_ingester.ts");
    return await ingestCopilotOtelFile(db, path, options);
  }
  const batches = readTranscriptBatches(path, agent, getTranscriptCursor(db, path), {
    batchBytes: options.batchBytes,
  });
  return await commitBatches(db, path, batches, options);
}

/**
 * Whether `path` is read by an ingester of its own (OpenClaw's SQLite store, Copilot CLI's
 * OpenTelemetry files), which commits its own transactions, rather than as transcript lines.
 */
export function hasOwnIngester(path: string, agent: AgentName): boolean {
  return (agent === "openclaw" && isOpenClawStore(path)) ||
    (agent === "copilot_cli" && isCopilotOtelPath(path));
}

/**
 * Batches of several files stored in one transaction. A backfill meets many small files (each
 * sub-agent run has its own): a transaction each rewrote the same pages (the sessions', the
 * cursors', the indexes' last leaves) again and again, and a group writes them once per
 * {@link BATCH_BYTES}. Every file's cursor is stored in the transaction with its records, so a
 * crash still loses and duplicates nothing.
 */
export class CommitGroup {
  readonly #db: DatabaseSync;
  readonly #maxBytes: number;
  #store: Array<() => void> = [];
  #stored: Array<() => void> = [];
  #bytes = 0;

  /** @param maxBytes commit once the waiting batches hold this many bytes of lines. */
  constructor(db: DatabaseSync, maxBytes = BATCH_BYTES) {
    this.#db = db;
    this.#maxBytes = maxBytes;
  }

  /** Adds a batch: `store` writes it (inside the transaction), `stored` runs after the commit. */
  add(bytes: number, store: () => void, stored: () => void): void {
    this.#store.push(store);
    this.#stored.push(stored);
    this.#bytes += bytes;
    if (this.#bytes >= this.#maxBytes) this.flush();
  }

  /** Commits whatever waits. */
  flush(): void {
    if (this.#store.length === 0) return;
    const store = this.#store;
    const stored = this.#stored;
    this.#store = [];
    this.#stored = [];
    this.#bytes = 0;
    transaction(this.#db, () => {
      for (const write of store) write();
    });
    for (const done of stored) done();
  }
}

/**
 * Stores the batches read from `path` (by {@link readTranscriptBatches}, here or on a worker),
 * each in one transaction with the cursor it reached, or in `group`'s transactions with other
 * files' batches (the counts are complete once the group is flushed).
 */
export async function commitBatches(
  db: DatabaseSync,
  path: string,
  batches: AsyncIterable<FileBatch>,
  options: IngestFileOptions = {},
  group?: CommitGroup,
): Promise<IngestCounts> {
  const counts = emptyCounts();
  const now = options.now ?? Date.now;
  for await (const batch of batches) {
    const store = () =>
      storeBatch(db, batch.records, batch.cursor, counts, {
        transcriptPath: path,
        prices: options.prices,
        now: now(),
      });
    const stored = () => {
      counts.bytes += batch.bytes;
      counts.lines += batch.lines;
      options.onProgress?.(counts.bytes);
    };
    if (group !== undefined) {
      group.add(batch.bytes, store, stored);
    } else {
      transaction(db, store);
      stored();
    }
  }
  return counts;
}
