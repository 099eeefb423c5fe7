/**
 * Backfill: import every agent's existing transcripts, oldest first, with
 * progress reported as bytes are committed. Small files' batches share
 * transactions (see `CommitGroup`).
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { getTranscriptCursor } from "../store/agent/transcript_cursors.ts";
import type { ModelPrice } from "./usage/pricing.ts";
import {
  commitBatches,
  CommitGroup,
  emptyCounts,
  hasOwnIngester,
  type IngestCounts,
  ingestTranscriptFile,
} from "./transcripts/transcript_ingester.ts";
import { readTranscriptBatches } from "./transcripts/transcript_batches.ts";
import { transcriptSources } from "./transcripts/transcript_paths.ts";
import { findTranscriptFiles, merge } from "./transcripts/transcript_tailer.ts";
import type { AgentName } from "../model/agent_records.ts";
import { syncStoredPrices } from "./usage/usage_pricing.ts";

/** Options for {@link backfill}. */
export interface BackfillOptions {
  /** The user's home folder holding the agents' folders. */
  home: string;
  /** Only these agents. */
  agents?: readonly AgentName[];
  /** Only files modified at or after this time, ms. */
  since?: number;
  /** Price overrides. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Progress: bytes done of bytes to do, files done of files. */
  onProgress?: (progress: BackfillProgress) => void;
}

/** Where a backfill stands. */
export interface BackfillProgress {
  /** Bytes read so far. */
  bytesDone: number;
  /** Bytes to read in all. */
  bytesTotal: number;
  /** Files finished. */
  filesDone: number;
  /** Files to read. */
  filesTotal: number;
}

/** What a backfill did. */
export interface BackfillSummary extends IngestCounts {
  /** Files that had something new. */
  files: number;
  /** Files looked at. */
  files_seen: number;
  /** Wall time, ms. */
  elapsed_ms: number;
}

/**
 * Imports what is new in every transcript file, after repricing the stored calls when the
 * prices changed since they were computed.
 */
export async function backfill(
  db: DatabaseSync,
  options: BackfillOptions,
): Promise<BackfillSummary> {
  const started = performance.now();
  syncStoredPrices(db, options.prices);
  const sources = transcriptSources(options.home).filter((s) =>
    options.agents === undefined || options.agents.includes(s.agent)
  );
  const files = findTranscriptFiles(sources)
    .filter((f) => options.since === undefined || f.mtime >= options.since)
    .sort((a, b) => a.mtime - b.mtime);
  const cursors = files.map((f) => getTranscriptCursor(db, f.path));
  const remaining = files.map((f, i) => Math.max(0, f.size - (cursors[i]?.byte_offset ?? 0)));
  const progress: BackfillProgress = {
    bytesDone: 0,
    bytesTotal: remaining.reduce((a, b) => a + b, 0),
    filesDone: 0,
    filesTotal: files.length,
  };
  const group = new CommitGroup(db);
  const perFile: IngestCounts[] = [];
  for (const [i, file] of files.entries()) {
    // A file's batches may be committed after later files' (in one group): progress adds what
    // each commit stored.
    let stored = 0;
    const ingestOptions = {
      prices: options.prices,
      onProgress: (bytes: number) => {
        progress.bytesDone += bytes - stored;
        stored = bytes;
        options.onProgress?.(progress);
      },
    };
    if (hasOwnIngester(file.path, file.agent)) {
      group.flush(); // Earlier files first.
      perFile.push(await ingestTranscriptFile(db, file.path, file.agent, ingestOptions));
    } else {
      // Nothing but the backfill runs on this thread: no turn of the event loop between chunks
      // (the index worker is asked for its work without waiting for its answers).
      const batches = readTranscriptBatches(file.path, file.agent, cursors[i], {
        turnEventLoop: false,
      });
      perFile.push(await commitBatches(db, file.path, batches, ingestOptions, group));
    }
    progress.filesDone++;
    options.onProgress?.(progress);
  }
  group.flush();
  const total = emptyCounts();
  let touched = 0;
  for (const counts of perFile) {
    if (counts.lines > 0) touched++;
    merge(total, counts);
  }
  return {
    ...total,
    files: touched,
    files_seen: files.length,
    elapsed_ms: performance.now() - started,
  };
}
