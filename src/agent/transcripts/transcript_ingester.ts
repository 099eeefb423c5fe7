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
import { statSync } from "node:fs";
import type { DatabaseSync } from "../../store/database.ts";
import {
  getTranscriptCursor,
  type TranscriptCursor,
} from "../../store/agent/transcript_cursors.ts";
import { readJsonlLines } from "./jsonl_reader.ts";
import { ingestOpenClawStore, isOpenClawStore } from "./openclaw_store_ingester.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import { commitBatch, emptyCounts, type IngestCounts, ParsedBatch } from "./transcript_commit.ts";
import { createTranscriptParser } from "./transcript_parser.ts";
import { isCopilotOtelPath } from "./transcript_paths.ts";
import type { AgentName, JsonObject } from "../../model/agent_records.ts";

export { emptyCounts, type IngestCounts } from "./transcript_commit.ts";

/** Bytes of lines read (and parsed) at a time. */
const READ_CHUNK_BYTES = 256 * 1024;
const READ_SLACK_BYTES = 64 * 1024;

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
  const counts = emptyCounts();
  const now = options.now ?? Date.now;
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return counts; // Gone between the event and now: nothing to read.
  }
  let cursor = getTranscriptCursor(db, path);
  if (cursor !== undefined && (size < cursor.byte_offset || cursor.agent !== agent)) {
    cursor = undefined;
  }
  if (cursor !== undefined && cursor.byte_offset === size) return counts;
  const state: TranscriptCursor = cursor ?? {
    path,
    agent,
    byte_offset: 0,
    file_size: size,
    parser_state: "{}",
    lines: 0,
    malformed: 0,
    unknown_types: 0,
  };
  const parser = createTranscriptParser(agent, {
    path,
    state: cursor === undefined ? undefined : JSON.parse(state.parser_state) as JsonObject,
  });
  const batchBytes = options.batchBytes ?? 4 * 1024 * 1024;
  // Lines are read a little at a time and parsed at once, so only the records of a batch stay
  // in memory until its commit, not all its lines: records that outlive a few allocations are
  // what the garbage collector spends its time copying.
  const chunkBytes = Math.min(batchBytes, READ_CHUNK_BYTES);
  for (let done = false; !done;) {
    const batch = new ParsedBatch();
    const start = state.byte_offset;
    let lines = 0;
    while (state.byte_offset - start < batchBytes) {
      // A block a little larger than the chunk: the chunk's last line usually ends inside it,
      // so one read per chunk.
      const read = await readJsonlLines(path, state.byte_offset, {
        maxBytes: chunkBytes,
        blockSize: chunkBytes + READ_SLACK_BYTES,
      });
      batch.malformed += read.malformed;
      for (const line of read.lines) batch.add(parser.parseLine(line.text));
      lines += read.lines.length;
      state.byte_offset = read.nextOffset;
      if (read.done) {
        done = true;
        break;
      }
    }
    if (lines === 0 && batch.malformed === 0) break;
    const consumed = state.byte_offset - start;
    state.file_size = Math.max(size, state.byte_offset);
    state.parser_state = JSON.stringify(parser.saveState());
    state.lines += lines;
    state.malformed += batch.malformed;
    state.unknown_types += batch.unknown;
    commitBatch(db, batch, state, counts, {
      transcriptPath: path,
      prices: options.prices,
      now: now(),
    });
    counts.bytes += consumed;
    counts.lines += lines;
    options.onProgress?.(counts.bytes);
  }
  return counts;
}
