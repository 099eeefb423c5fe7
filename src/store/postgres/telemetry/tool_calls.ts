/**
 * Tool calls as telemetry tells them, on PostgreSQL: a call's records merged into one row,
 * counted in its session's tool calls only while no transcript of it was read, the figures
 * per tool, and what the slow-tool rule reads — SQLite's rules, table and statements
 * (../../telemetry/tool_calls.ts), run here.
 *
 * @module
 */
import { columnIndex, SESSION } from "../../telemetry/call_merge.ts";
import {
  DURATION,
  type PreparedToolCalls,
  recentToolFailuresSql,
  SESSION_TOOL_CALL,
  type SessionToolCallRow,
  sessionToolCallsSql,
  TOOL_CALLS,
  TOOL_FAILURE,
  TOOL_STATS,
  type ToolCallRow,
  toolDurationsBeforeSql,
  toolDurationsSql,
  type ToolFailureRow,
  type ToolStatsRow,
  toolStatsSql,
} from "../../telemetry/tool_calls.ts";
import { PERCENTILE, type PercentileRow, type TelemetryWindow } from "../../telemetry/window.ts";
import type { PgQueryable } from "../connection.ts";
import { builtRows } from "../reads.ts";
import { callWriter, mergeCalls } from "./call_merge.ts";
import { windowRows } from "./window.ts";

/** Each column's PostgreSQL type (telemetry_schema.ts). */
const TOOL_CALL_TYPES: Record<keyof ToolCallRow, string> = {
  call_key: "text",
  agent: "text",
  session_id: "text",
  ts: "bigint",
  tool_name: "text",
  tool_use_id: "text",
  prompt_id: "text",
  duration_ms: "float8",
  success: "integer",
  error_type: "text",
  error: "text",
  decision: "text",
  decision_source: "text",
  trace_id: "text",
  span_id: "text",
  user_id: "text",
  host_name: "text",
  counted: "integer",
};

const TOOL_CALL_WRITER = callWriter(TOOL_CALLS, TOOL_CALL_TYPES);

const COUNTED = columnIndex(TOOL_CALLS, "counted");

/**
 * Merges and stores a part's tool call records; a call no transcript of its session counts
 * yet is counted in its session's tool calls (SQLite's `storeToolCalls`). Answers how many
 * records were merged.
 */
export async function storeToolCalls(
  q: PgQueryable,
  calls: PreparedToolCalls,
  hasTranscript: (sessionId: string) => Promise<boolean>,
): Promise<number> {
  if (calls.records.length === 0) return 0;
  const merged = await mergeCalls(q, calls);
  const added = new Map<string, number>();
  for (const row of merged.rows.values()) {
    const sessionId = String(row[SESSION]);
    if (row[COUNTED] === 1 || await hasTranscript(sessionId)) continue;
    // No transcript of this session was read: the call is known from telemetry alone.
    row[COUNTED] = 1;
    added.set(sessionId, (added.get(sessionId) ?? 0) + 1);
  }
  await TOOL_CALL_WRITER.write(q, merged);
  for (const [sessionId, n] of [...added].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    await q.query("UPDATE sessions SET tool_calls = tool_calls + $1 WHERE session_id = $2", [
      n,
      sessionId,
    ]);
  }
  return calls.records.length;
}

/** Calls, outcomes and durations per tool. */
export function toolStats(q: PgQueryable, window: TelemetryWindow): Promise<ToolStatsRow[]> {
  return windowRows(q, TOOL_STATS, window, toolStatsSql);
}

/** p50 and p95 duration per tool. */
export function toolDurations(q: PgQueryable, window: TelemetryWindow): Promise<PercentileRow[]> {
  return windowRows(q, PERCENTILE, window, toolDurationsSql);
}

/** The latest failed tool calls. */
export function recentToolFailures(
  q: PgQueryable,
  window: TelemetryWindow,
  limit: number,
): Promise<ToolFailureRow[]> {
  return windowRows(q, TOOL_FAILURE, window, recentToolFailuresSql(limit));
}

/** The latest `perTool` timed calls of each tool of the session since `since`, oldest first. */
export function sessionToolCalls(
  q: PgQueryable,
  sessionId: string,
  since: number,
  perTool: number,
): Promise<SessionToolCallRow[]> {
  return builtRows(q, SESSION_TOOL_CALL, sessionToolCallsSql(sessionId, since, perTool));
}

/** The durations of `agent`'s `toolName` calls before `before`, the latest `limit`. */
export async function toolDurationsBefore(
  q: PgQueryable,
  agent: string,
  toolName: string,
  before: number,
  limit: number,
): Promise<number[]> {
  const sql = toolDurationsBeforeSql(agent, toolName, before, limit);
  return (await builtRows(q, DURATION, sql)).map((row) => row.duration_ms);
}
