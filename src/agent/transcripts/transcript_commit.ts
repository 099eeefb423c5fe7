/**
 * What a transcript ingest pass counts, and the one transaction that stores a batch of parsed
 * records together with where reading stopped. JSONL files and OpenClaw's SQLite store are
 * read differently but committed the same way, so a crash at any point loses and duplicates
 * nothing: the next pass resumes from the last committed cursor.
 *
 * @module
 */
import { andThen, eachInTurn, type Eventually } from "../../core/eventually.ts";
import { type DatabaseSync, transaction } from "../../store/database.ts";
import type { TranscriptCursor } from "../../store/agent/transcript_cursors.ts";
import type { CompletedToolEvent } from "../../store/agent/tool_outcomes.ts";
import type { StoreMode } from "../../store/repository.ts";
import { sqliteStore, type Store } from "../../store/store.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import { callPrice } from "../usage/usage_pricing.ts";
import type { UsageRecord } from "../../model/agent_records.ts";
import type { BatchRecords } from "./transcript_batches.ts";

export { ParsedBatch } from "./transcript_batches.ts";

/** What one ingest pass over a file did. */
export interface IngestCounts {
  /** Bytes consumed this pass. */
  bytes: number;
  /** Lines (OpenClaw store: events) consumed this pass. */
  lines: number;
  /** Messages newly stored. */
  messages: number;
  /** Usage records newly stored. */
  usage: number;
  /** Tool calls seen. */
  tool_calls: number;
  /**
   * Hook events whose unknown tool outcome this pass completed from the transcript (their
   * sessions' anomaly rules should run again).
   */
  completed: CompletedToolEvent[];
  /** Malformed lines skipped. */
  malformed: number;
  /** Lines of unknown record types. */
  unknown: number;
  /** Session ids touched. */
  sessions: Set<string>;
}

/** An empty counter set. */
export function emptyCounts(): IngestCounts {
  return {
    bytes: 0,
    lines: 0,
    messages: 0,
    usage: 0,
    tool_calls: 0,
    completed: [],
    malformed: 0,
    unknown: 0,
    sessions: new Set(),
  };
}

/** What storing a batch needs besides the batch. */
export interface StoreBatchOptions {
  /** The file the batch was read from (recorded on the sessions it names). */
  transcriptPath: string;
  /** Price overrides, USD per million tokens. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** The time, ms (the cursor's update time). */
  now: number;
}

/**
 * Stores a batch and the cursor reached, in one transaction, and adds what was stored to
 * `counts`.
 */
export function commitBatch(
  db: DatabaseSync,
  batch: BatchRecords,
  cursor: TranscriptCursor,
  counts: IngestCounts,
  options: StoreBatchOptions,
): void {
  transaction(db, () => storeBatch(db, batch, cursor, counts, options));
}

/**
 * Stores a batch and the cursor reached inside the transaction open on `db` (several files'
 * batches may share one), and adds what was stored to `counts`.
 */
export function storeBatch(
  db: DatabaseSync,
  batch: BatchRecords,
  cursor: TranscriptCursor,
  counts: IngestCounts,
  options: StoreBatchOptions,
): void {
  storeBatchIn(sqliteStore(db), batch, cursor, counts, options);
}

/**
 * {@linkcode storeBatch} through the store's interfaces, on either backend: on SQLite it runs
 * at once (inside the caller's transaction); on a server, inside the caller's
 * `store.transaction`, each step after the one before.
 */
export function storeBatchIn(
  store: Store<StoreMode>,
  batch: BatchRecords,
  cursor: TranscriptCursor,
  counts: IngestCounts,
  options: StoreBatchOptions,
): Eventually<void> {
  const { agent, telemetry } = store;
  const facts = [
    ...batch.sessions.map((session) => [session, options.transcriptPath] as const),
    ...batch.linked.map((session) => [session, undefined] as const),
  ];
  let messages = 0;
  let usage = 0;
  let completed: CompletedToolEvent[] = [];
  const steps: Array<() => Eventually<unknown>> = [
    () => eachInTurn(facts, ([session, path]) => agent.upsertSessionFacts(session, path)),
    () => andThen(agent.insertMessages(batch.messages), (n) => messages = n),
    () =>
      andThen(
        agent.insertUsage(
          latestPerCall(batch.usage),
          (record) => callPrice(record, options.prices),
        ),
        (n) => usage = n,
      ),
    () => andThen(agent.recordToolOutcomes(batch.outcomes), (done) => completed = done),
    // The transcript now counts these sessions' calls: what telemetry counted for them goes.
    () =>
      telemetry.settleTelemetryCounts([
        ...new Set([...batch.messages, ...batch.usage].map((r) => r.session_id)),
      ]),
    () => agent.saveTranscriptCursor(cursor, options.now),
  ];
  return andThen(eachInTurn(steps, (step) => step()), () => {
    counts.messages += messages;
    counts.usage += usage;
    counts.completed.push(...completed);
    for (const m of batch.messages) counts.sessions.add(m.session_id);
    for (const s of [...batch.sessions, ...batch.linked]) counts.sessions.add(s.session_id);
    counts.tool_calls += batch.toolCalls;
    counts.malformed += batch.malformed;
    counts.unknown += batch.unknown;
  });
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
