/**
 * Reads one transcript file from where it last stopped and stores what is
 * new. Records and the new byte offset (with the parser's state) commit in
 * one transaction, so a crash at any point loses and duplicates nothing: the
 * next run resumes from the last committed offset. OpenClaw's SQLite store
 * (`openclaw-agent.sqlite`) is read by its own ingester, from here.
 *
 * @module
 */
import type { DatabaseSync } from "../../store/database.ts";
import { getTranscriptCursor } from "../../store/agent_writes.ts";
import { ingestOpenClawStore, isOpenClawStore } from "./openclaw_store_ingester.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import { readTranscriptBatches } from "./transcript_batches.ts";
import { commitBatch, emptyCounts, type IngestCounts } from "./transcript_commit.ts";
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
  const counts = emptyCounts();
  const now = options.now ?? Date.now;
  const batches = readTranscriptBatches(path, agent, getTranscriptCursor(db, path), {
    batchBytes: options.batchBytes,
  });
  for await (const batch of batches) {
    commitBatch(db, batch.records, batch.cursor, counts, {
      transcriptPath: path,
      prices: options.prices,
      now: now(),
    });
    counts.bytes += batch.bytes;
    counts.lines += batch.lines;
    options.onProgress?.(counts.bytes);
  }
  return counts;
}
