/**
 * Model calls as telemetry tells them, on PostgreSQL: each call's records merged into one row,
 * which usage row counts it, and the latency and time to first token per model — SQLite's
 * rules, table and statements (../../telemetry/model_calls.ts, whose counting is described
 * there), with the agent area's PostgreSQL usage writer.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../../model/agent_records.ts";
import type { ModelCallInput } from "../../../model/telemetry_records.ts";
import {
  MODEL_CALL_COUNT,
  MODEL_CALLS,
  type ModelCallRow,
  type ModelLatency,
  modelLatencySql,
  telemetryUsageKey,
} from "../../telemetry/model_calls.ts";
import { PERCENTILE, type TelemetryWindow } from "../../telemetry/window.ts";
import { insertUsage } from "../agent/usage.ts";
import type { PgQueryable } from "../connection.ts";
import { callMerge } from "./call_merge.ts";
import { findTranscriptUsageKey, withdrawTelemetryUsage } from "./settle.ts";
import { windowRows } from "./window.ts";

const MODEL_CALL_MERGE = callMerge(MODEL_CALLS);

/** Merges a model call record into its call's row; answers the merged row. */
export function mergeModelCall(q: PgQueryable, call: ModelCallInput): Promise<ModelCallRow> {
  return MODEL_CALL_MERGE.merge(q, call);
}

/** Decides for each merged call which usage row counts it, and writes telemetry's own rows. */
export async function countModelCalls(
  q: PgQueryable,
  calls: ReadonlyMap<string, ModelCallRow>,
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
  row: ModelCallRow,
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
