/**
 * Model calls as telemetry tells them, on PostgreSQL: each call's records merged into one row,
 * which usage row counts it, and the latency and time to first token per model — SQLite's
 * rules (../../telemetry/model_calls.ts, whose counting is described there) in PostgreSQL's
 * dialect, with the agent area's PostgreSQL usage writer.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../../model/agent_records.ts";
import type { ModelCallInput } from "../../../model/telemetry_records.ts";
import { type ModelCallCount, telemetryUsageKey } from "../../telemetry/model_calls.ts";
import type { PercentileRow, TelemetryWindow } from "../../telemetry/window.ts";
import { RowReader } from "../../rows.ts";
import { insertUsage } from "../agent/usage.ts";
import type { PgQueryable } from "../connection.ts";
import { fieldValues, pgMergeStatements } from "./call_merge.ts";
import { findTranscriptUsageKey, withdrawTelemetryUsage } from "./settle.ts";
import { bucketOf, percentiles, windowRows } from "./window.ts";

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

const MERGE_MODEL_CALL = pgMergeStatements("telemetry_model_calls", MODEL_CALL_FIELDS);

/** Merges a model call record; answers the merged row. */
export async function mergeModelCall(
  q: PgQueryable,
  call: ModelCallInput,
): Promise<StoredModelCall> {
  return STORED_MODEL_CALL.one(
    (await q.query(MERGE_MODEL_CALL[call.authority], [
      call.call_key,
      call.agent,
      call.session_id,
      call.ts,
      ...fieldValues(call, MODEL_CALL_FIELDS),
    ]))[0],
  );
}

/** Decides for each merged call which usage row counts it, and writes telemetry's own rows. */
export async function countModelCalls(
  q: PgQueryable,
  calls: ReadonlyMap<string, StoredModelCall>,
  hasTranscript: (sessionId: string) => Promise<boolean>,
  priceOf: (record: CountedUsage) => CallPrice,
): Promise<void> {
  const records: CountedUsage[] = [];
  const newlyCounted: string[] = [];
  for (const [callKey, row] of calls) {
    const record = await countModelCall(q, callKey, row, hasTranscript);
    if (record === undefined) continue;
    records.push(record);
    if (row.counted === 0) newlyCounted.push(callKey);
  }
  if (records.length === 0) return;
  await insertUsage(q, records, priceOf);
  for (const callKey of newlyCounted) {
    await q.query(
      "UPDATE telemetry_model_calls SET usage_key = $1, counted = 1 WHERE call_key = $2",
      [telemetryUsageKey(callKey), callKey],
    );
  }
}

/** Which usage row counts a model call (see SQLite's `countModelCall`). */
async function countModelCall(
  q: PgQueryable,
  callKey: string,
  row: StoredModelCall,
  hasTranscript: (sessionId: string) => Promise<boolean>,
): Promise<CountedUsage | undefined> {
  const setLink = (usageKey: string | null, counted: number) =>
    q.query("UPDATE telemetry_model_calls SET usage_key = $1, counted = $2 WHERE call_key = $3", [
      usageKey,
      counted,
      callKey,
    ]);
  const transcriptKey = row.request_id === null
    ? undefined
    : await findTranscriptUsageKey(q, row.agent, row.request_id);
  if (transcriptKey !== undefined) {
    if (row.counted === 1 && row.usage_key !== null) {
      await withdrawTelemetryUsage(q, row.usage_key);
    }
    if (row.usage_key !== transcriptKey) await setLink(transcriptKey, 0);
    return undefined;
  }
  if (row.outside_transcript === 1) {
    if (row.counted === 1 && row.usage_key !== null) {
      await withdrawTelemetryUsage(q, row.usage_key);
      await setLink(null, 0);
    }
    return undefined;
  }
  if (row.counted === 0 && (row.usage_key !== null || await hasTranscript(row.session_id))) {
    return undefined;
  }
  const tokens = (row.input_tokens ?? 0) + (row.output_tokens ?? 0) +
    (row.cache_read_tokens ?? 0) + (row.cache_write_tokens ?? 0);
  if (tokens === 0) return undefined;
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

const MODEL_CALL_COUNT = new RowReader<ModelCallCount>("model call count", {
  key: "text",
  bucket: "number",
  calls: "number",
  errors: "number",
});

/** Latency and time-to-first-token percentiles per model, overall and per bucket. */
export async function modelLatency(
  q: PgQueryable,
  window: TelemetryWindow,
  bucketMs: number,
): Promise<{ duration: PercentileRow[]; ttft: PercentileRow[]; calls: ModelCallCount[] }> {
  const model = "coalesce(model, 'unknown')";
  const both = async (ms: number) => ({
    duration: await percentiles(q, "telemetry_model_calls", model, "duration_ms", window, ms),
    ttft: await percentiles(q, "telemetry_model_calls", model, "ttft_ms", window, ms),
  });
  const overall = await both(0);
  const bucketed = bucketMs > 0 ? await both(bucketMs) : { duration: [], ttft: [] };
  const calls = await windowRows(q, MODEL_CALL_COUNT, window, (w) =>
    `SELECT * FROM (
      SELECT ${model} AS key, ${bucketOf(bucketMs)} AS bucket, count(*) AS calls,
        count(*) FILTER (WHERE success = 0) AS errors
      FROM telemetry_model_calls WHERE ${w.range} ${w.agents}
      GROUP BY 1, 2
    ) counted ORDER BY key COLLATE "C", bucket`);
  return {
    duration: [...overall.duration, ...bucketed.duration],
    ttft: [...overall.ttft, ...bucketed.ttft],
    calls,
  };
}
