/**
 * Reads one transcript file from where it last stopped and stores what is
 * new. Records and the new byte offset (with the parser's state) commit in
 * one transaction, so a crash at any point loses and duplicates nothing: the
 * next run resumes from the last committed offset.
 *
 * @module
 */
import { statSync } from "node:fs";
import type { DatabaseSync } from "../store/database.ts";
import { transaction } from "../store/database.ts";
import {
  getTranscriptCursor,
  insertMessages,
  insertUsage,
  saveTranscriptCursor,
  type TranscriptCursor,
  upsertSessionFacts,
} from "../store/agent_writes.ts";
import { readJsonlLines } from "./jsonl_reader.ts";
import type { ModelPrice } from "./pricing.ts";
import { createTranscriptParser } from "./transcript_parser.ts";
import { callPrice } from "./usage_pricing.ts";
import type {
  AgentName,
  JsonObject,
  SessionInfo,
  TranscriptMessage,
  UsageRecord,
} from "./types.ts";

/** What one ingest pass over a file did. */
export interface IngestCounts {
  /** Bytes consumed this pass. */
  bytes: number;
  /** Lines consumed this pass. */
  lines: number;
  /** Messages newly stored. */
  messages: number;
  /** Usage records newly stored. */
  usage: number;
  /** Tool calls seen. */
  tool_calls: number;
  /** Malformed lines skipped. */
  malformed: number;
  /** Lines of unknown record types. */
  unknown: number;
  /** Session ids touched. */
  sessions: Set<string>;
}

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

/** An empty counter set. */
export function emptyCounts(): IngestCounts {
  return {
    bytes: 0,
    lines: 0,
    messages: 0,
    usage: 0,
    tool_calls: 0,
    malformed: 0,
    unknown: 0,
    sessions: new Set(),
  };
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
  for (;;) {
    const read = await readJsonlLines(path, state.byte_offset, {
      maxBytes: options.batchBytes ?? 4 * 1024 * 1024,
    });
    if (read.lines.length === 0 && read.malformed === 0) break;
    const sessions: SessionInfo[] = [];
    const messages: TranscriptMessage[] = [];
    const usage: UsageRecord[] = [];
    let malformed = read.malformed;
    let unknown = 0;
    for (const line of read.lines) {
      const parsed = parser.parseLine(line.text);
      if (parsed.malformed) malformed++;
      if (parsed.unknown_type !== undefined) unknown++;
      if (parsed.session !== undefined) sessions.push(parsed.session);
      messages.push(...parsed.messages);
      usage.push(...parsed.usage);
      counts.tool_calls += parsed.tool_calls;
    }
    const consumed = read.nextOffset - state.byte_offset;
    state.byte_offset = read.nextOffset;
    state.file_size = Math.max(size, read.nextOffset);
    state.parser_state = JSON.stringify(parser.saveState());
    state.lines += read.lines.length;
    state.malformed += malformed;
    state.unknown_types += unknown;
    transaction(db, () => {
      for (const session of sessions) upsertSessionFacts(db, session, path);
      counts.messages += insertMessages(db, messages);
      counts.usage += insertUsage(
        db,
        latestPerCall(usage),
        (record) => callPrice(record, options.prices),
      );
      saveTranscriptCursor(db, state, now());
    });
    for (const m of messages) counts.sessions.add(m.session_id);
    for (const s of sessions) counts.sessions.add(s.session_id);
    counts.bytes += consumed;
    counts.lines += read.lines.length;
    counts.malformed += malformed;
    counts.unknown += unknown;
    options.onProgress?.(counts.bytes);
    if (read.done) break;
  }
  return counts;
}

// The counts of a call that only grow while it streams (see `call_usage.ts`).
const GROWING = [
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cache_write_1h_tokens",
  "reasoning_tokens",
  "web_search_requests",
  "calls",
] as const;

/**
 * One record per call of a batch, so the store writes each call once instead of once per
 * line: a parser reports a call again as its figures grow, and the records of a key merge into
 * the largest value of each count, the latest stated attributes and the time of the first
 * (when the call began), as the store would merge them.
 */
function latestPerCall(records: readonly UsageRecord[]): UsageRecord[] {
  if (records.length < 2) return records as UsageRecord[];
  const calls = new Map<string, UsageRecord>();
  for (const record of records) {
    const first = calls.get(record.usage_key);
    if (first === undefined) {
      calls.set(record.usage_key, record);
      continue;
    }
    const merged: UsageRecord = { ...first, ...record, ts: first.ts };
    for (const field of GROWING) {
      const value = Math.max(first[field] ?? 0, record[field] ?? 0);
      if (value > 0) merged[field] = value;
    }
    calls.set(record.usage_key, merged);
  }
  return [...calls.values()];
}
