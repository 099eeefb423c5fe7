/**
 * Tool calls as telemetry tells them: a call's decision, result and span
 * merged into one row (call_merge.ts), counted in its session's tool calls
 * only while no transcript of the session was read (settle.ts withdraws the
 * count when one is), and the figures per tool read back; for the slow-tool
 * rule, a session's latest calls per tool and a tool's earlier durations.
 *
 * @module
 */
import type { ToolCallInput } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../database.ts";
import { numberColumn, RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { fieldValues, mergeStatements } from "./call_merge.ts";
import { type PercentileRow, percentiles, type TelemetryWindow, windowRows } from "./window.ts";

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

/** The upserts of a tool call record, by authority. */
const MERGE_TOOL_CALL = mergeStatements("telemetry_tool_calls", TOOL_CALL_FIELDS);

const MERGED_TOOL_CALL = new RowReader<{ session_id: string; counted: number }>("tool call", {
  session_id: "text",
  counted: "number",
});

/**
 * Merges a tool call record; the first record of a call in a session no transcript was read
 * of counts it in the session's tool calls.
 */
export function mergeToolCall(
  db: DatabaseSync,
  call: ToolCallInput,
  hasTranscript: (sessionId: string) => boolean,
): void {
  const row = MERGED_TOOL_CALL.one(
    prepared(db, MERGE_TOOL_CALL[call.authority]).get(
      call.call_key,
      call.agent,
      call.session_id,
      call.ts,
      ...fieldValues(call, TOOL_CALL_FIELDS),
    ),
  );
  if (row.counted === 1 || hasTranscript(row.session_id)) return;
  // No transcript of this session was read: the call is known from telemetry alone.
  prepared(db, "UPDATE sessions SET tool_calls = tool_calls + 1 WHERE session_id = ?")
    .run(row.session_id);
  prepared(db, "UPDATE telemetry_tool_calls SET counted = 1 WHERE call_key = ?")
    .run(call.call_key);
}

/** One tool's figures in a window. */
export interface ToolStatsRow {
  /** Tool name. */
  tool_name: string;
  /** Calls. */
  calls: number;
  /** Calls that succeeded. */
  succeeded: number;
  /** Calls that failed. */
  failed: number;
  /** Mean duration, ms. */
  avg_ms: number | null;
  /** Longest, ms. */
  max_ms: number | null;
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
export function toolStats(db: DatabaseSync, window: TelemetryWindow): ToolStatsRow[] {
  return windowRows(
    db,
    TOOL_STATS,
    window,
    (agents) =>
      `SELECT coalesce(tool_name, 'unknown') AS tool_name, count(*) AS calls,
      sum(CASE WHEN success = 1 THEN 1 ELSE 0 END) AS succeeded,
      sum(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS failed,
      avg(duration_ms) AS avg_ms, max(duration_ms) AS max_ms
    FROM telemetry_tool_calls WHERE ts >= ? AND ts < ? ${agents}
    GROUP BY tool_name ORDER BY calls DESC, tool_name`,
  );
}

/** p50 and p95 duration per tool. */
export function toolDurations(db: DatabaseSync, window: TelemetryWindow): PercentileRow[] {
  return percentiles(
    db,
    "telemetry_tool_calls",
    "coalesce(tool_name, 'unknown')",
    "duration_ms",
    window,
    0,
  );
}

/** A failed tool call. */
export interface ToolFailureRow {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Tool. */
  tool_name: string | null;
  /** Error class. */
  error_type: string | null;
  /** Error text. */
  error: string | null;
  /** Duration, ms. */
  duration_ms: number | null;
  /** The agent's tool call id. */
  tool_use_id: string | null;
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
  db: DatabaseSync,
  window: TelemetryWindow,
  limit: number,
): ToolFailureRow[] {
  return windowRows(
    db,
    TOOL_FAILURE,
    window,
    (agents) =>
      `SELECT ${TOOL_FAILURE.columns}
      FROM telemetry_tool_calls WHERE ts >= ? AND ts < ? AND success = 0 ${agents}
      ORDER BY ts DESC LIMIT ?`,
    limit,
  );
}

/** A timed tool call of one session. */
export interface SessionToolCallRow {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Tool. */
  tool_name: string;
  /** Duration, ms. */
  duration_ms: number;
}

const SESSION_TOOL_CALL = new RowReader<SessionToolCallRow>("session tool call", {
  ts: "number",
  agent: "text",
  tool_name: "text",
  duration_ms: "number",
});

/**
 * The latest `perTool` timed calls of each tool of the session since `since`, oldest first
 * (what the slow-tool rule compares; an index on session and time serves it).
 */
export function sessionToolCalls(
  db: DatabaseSync,
  sessionId: string,
  since: number,
  perTool: number,
): SessionToolCallRow[] {
  return SESSION_TOOL_CALL.all(
    prepared(
      db,
      `SELECT ${SESSION_TOOL_CALL.columns} FROM (
        SELECT ts, agent, tool_name, duration_ms,
          row_number() OVER (PARTITION BY tool_name ORDER BY ts DESC) AS rn
        FROM telemetry_tool_calls
        WHERE session_id = ? AND ts >= ? AND tool_name IS NOT NULL AND duration_ms IS NOT NULL
      ) WHERE rn <= ? ORDER BY ts`,
    ).all(sessionId, since, perTool),
  );
}

/**
 * The durations of `agent`'s `toolName` calls before `before`, the latest `limit` (a tool's
 * baseline, across sessions; an index on tool and time serves it).
 */
export function toolDurationsBefore(
  db: DatabaseSync,
  agent: string,
  toolName: string,
  before: number,
  limit: number,
): number[] {
  return numberColumn(
    prepared(
      db,
      `SELECT duration_ms FROM telemetry_tool_calls
      WHERE tool_name = ? AND ts < ? AND agent = ? AND duration_ms IS NOT NULL
      ORDER BY ts DESC LIMIT ?`,
    ).all(toolName, before, agent, limit),
    "duration_ms",
  );
}
