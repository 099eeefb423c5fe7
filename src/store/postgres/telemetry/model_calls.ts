/**
 * Model calls as telemetry tells them, on PostgreSQL: each call's records merged into one row,
 * which usage row counts it, and the latency and time to first token per model — SQLite's
 * rules, table and statements (../../telemetry/model_calls.ts, whose counting is described
 * there), with the agent area's PostgreSQL usage writer.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../../model/agent_records.ts";
import { AGENT, type CallRow, KEY, SESSION } from "../../telemetry/call_merge.ts";
import {
  MODEL_CALL_COLUMN,
  MODEL_CALL_COUNT,
  MODEL_CALLS,
  type ModelCallRow,
  type ModelLatency,
  modelLatencySql,
  type PreparedModelCalls,
  telemetryUsage,
  telemetryUsageKey,
} from "../../telemetry/model_calls.ts";
import { PERCENTILE, type TelemetryWindow } from "../../telemetry/window.ts";
import { RowReader } from "../../rows.ts";
import { insertUsage } from "../agent/usage.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";
import { callWriter, mergeCalls } from "./call_merge.ts";
import { withdrawTelemetryUsage } from "./settle.ts";
import { windowRows } from "./window.ts";

/** Each column's PostgreSQL type (telemetry_schema.ts). */
const MODEL_CALL_TYPES: Record<keyof ModelCallRow, string> = {
  call_key: "text",
  agent: "text",
  session_id: "text",
  ts: "bigint",
  model: "text",
  request_id: "text",
  prompt_id: "text",
  trace_id: "text",
  span_id: "text",
  input_tokens: "bigint",
  output_tokens: "bigint",
  cache_read_tokens: "bigint",
  cache_write_tokens: "bigint",
  reasoning_tokens: "bigint",
  cost_usd: "float8",
  duration_ms: "float8",
  ttft_ms: "float8",
  finish_reason: "text",
  success: "integer",
  query_source: "text",
  outside_transcript: "integer",
  user_id: "text",
  host_name: "text",
  usage_key: "text",
  counted: "integer",
};

const MODEL_CALL_WRITER = callWriter(MODEL_CALLS, MODEL_CALL_TYPES);

/** Where the columns counting reads are in a merged model call's row. */
const M = MODEL_CALL_COLUMN;

const TRANSCRIPT_KEY = new RowReader<{ request_id: string; usage_key: string }>(
  "transcript usage key",
  { request_id: "text", usage_key: "text" },
);

/**
 * The usage keys the transcripts stored Claude Code calls under, by the provider's request id
 * (`<message id>:<request id>`), for all of `requestIds` with one statement (the first key by
 * order where two rows name one request).
 */
async function transcriptUsageKeys(
  q: PgQueryable,
  requestIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (requestIds.length === 0) return found;
  const rows = await readRows(
    q,
    TRANSCRIPT_KEY,
    `SELECT substr(usage_key, strpos(usage_key, ':') + 1) AS request_id, usage_key FROM usage
     WHERE agent = 'claude_code' AND substr(usage_key, strpos(usage_key, ':') + 1) = ANY($1::text[])
       AND usage_key NOT LIKE 'otel:%'
     ORDER BY usage_key`,
    [[...new Set(requestIds)]],
  );
  for (const row of rows) if (!found.has(row.request_id)) found.set(row.request_id, row.usage_key);
  return found;
}

/**
 * Merges and stores a part's model call records and counts each merged call (SQLite's
 * `storeModelCalls`: in its transcript's usage row when the transcript has it, in none when it
 * is a side request or its session has a transcript without it, else in telemetry's own usage
 * row). Answers how many records were merged.
 */
export async function storeModelCalls(
  q: PgQueryable,
  calls: PreparedModelCalls,
  hasTranscript: (sessionId: string) => Promise<boolean>,
  priceOf: (record: CountedUsage) => CallPrice,
): Promise<number> {
  if (calls.records.length === 0) return 0;
  const merged = await mergeCalls(q, calls);
  const requestIds: string[] = [];
  for (const row of merged.rows.values()) {
    const requestId = row[M.requestId];
    if (row[AGENT] === "claude_code" && typeof requestId === "string") requestIds.push(requestId);
  }
  const transcriptKeys = await transcriptUsageKeys(q, requestIds);
  const usage: CountedUsage[] = [];
  const newlyCounted: CallRow[] = [];
  for (const row of merged.rows.values()) {
    const record = await countModelCall(q, row, transcriptKeys, hasTranscript);
    if (record === undefined) continue;
    usage.push(record);
    if (row[M.counted] === 0) newlyCounted.push(row);
  }
  if (usage.length > 0) {
    // Merging takes each count's larger value, so a span and an event of one call count once.
    await insertUsage(q, usage, priceOf);
    for (const row of newlyCounted) {
      row[M.usageKey] = telemetryUsageKey(String(row[KEY]));
      row[M.counted] = 1;
    }
  }
  await MODEL_CALL_WRITER.write(q, merged);
  return calls.records.length;
}

/** Which usage row counts a merged model call (SQLite's `countModelCall`, its look-ups given). */
async function countModelCall(
  q: PgQueryable,
  row: CallRow,
  transcriptKeys: ReadonlyMap<string, string>,
  hasTranscript: (sessionId: string) => Promise<boolean>,
): Promise<CountedUsage | undefined> {
  const agent = String(row[AGENT]);
  const sessionId = String(row[SESSION]);
  const usageKey = row[M.usageKey];
  const requestId = row[M.requestId];
  const counted = row[M.counted];
  const transcriptKey = agent === "claude_code" && typeof requestId === "string"
    ? transcriptKeys.get(requestId)
    : undefined;
  if (transcriptKey !== undefined) {
    if (counted === 1 && typeof usageKey === "string") await withdrawTelemetryUsage(q, usageKey);
    if (usageKey !== transcriptKey) {
      row[M.usageKey] = transcriptKey;
      row[M.counted] = 0;
    }
    return undefined;
  }
  if (row[M.outside] === 1) {
    // A side request: no transcript will ever count it, and so neither does telemetry.
    if (counted === 1 && typeof usageKey === "string") {
      await withdrawTelemetryUsage(q, usageKey);
      row[M.usageKey] = null;
      row[M.counted] = 0;
    }
    return undefined;
  }
  if (counted === 0 && (usageKey !== null || await hasTranscript(sessionId))) return undefined;
  return telemetryUsage(row, agent, sessionId);
}

/** Latency and time-to-first-token percentiles per model, overall and per bucket. */
export async function modelLatency(
  q: PgQueryable,
  window: TelemetryWindow,
  bucketMs: number,
): Promise<ModelLatency> {
  const sql = modelLatencySql(bucketMs);
  const percentiles = (statements: typeof sql.duration) =>
    Promise.all(statements.map((statement) => windowRows(q, PERCENTILE, window, statement)));
  const [duration, ttft, calls] = await Promise.all([
    percentiles(sql.duration),
    percentiles(sql.ttft),
    windowRows(q, MODEL_CALL_COUNT, window, sql.calls),
  ]);
  return { duration: duration.flat(), ttft: ttft.flat(), calls };
}
