/**
 * Model calls as telemetry tells them: each call's records merged into one
 * row (call_merge.ts), which usage row counts it, and the latency and time
 * to first token per model read back.
 *
 * Counting, so a call seen in a transcript and in telemetry counts once: a
 * session's token totals and model calls come from its transcript whenever
 * one was read (the figures ccusage counts). Telemetry counts a call (its own
 * usage row `otel:<call key>`) only while no transcript of that session was
 * read; when one is read later, settle.ts withdraws that count. A call
 * telemetry reports and the transcript lacks (Claude Code's side requests
 * for titles or summaries) stays here for latency and cost views, outside
 * the session's totals.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../model/agent_records.ts";
import type { ModelCallInput } from "../../model/telemetry_records.ts";
import { insertUsage } from "../agent/usage.ts";
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { fieldValues, mergeStatements } from "./call_merge.ts";
import { findTranscriptUsageKey, withdrawTelemetryUsage } from "./settle.ts";
import {
  bucketOf,
  type PercentileRow,
  percentiles,
  type TelemetryWindow,
  windowRows,
} from "./window.ts";

/** The usage key telemetry's own count of a call is stored under. */
export function telemetryUsageKey(callKey: string): string {
  return `otel:${callKey}`;
}

const MODEL_CALL_FIELDS = [
  "model",
  "request_id",
  "prompt_id",
  "trace_id",
  "span_id",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "cost_usd",
  "duration_ms",
  "ttft_ms",
  "finish_reason",
  "success",
  "query_source",
  "outside_transcript",
  "user_id",
  "host_name",
] as const;

/** A model call as its last record left it: what deciding how to count it needs. */
export interface StoredModelCall {
  agent: string;
  session_id: string;
  ts: number;
  model: string | null;
  request_id: string | null;
  outside_transcript: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  usage_key: string | null;
  counted: number;
}

const STORED_MODEL_CALL = new RowReader<StoredModelCall>("model call", {
  agent: "text",
  session_id: "text",
  ts: "number",
  model: "text?",
  request_id: "text?",
  outside_transcript: "number?",
  input_tokens: "number?",
  output_tokens: "number?",
  cache_read_tokens: "number?",
  cache_write_tokens: "number?",
  reasoning_tokens: "number?",
  usage_key: "text?",
  counted: "number",
});

/** The upserts of a model call record, by authority. */
const MERGE_MODEL_CALL = mergeStatements("telemetry_model_calls", MODEL_CALL_FIELDS);

/** Merges a model call record; answers the merged row. */
export function mergeModelCall(db: DatabaseSync, call: ModelCallInput): StoredModelCall {
  return STORED_MODEL_CALL.one(
    prepared(db, MERGE_MODEL_CALL[call.authority]).get(
      call.call_key,
      call.agent,
      call.session_id,
      call.ts,
      ...fieldValues(call, MODEL_CALL_FIELDS),
    ),
  );
}

/**
 * Decides for each merged call which usage row counts it, and writes telemetry's own usage
 * rows in one pass.
 */
export function countModelCalls(
  db: DatabaseSync,
  calls: ReadonlyMap<string, StoredModelCall>,
  hasTranscript: (sessionId: string) => boolean,
  priceOf: (record: CountedUsage) => CallPrice,
): void {
  const records: CountedUsage[] = [];
  const newlyCounted: string[] = [];
  for (const [callKey, row] of calls) {
    const record = countModelCall(db, callKey, row, hasTranscript);
    if (record === undefined) continue;
    records.push(record);
    if (row.counted === 0) newlyCounted.push(callKey);
  }
  if (records.length === 0) return;
  // Merging takes each count's larger value, so a span and an event of one call count once.
  insertUsage(db, records, priceOf);
  const link = prepared(
    db,
    "UPDATE telemetry_model_calls SET usage_key = ?, counted = 1 WHERE call_key = ?",
  );
  for (const callKey of newlyCounted) link.run(telemetryUsageKey(callKey), callKey);
}

