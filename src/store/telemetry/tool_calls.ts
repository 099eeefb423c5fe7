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
import { builtRows, type BuiltStatement } from "../params.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import {
  type CallTable,
  callTable,
  columnIndex,
  mergeCalls,
  prepareCalls,
  type PreparedCalls,
  SESSION,
  writeCalls,
} from "./call_merge.ts";
import {
  PERCENTILE,
  type PercentileRow,
  percentilesSql,
  type TelemetryWindow,
  windowRows,
  type WindowStatement,
} from "./window.ts";

/** A stored tool call, every column. */
export type ToolCallRow = {
  call_key: string;
  agent: string;
  session_id: string;
  ts: number;
  tool_name: string | null;
  tool_use_id: string | null;
  prompt_id: string | null;
  duration_ms: number | null;
  success: number | null;
  error_type: string | null;
  error: string | null;
  decision: string | null;
  decision_source: string | null;
  trace_id: string | null;
  span_id: string | null;
  user_id: string | null;
  host_name: string | null;
  counted: number;
};

/** The merged tool calls: what a record carries, then whether its session counts it. */
export const TOOL_CALLS: CallTable<ToolCallInput, ToolCallRow> = callTable(
  "telemetry_tool_calls",
  [
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
  ],
  [["counted", 0]],
  "latest",
  new RowReader<ToolCallRow>("tool call", {
    call_key: "text",
    agent: "text",
    session_id: "text",
    ts: "number",
    tool_name: "text?",
    tool_use_id: "text?",
    prompt_id: "text?",
    duration_ms: "number?",
    success: "number?",
    error_type: "text?",
    error: "text?",
    decision: "text?",
    decision_source: "text?",
    trace_id: "text?",
    span_id: "text?",
    user_id: "text?",
    host_name: "text?",
    counted: "number",
  }),
);

const COUNTED = columnIndex(TOOL_CALLS, "counted");

/** One part's tool call records, merged among themselves. */
export type PreparedToolCalls = PreparedCalls<ToolCallInput, ToolCallRow>;

/** Merges one part's tool call records among themselves (no store needed). */
export function prepareToolCalls(records: readonly ToolCallInput[]): PreparedToolCalls {
  return prepareCalls(TOOL_CALLS, records);
}

/**
 * Merges and stores a part's tool call records; a call no transcript of its session counts
 * yet is counted in its session's tool calls (one statement per session). Answers how many
 * records were merged.
 */
