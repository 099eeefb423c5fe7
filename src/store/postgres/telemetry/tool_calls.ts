/**
 * Tool calls as telemetry tells them, on PostgreSQL: a call's records merged into one row,
 * counted in its session's tool calls only while no transcript of it was read, and the
 * figures per tool — SQLite's rules (../../telemetry/tool_calls.ts) in PostgreSQL's dialect.
 *
 * @module
 */
import type { ToolCallInput } from "../../../model/telemetry_records.ts";
import type { ToolFailureRow, ToolStatsRow } from "../../telemetry/tool_calls.ts";
import type { PercentileRow, TelemetryWindow } from "../../telemetry/window.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { fieldValues, pgMergeStatements } from "./call_merge.ts";
import { percentiles, windowRows } from "./window.ts";

const TOOL_CALL_FIELDS = [
  "tool_name",
  "tool_use_id",
  "prompt_id",
  "duration_ms",
  "success",
  "error_type",
  "error",
  "decision",
  "decision_source",
  "trace_id",
  "span_id",
  "user_id",
  "host_name",
] as const;

const MERGE_TOOL_CALL = pgMergeStatements("telemetry_tool_calls", TOOL_CALL_FIELDS);

const MERGED_TOOL_CALL = new RowReader<{ session_id: string; counted: number }>("tool call", {
  session_id: "text",
  counted: "number",
});

/** Merges a tool call record; a session no transcript was read of counts it. */
export async function mergeToolCall(
  q: PgQueryable,
  call: ToolCallInput,
  hasTranscript: (sessionId: string) => Promise<boolean>,
): Promise<void> {
  const row = MERGED_TOOL_CALL.one(
    (await q.query(MERGE_TOOL_CALL[call.authority], [
      call.call_key,
      call.agent,
      call.session_id,
      call.ts,
      ...fieldValues(call, TOOL_CALL_FIELDS),
    ]))[0],
  );
  if (row.counted === 1 || await hasTranscript(row.session_id)) return;
  await q.query("UPDATE sessions SET tool_calls = tool_calls + 1 WHERE session_id = $1", [
    row.session_id,
  ]);
  await q.query("UPDATE telemetry_tool_calls SET counted = 1 WHERE call_key = $1", [
    call.call_key,
  ]);
}

const TOOL_STATS = new RowReader<ToolStatsRow>("tool stats", {
  tool_name: "text",
  calls: "number",
  succeeded: "number",
  failed: "number",
  avg_ms: "number?",
  max_ms: "number?",
});

/** Calls, outcomes and durations per tool. */
export function toolStats(q: PgQueryable, window: TelemetryWindow): Promise<ToolStatsRow[]> {
  return windowRows(q, TOOL_STATS, window, (w) =>
    `SELECT * FROM (
      SELECT coalesce(tool_name, 'unknown') AS tool_name, count(*) AS calls,
        count(*) FILTER (WHERE success = 1) AS succeeded,
        count(*) FILTER (WHERE success = 0) AS failed,
        avg(duration_ms) AS avg_ms, max(duration_ms) AS max_ms
      FROM telemetry_tool_calls WHERE ${w.range} ${w.agents}
      GROUP BY 1
    ) stats ORDER BY calls DESC, tool_name COLLATE "C"`);
}

/** p50 and p95 duration per tool. */
export function toolDurations(q: PgQueryable, window: TelemetryWindow): Promise<PercentileRow[]> {
  return percentiles(
    q,
    "telemetry_tool_calls",
    "coalesce(tool_name, 'unknown')",
    "duration_ms",
    window,
    0,
  );
}

const TOOL_FAILURE = new RowReader<ToolFailureRow>("tool failure", {
  ts: "number",
  agent: "text",
  session_id: "text",
  tool_name: "text?",
  error_type: "text?",
  error: "text?",
  duration_ms: "number?",
  tool_use_id: "text?",
});

/** The latest failed tool calls. */
export function recentToolFailures(
  q: PgQueryable,
  window: TelemetryWindow,
  limit: number,
): Promise<ToolFailureRow[]> {
  return windowRows(q, TOOL_FAILURE, window, (w) =>
    `SELECT ${TOOL_FAILURE.columns}
    FROM telemetry_tool_calls WHERE ${w.range} AND success = 0 ${w.agents}
    ORDER BY ts DESC LIMIT ${w.p.add(limit)}`);
}