/**
 * Which usage row counts a model call: the transcript's when it has the call (linked here),
 * none for a side request or when the session has a transcript without it, else telemetry's
 * own — answered as the usage record to write.
 */
function countModelCall(
  db: DatabaseSync,
  callKey: string,
  row: StoredModelCall,
  hasTranscript: (sessionId: string) => boolean,
): CountedUsage | undefined {
  const setLink = prepared(
    db,
    "UPDATE telemetry_model_calls SET usage_key = ?, counted = ? WHERE call_key = ?",
  );
  const transcriptKey = row.request_id === null
    ? undefined
    : findTranscriptUsageKey(db, row.agent, row.request_id);
  if (transcriptKey !== undefined) {
    if (row.counted === 1 && row.usage_key !== null) withdrawTelemetryUsage(db, row.usage_key);
    if (row.usage_key !== transcriptKey) setLink.run(transcriptKey, 0, callKey);
    return undefined;
  }
  if (row.outside_transcript === 1) {
    // A side request: no transcript will ever count it, and so neither does telemetry.
    if (row.counted === 1 && row.usage_key !== null) {
      withdrawTelemetryUsage(db, row.usage_key);
      setLink.run(null, 0, callKey);
    }
    return undefined;
  }
  if (row.counted === 0 && (row.usage_key !== null || hasTranscript(row.session_id))) {
    return undefined;
  }
  const tokens = (row.input_tokens ?? 0) + (row.output_tokens ?? 0) +
    (row.cache_read_tokens ?? 0) + (row.cache_write_tokens ?? 0);
  if (tokens === 0) return undefined; // Nothing to count yet (a span that carries no usage).
  const usage: CountedUsage = {
    agent: row.agent,
    session_id: row.session_id,
    ts: row.ts,
    usage_key: telemetryUsageKey(callKey),
    input_tokens: row.input_tokens ?? 0,
    output_tokens: row.output_tokens ?? 0,
    cache_read_tokens: row.cache_read_tokens ?? 0,
    cache_write_tokens: row.cache_write_tokens ?? 0,
    reasoning_tokens: row.reasoning_tokens ?? 0,
  };
  if (row.model !== null) usage.model = row.model;
  return usage;
}

/** Calls and failures of one model in one bucket. */
export interface ModelCallCount {
  /** Model (`unknown` when telemetry named none). */
  key: string;
  /** Bucket start, ms. */
  bucket: number;
  /** Calls. */
  calls: number;
  /** Calls that failed. */
  errors: number;
}

const MODEL_CALL_COUNT = new RowReader<ModelCallCount>("model call count", {
  key: "text",
  bucket: "number",
  calls: "number",
  errors: "number",
});

/** Latency and time-to-first-token percentiles per model, overall and per bucket. */
export function modelLatency(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
): { duration: PercentileRow[]; ttft: PercentileRow[]; calls: ModelCallCount[] } {
  const model = "coalesce(model, 'unknown')";
  const both = (ms: number) => ({
    duration: percentiles(db, "telemetry_model_calls", model, "duration_ms", window, ms),
    ttft: percentiles(db, "telemetry_model_calls", model, "ttft_ms", window, ms),
  });
  const overall = both(0);
  const bucketed = bucketMs > 0 ? both(bucketMs) : { duration: [], ttft: [] };
  const calls = windowRows(
    db,
    MODEL_CALL_COUNT,
    window,
    (agents) =>
      `SELECT ${model} AS key, ${bucketOf(bucketMs)} AS bucket, count(*) AS calls,
      sum(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS errors
    FROM telemetry_model_calls WHERE ts >= ? AND ts < ? ${agents}
    GROUP BY key, bucket ORDER BY key, bucket`,
  );
  return {
    duration: [...overall.duration, ...bucketed.duration],
    ttft: [...overall.ttft, ...bucketed.ttft],
    calls,
  };
}
