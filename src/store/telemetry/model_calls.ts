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
import {
  AGENT,
  type CallRow,
  type CallTable,
  callTable,
  columnIndex,
  KEY,
  mergeCalls,
  prepareCalls,
  type PreparedCalls,
  SESSION,
  TS,
  writeCalls,
} from "./call_merge.ts";
import { findTranscriptUsageKey, withdrawTelemetryUsage } from "./settle.ts";
import {
  bucketOf,
  PERCENTILE,
  type PercentileRow,
  percentilesSql,
  type TelemetryWindow,
  windowRows,
  type WindowStatement,
} from "./window.ts";

/** The usage key telemetry's own count of a call is stored under. */
export function telemetryUsageKey(callKey: string): string {
  return `otel:${callKey}`;
}

/** A stored model call, every column. */
export type ModelCallRow = {
  call_key: string;
  agent: string;
  session_id: string;
  ts: number;
  model: string | null;
  request_id: string | null;
  prompt_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  cost_usd: number | null;
  duration_ms: number | null;
  ttft_ms: number | null;
  finish_reason: string | null;
  success: number | null;
  query_source: string | null;
  outside_transcript: number | null;
  user_id: string | null;
  host_name: string | null;
  usage_key: string | null;
  counted: number;
};

/** The merged model calls: what a record carries, then how the call is counted. */
export const MODEL_CALLS: CallTable<ModelCallInput, ModelCallRow> = callTable(
  "telemetry_model_calls",
  [
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
  ],
  [["usage_key", null], ["counted", 0]],
  "event",
  new RowReader<ModelCallRow>("model call", {
    call_key: "text",
    agent: "text",
    session_id: "text",
    ts: "number",
    model: "text?",
    request_id: "text?",
    prompt_id: "text?",
    trace_id: "text?",
    span_id: "text?",
    input_tokens: "number?",
    output_tokens: "number?",
    cache_read_tokens: "number?",
    cache_write_tokens: "number?",
    reasoning_tokens: "number?",
    cost_usd: "number?",
    duration_ms: "number?",
    ttft_ms: "number?",
    finish_reason: "text?",
    success: "number?",
    query_source: "text?",
    outside_transcript: "number?",
    user_id: "text?",
    host_name: "text?",
    usage_key: "text?",
    counted: "number",
  }),
);

/** Where the columns counting reads are in a merged model call's row (both backends). */
export const MODEL_CALL_COLUMN = {
  model: columnIndex(MODEL_CALLS, "model"),
  requestId: columnIndex(MODEL_CALLS, "request_id"),
  input: columnIndex(MODEL_CALLS, "input_tokens"),
  output: columnIndex(MODEL_CALLS, "output_tokens"),
  cacheRead: columnIndex(MODEL_CALLS, "cache_read_tokens"),
  cacheWrite: columnIndex(MODEL_CALLS, "cache_write_tokens"),
  reasoning: columnIndex(MODEL_CALLS, "reasoning_tokens"),
  outside: columnIndex(MODEL_CALLS, "outside_transcript"),
  usageKey: columnIndex(MODEL_CALLS, "usage_key"),
  counted: columnIndex(MODEL_CALLS, "counted"),
};

const M = MODEL_CALL_COLUMN;

/** One part's model call records, merged among themselves. */
export type PreparedModelCalls = PreparedCalls<ModelCallInput, ModelCallRow>;

/** Merges one part's model call records among themselves (no store needed). */
export function prepareModelCalls(records: readonly ModelCallInput[]): PreparedModelCalls {
  return prepareCalls(MODEL_CALLS, records);
}

/**
 * Merges and stores a part's model call records and counts each merged call: in its
 * transcript's usage row when the transcript has it, in none when it is a side request or its
 * session has a transcript without it, else in telemetry's own usage row. Answers how many
 * records were merged.
 */
export function storeModelCalls(
  db: DatabaseSync,
  calls: PreparedModelCalls,
  hasTranscript: (sessionId: string) => boolean,
  priceOf: (record: CountedUsage) => CallPrice,
): number {
  if (calls.records.length === 0) return 0;
  const merged = mergeCalls(db, calls);
  const usage: CountedUsage[] = [];
  const newlyCounted: CallRow[] = [];
  for (const row of merged.rows.values()) {
    const record = countModelCall(db, row, hasTranscript);
    if (record === undefined) continue;
    usage.push(record);
    if (row[M.counted] === 0) newlyCounted.push(row);
  }
  if (usage.length > 0) {
    // Merging takes each count's larger value, so a span and an event of one call count once.
    insertUsage(db, usage, priceOf);
    for (const row of newlyCounted) {
      row[M.usageKey] = telemetryUsageKey(String(row[KEY]));
      row[M.counted] = 1;
    }
  }
  writeCalls(db, merged);
  return calls.records.length;
}

