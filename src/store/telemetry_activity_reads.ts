/**
 * Reads behind the telemetry anomaly rules: one session's recent API errors,
 * model calls with their cost, timed tool calls, its priced totals, and a
 * tool's earlier durations (across sessions) for its baseline. Each read is
 * bounded and served by an index on (session, time) or (tool, time).
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";

/** Most rows one read answers. */
const ROWS = 500;

/** A stored API error. */
export interface SessionApiErrorRow {
  /** Time, ms. */
  ts: number;
  /** HTTP status. */
  status_code: number | null;
  /** Error text. */
  error: string | null;
  /** Model. */
  model: string | null;
}

/** The session's API errors since `since`, oldest first. */
export function sessionApiErrors(
  db: DatabaseSync,
  sessionId: string,
  since: number,
): SessionApiErrorRow[] {
  return (db.prepare(`
    SELECT ts, status_code, error, model FROM telemetry_api_errors
    WHERE session_id = ? AND ts >= ? ORDER BY ts DESC LIMIT ${ROWS}
  `).all(sessionId, since) as unknown as SessionApiErrorRow[]).reverse();
}

/** A stored model call with its cost. */
export interface SessionModelCallRow {
  /** The call's key. */
  call_key: string;
  /** Time, ms. */
  ts: number;
  /** Model. */
  model: string | null;
  /** Request id. */
  request_id: string | null;
  /** Vantage's price of its usage row, else the cost the agent reported; null: neither. */
  cost_usd: number | null;
  /** 1 when its priced usage row is in the session's totals. */
  in_totals: number;
  /** Uncached input plus cache reads and writes. */
  context_tokens: number;
  /** Output tokens. */
  output_tokens: number;
}

/** The session's model calls since `since` (side requests aside), oldest first. */
export function sessionModelCalls(
  db: DatabaseSync,
  sessionId: string,
  since: number,
): SessionModelCallRow[] {
  return (db.prepare(`
    SELECT t.call_key, t.ts, t.model, t.request_id,
      CASE WHEN u.priced = 1 THEN u.cost_usd ELSE t.cost_usd END AS cost_usd,
      CASE WHEN u.priced = 1 AND u.session_id = t.session_id THEN 1 ELSE 0 END AS in_totals,
      coalesce(t.input_tokens, 0) + coalesce(t.cache_read_tokens, 0)
        + coalesce(t.cache_write_tokens, 0) AS context_tokens,
      coalesce(t.output_tokens, 0) AS output_tokens
    FROM telemetry_model_calls t LEFT JOIN usage u ON u.usage_key = t.usage_key
    WHERE t.session_id = ? AND t.ts >= ? AND coalesce(t.outside_transcript, 0) = 0
    ORDER BY t.ts DESC LIMIT ${ROWS}
  `).all(sessionId, since) as unknown as SessionModelCallRow[]).reverse();
}

/** The session's priced calls and their cost, over its whole life. */
export function sessionPricedTotals(
  db: DatabaseSync,
  sessionId: string,
): { calls: number; cost_usd: number } {
  return db.prepare(`
    SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(cost_usd), 0) AS cost_usd FROM usage
    WHERE session_id = ? AND priced = 1
  `).get(sessionId) as { calls: number; cost_usd: number };
}

/** A timed tool call. */
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

/** The session's timed tool calls since `since`, oldest first. */
export function sessionToolCalls(
  db: DatabaseSync,
  sessionId: string,
  since: number,
): SessionToolCallRow[] {
  return (db.prepare(`
    SELECT ts, agent, tool_name, duration_ms FROM telemetry_tool_calls
    WHERE session_id = ? AND ts >= ? AND tool_name IS NOT NULL AND duration_ms IS NOT NULL
    ORDER BY ts DESC LIMIT ${ROWS}
  `).all(sessionId, since) as unknown as SessionToolCallRow[]).reverse();
}

/** The durations of `agent`'s `toolName` calls before `before`, the latest `limit`. */
export function toolDurationsBefore(
  db: DatabaseSync,
  agent: string,
  toolName: string,
  before: number,
  limit: number,
): number[] {
  return (db.prepare(`
    SELECT duration_ms FROM telemetry_tool_calls
    WHERE tool_name = ? AND ts < ? AND agent = ? AND duration_ms IS NOT NULL
    ORDER BY ts DESC LIMIT ?
  `).all(toolName, before, agent, limit) as Array<{ duration_ms: number }>).map((r) =>
    r.duration_ms
  );
}
