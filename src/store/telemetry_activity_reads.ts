/**
 * Reads behind the telemetry anomaly rules: one session's recent API errors,
 * the model calls that may cost too much, each tool's latest timed calls, its
 * priced totals, and a tool's earlier durations (across sessions) for its
 * baseline. They run a second after every export that names the session, so
 * each reads only what a rule can report — a few rows, not the session's
 * history — served by an index on (session, time) or (tool, time).
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";

/** Most API errors one read answers. */
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

/** A priced model call. */
export interface SessionModelCallRow {
  /** The call's key (its usage row's). */
  call_key: string;
  /** Time, ms. */
  ts: number;
  /** Model. */
  model: string | null;
  /** Request id. */
  request_id: string | null;
  /** Vantage's price of it. */
  cost_usd: number;
  /** 1: it is in the session's totals (a usage row always is). */
  in_totals: number;
  /** Uncached input plus cache reads and writes. */
  context_tokens: number;
  /** Output tokens. */
  output_tokens: number;
}

/**
 * The session's priced calls since `since` that cost at least `minUsd` and more than `factor`
 * times the average of the session's other priced calls, given its priced `totals`: the only
 * calls the costly-call rule can report, found from the usage rows (each call once, whatever
 * reported it; side requests are in none) without reading every call of a busy session, then
 * joined to what telemetry knows of them (request id). Oldest first.
 */
export function sessionCostlyCalls(
  db: DatabaseSync,
  sessionId: string,
  since: number,
  totals: { calls: number; cost_usd: number },
  minUsd: number,
  factor: number,
): SessionModelCallRow[] {
  return (db.prepare(`
    SELECT u.usage_key AS call_key, u.ts, u.model,
      coalesce(t.request_id, CASE WHEN u.agent = 'claude_code' AND instr(u.usage_key, ':') > 0
        THEN substr(u.usage_key, instr(u.usage_key, ':') + 1) END) AS request_id,
      u.cost_usd, 1 AS in_totals,
      u.input_tokens + u.cache_read_tokens + u.cache_write_tokens AS context_tokens,
      u.output_tokens
    FROM (
      SELECT * FROM usage
      WHERE session_id = ? AND ts >= ? AND priced = 1 AND calls = 1 AND cost_usd >= ?
        AND cost_usd * (? - 1) > ? * (? - cost_usd)
      ORDER BY ts DESC LIMIT 50
    ) u
    LEFT JOIN telemetry_model_calls t
      ON u.usage_key LIKE 'otel:%' AND t.call_key = substr(u.usage_key, 6)
    ORDER BY u.ts DESC
  `).all(
    sessionId,
    since,
    minUsd,
    totals.calls,
    factor,
    totals.cost_usd,
  ) as unknown as SessionModelCallRow[]).reverse();
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

/** The latest `perTool` timed calls of each tool of the session since `since`, oldest first. */
export function sessionToolCalls(
  db: DatabaseSync,
  sessionId: string,
  since: number,
  perTool: number,
): SessionToolCallRow[] {
  return db.prepare(`
    SELECT ts, agent, tool_name, duration_ms FROM (
      SELECT ts, agent, tool_name, duration_ms,
        row_number() OVER (PARTITION BY tool_name ORDER BY ts DESC) AS rn
      FROM telemetry_tool_calls
      WHERE session_id = ? AND ts >= ? AND tool_name IS NOT NULL AND duration_ms IS NOT NULL
    ) WHERE rn <= ? ORDER BY ts
  `).all(sessionId, since, perTool) as unknown as SessionToolCallRow[];
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