/** A count of a merged row (0 where the row has none). */
function tokens(row: CallRow, at: number): number {
  const value = row[at];
  return typeof value === "number" ? value : 0;
}

/**
 * Which usage row counts a merged model call: the transcript's when it has the call (linked
 * on the row), none for a side request or when the session has a transcript without it, else
 * telemetry's own — answered as the usage record to write.
 */
function countModelCall(
  db: DatabaseSync,
  row: CallRow,
  hasTranscript: (sessionId: string) => boolean,
): CountedUsage | undefined {
  const agent = String(row[AGENT]);
  const sessionId = String(row[SESSION]);
  const usageKey = row[M.usageKey];
  const requestId = row[M.requestId];
  const counted = row[M.counted];
  const transcriptKey = typeof requestId === "string"
    ? findTranscriptUsageKey(db, agent, requestId)
    : undefined;
  if (transcriptKey !== undefined) {
    if (counted === 1 && typeof usageKey === "string") withdrawTelemetryUsage(db, usageKey);
    if (usageKey !== transcriptKey) {
      row[M.usageKey] = transcriptKey;
      row[M.counted] = 0;
    }
    return undefined;
  }
  if (row[M.outside] === 1) {
    // A side request: no transcript will ever count it, and so neither does telemetry.
    if (counted === 1 && typeof usageKey === "string") {
      withdrawTelemetryUsage(db, usageKey);
      row[M.usageKey] = null;
      row[M.counted] = 0;
    }
    return undefined;
  }
  if (counted === 0 && (usageKey !== null || hasTranscript(sessionId))) return undefined;
  return telemetryUsage(row, agent, sessionId);
}

/**
 * The usage telemetry counts for a model call it alone has seen (either backend): its tokens
 * under the call's telemetry usage key; none when the call carries no usage yet.
 */
export function telemetryUsage(
  row: CallRow,
  agent: string,
  sessionId: string,
): CountedUsage | undefined {
  const input = tokens(row, M.input);
  const output = tokens(row, M.output);
  const cacheRead = tokens(row, M.cacheRead);
  const cacheWrite = tokens(row, M.cacheWrite);
  if (input + output + cacheRead + cacheWrite === 0) {
    return undefined; // Nothing to count yet (a span that carries no usage).
  }
  const usage: CountedUsage = {
    agent,
    session_id: sessionId,
    ts: Number(row[TS]),
    usage_key: telemetryUsageKey(String(row[KEY])),
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: tokens(row, M.reasoning),
  };
  const model = row[M.model];
  if (typeof model === "string") usage.model = model;
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

/** Reads {@linkcode ModelCallCount} rows (on either backend). */
export const MODEL_CALL_COUNT = new RowReader<ModelCallCount>("model call count", {
  key: "text",
  bucket: "number",
  calls: "number",
  errors: "number",
});

/** What {@linkcode modelLatency} answers. */
export interface ModelLatency {
  /** Duration percentiles per model, overall (bucket 0), then per bucket. */
  duration: PercentileRow[];
  /** Time-to-first-token percentiles, the same way. */
  ttft: PercentileRow[];
  /** Calls and failures per model and bucket. */
  calls: ModelCallCount[];
}

/**
 * The statements of {@linkcode modelLatency} (either backend): the duration and the
 * time-to-first-token percentiles ({@linkcode PERCENTILE}) overall and, for a bucket size,
 * per bucket; and calls per model and bucket ({@linkcode MODEL_CALL_COUNT}).
 */
export function modelLatencySql(
  bucketMs: number,
): { duration: WindowStatement[]; ttft: WindowStatement[]; calls: WindowStatement } {
  const model = "coalesce(model, 'unknown')";
  const buckets = bucketMs > 0 ? [0, bucketMs] : [0];
  const of = (value: string) =>
    buckets.map((ms) => percentilesSql("telemetry_model_calls", model, value, ms));
  return {
    duration: of("duration_ms"),
    ttft: of("ttft_ms"),
    calls: (w) =>
      `SELECT * FROM (
        SELECT ${model} AS key, ${bucketOf(bucketMs)} AS bucket, count(*) AS calls,
          sum(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS errors
        FROM telemetry_model_calls WHERE ${w.range} ${w.agents}
        GROUP BY 1, 2
      ) counted ORDER BY ${w.p.bytewise("key")}, bucket`,
  };
}

/** Latency and time-to-first-token percentiles per model, overall and per bucket. */
export function modelLatency(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
): ModelLatency {
  const sql = modelLatencySql(bucketMs);
  const percentiles = (statement: WindowStatement) => windowRows(db, PERCENTILE, window, statement);
  return {
    duration: sql.duration.flatMap(percentiles),
    ttft: sql.ttft.flatMap(percentiles),
    calls: windowRows(db, MODEL_CALL_COUNT, window, sql.calls),
  };
}