export function storeToolCalls(
  db: DatabaseSync,
  calls: PreparedToolCalls,
  hasTranscript: (sessionId: string) => boolean,
): number {
  if (calls.records.length === 0) return 0;
  const merged = mergeCalls(db, calls);
  const added = new Map<string, number>();
  for (const row of merged.rows.values()) {
    const sessionId = String(row[SESSION]);
    if (row[COUNTED] === 1 || hasTranscript(sessionId)) continue;
    // No transcript of this session was read: the call is known from telemetry alone.
    row[COUNTED] = 1;
    added.set(sessionId, (added.get(sessionId) ?? 0) + 1);
  }
  writeCalls(db, merged);
  const count = prepared(
    db,
    "UPDATE sessions SET tool_calls = tool_calls + ? WHERE session_id = ?",
  );
  for (const [sessionId, n] of added) count.run(n, sessionId);
  return calls.records.length;
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

/** Reads {@linkcode ToolStatsRow} rows (on either backend). */
export const TOOL_STATS = new RowReader<ToolStatsRow>("tool stats", {
  tool_name: "text",
  calls: "number",
  succeeded: "number",
  failed: "number",
  avg_ms: "number?",
  max_ms: "number?",
});

/** The statement of {@linkcode toolStats} (either backend). */
export const toolStatsSql: WindowStatement = (w) =>
  `SELECT * FROM (
    SELECT coalesce(tool_name, 'unknown') AS tool_name, count(*) AS calls,
      sum(CASE WHEN success = 1 THEN 1 ELSE 0 END) AS succeeded,
      sum(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS failed,
      avg(duration_ms) AS avg_ms, max(duration_ms) AS max_ms
    FROM telemetry_tool_calls WHERE ${w.range} ${w.agents}
    GROUP BY 1
  ) stats ORDER BY calls DESC, ${w.p.bytewise("tool_name")}`;

/** Calls, outcomes and durations per tool. */
export function toolStats(db: DatabaseSync, window: TelemetryWindow): ToolStatsRow[] {
  return windowRows(db, TOOL_STATS, window, toolStatsSql);
}

/** The statement of {@linkcode toolDurations} (either backend). */
export const toolDurationsSql: WindowStatement = percentilesSql(
  "telemetry_tool_calls",
  "coalesce(tool_name, 'unknown')",
  "duration_ms",
  0,
);

/** p50 and p95 duration per tool. */
export function toolDurations(db: DatabaseSync, window: TelemetryWindow): PercentileRow[] {
  return windowRows(db, PERCENTILE, window, toolDurationsSql);
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

/** Reads {@linkcode ToolFailureRow} rows (on either backend). */
export const TOOL_FAILURE = new RowReader<ToolFailureRow>("tool failure", {
  ts: "number",
  agent: "text",
  session_id: "text",
  tool_name: "text?",
  error_type: "text?",
  error: "text?",
  duration_ms: "number?",
  tool_use_id: "text?",
});

/** The statement of {@linkcode recentToolFailures} (either backend). */
export function recentToolFailuresSql(limit: number): WindowStatement {
  return (w) =>
    `SELECT ${TOOL_FAILURE.columns}
    FROM telemetry_tool_calls WHERE ${w.range} AND success = 0 ${w.agents}
    ORDER BY ts DESC LIMIT ${w.p.add(limit)}`;
}

/** The latest failed tool calls. */
export function recentToolFailures(
  db: DatabaseSync,
  window: TelemetryWindow,
  limit: number,
): ToolFailureRow[] {
  return windowRows(db, TOOL_FAILURE, window, recentToolFailuresSql(limit));
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

/** Reads {@linkcode SessionToolCallRow} rows (on either backend). */
export const SESSION_TOOL_CALL = new RowReader<SessionToolCallRow>("session tool call", {
  ts: "number",
  agent: "text",
  tool_name: "text",
  duration_ms: "number",
});

/** The statement of {@linkcode sessionToolCalls} (either backend). */
export function sessionToolCallsSql(
  sessionId: string,
  since: number,
  perTool: number,
): BuiltStatement {
  return (p) =>
    `SELECT ${SESSION_TOOL_CALL.columns} FROM (
      SELECT ts, agent, tool_name, duration_ms,
        row_number() OVER (PARTITION BY tool_name ORDER BY ts DESC) AS rn
      FROM telemetry_tool_calls
      WHERE session_id = ${p.add(sessionId)} AND ts >= ${p.add(since)} AND tool_name IS NOT NULL
        AND duration_ms IS NOT NULL
    ) latest WHERE rn <= ${p.add(perTool)} ORDER BY ts`;
}

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
  return builtRows(db, SESSION_TOOL_CALL, sessionToolCallsSql(sessionId, since, perTool));
}

/** Reads a duration (on either backend). */
export const DURATION = new RowReader<{ duration_ms: number }>("duration", {
  duration_ms: "number",
});

/** The statement of {@linkcode toolDurationsBefore} (either backend). */
export function toolDurationsBeforeSql(
  agent: string,
  toolName: string,
  before: number,
  limit: number,
): BuiltStatement {
  return (p) =>
    `SELECT duration_ms FROM telemetry_tool_calls
    WHERE tool_name = ${p.add(toolName)} AND ts < ${p.add(before)} AND agent = ${p.add(agent)}
      AND duration_ms IS NOT NULL
    ORDER BY ts DESC LIMIT ${p.add(limit)}`;
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
  const sql = toolDurationsBeforeSql(agent, toolName, before, limit);
  return builtRows(db, DURATION, sql).map((row) => row.duration_ms);
}
