/**
 * Tool calls as telemetry tells them, on PostgreSQL: a call's records merged into one row,
 * counted in its session's tool calls only while no transcript of it was read, the figures
 * per tool, and what the slow-tool rule reads — SQLite's rules, table and statements
 * (../../telemetry/tool_calls.ts), run here.
 *
 * @module
 */
import type { ToolCallInput } from "../../../model/telemetry_records.ts";
import {
  DURATION,
  recentToolFailuresSql,
  SESSION_TOOL_CALL,
  type SessionToolCallRow,
  sessionToolCallsSql,
  TOOL_CALLS,
  TOOL_FAILURE,
  TOOL_STATS,
  toolDurationsBeforeSql,
  toolDurationsSql,
  type ToolFailureRow,
  type ToolStatsRow,
  toolStatsSql,
} from "../../telemetry/tool_calls.ts";
import { PERCENTILE, type PercentileRow, type TelemetryWindow } from "../../telemetry/window.ts";
import type { PgQueryable } from "../connection.ts";
import { builtRows } from "../reads.ts";
import { callMerge } from "./call_merge.ts";
import { windowRows } from "./window.ts";

const TOOL_CALL_MERGE = callMerge(TOOL_CALLS);

/** Merges a tool call record; a session no transcript was read of counts it. */
export async function mergeToolCall(
  q: PgQueryable,
  call: ToolCallInput,
  hasTranscript: (sessionId: string) => Promise<boolean>,
): Promise<void> {
  const row = await TOOL_CALL_MERGE.merge(q, call);
  if (row.counted === 1 || await hasTranscript(row.session_id)) return;
  await q.query("UPDATE sessions SET tool_calls = tool_calls + 1 WHERE session_id = $1", [
    row.session_id,
  ]);
  await q.query("UPDATE telemetry_tool_calls SET counted = 1 WHERE call_key = $1", [
    call.call_key,
  ]);
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
