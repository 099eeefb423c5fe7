/**
 * Cost burn over a window: what the usage rows (each call once, whatever its
 * source) add up to, per bucket and for the most expensive calls with what
 * telemetry knows about each, and what agents reported spending on calls no
 * transcript holds (side requests), which the usage rows leave out; and for
 * the costly-call rule, a session's priced totals and its calls far above
 * their average.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { bucketOf, type TelemetryWindow, windowRow, windowRows } from "./window.ts";

const COST = new RowReader<{ cost_usd: number; calls: number; unpriced_calls: number }>("cost", {
  cost_usd: "number",
  calls: "number",
  unpriced_calls: "number",
});

/** Cost and calls in a window, from the usage rows. */
export function costBetween(
  db: DatabaseSync,
  window: TelemetryWindow,
): { cost_usd: number; calls: number; unpriced_calls: number } {
  return windowRow(
    db,
    COST,
    window,
    (agents) =>
      `SELECT coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
      coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
    FROM usage WHERE ts >= ? AND ts < ? ${agents}`,
  );
}

const SIDE_COST = new RowReader<{ cost_usd: number; calls: number }>("side request cost", {
  cost_usd: "number",
  calls: "number",
});

/** What agents reported spending on calls no transcript holds, in a window. */
export function outsideTranscriptCost(
  db: DatabaseSync,
  window: TelemetryWindow,
): { cost_usd: number; calls: number } {
  return windowRow(
    db,
    SIDE_COST,
    window,
    (agents) =>
      `SELECT coalesce(sum(cost_usd), 0) AS cost_usd, count(*) AS calls FROM telemetry_model_calls
    WHERE ts >= ? AND ts < ? AND outside_transcript = 1 ${agents}`,
  );
}

const BUCKET_COST = new RowReader<{ bucket: number; cost_usd: number; calls: number }>(
  "cost per bucket",
  { bucket: "number", cost_usd: "number", calls: "number" },
);

/** Cost per bucket. */
export function costBuckets(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
): Array<{ bucket: number; cost_usd: number; calls: number }> {
  return windowRows(
    db,
    BUCKET_COST,
    window,
    (agents) =>
      `SELECT ${bucketOf(bucketMs)} AS bucket, sum(cost_usd) AS cost_usd, sum(calls) AS calls
    FROM usage WHERE ts >= ? AND ts < ? ${agents} GROUP BY bucket ORDER BY bucket`,
  );
}

/** One of the most expensive model calls. */
export interface ExpensiveCallRow {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Model. */
  model: string | null;
  /** Cost, USD. */
  cost_usd: number;
  /** Uncached input. */
  input_tokens: number;
  /** Output. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes. */
  cache_write_tokens: number;
  /** The provider's request id, when telemetry named it. */
  request_id: string | null;
  /** The user prompt it served, when telemetry named it. */
  prompt_id: string | null;
  /** Duration, ms, when telemetry reported it. */
  duration_ms: number | null;
}

const EXPENSIVE_CALL = new RowReader<ExpensiveCallRow>("expensive call", {
  ts: "number",
  agent: "text",
  session_id: "text",
  model: "text?",
  cost_usd: "number",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  request_id: "text?",
  prompt_id: "text?",
  duration_ms: "number?",
});

/** The most expensive priced calls of the window, with what telemetry knows about each. */
export function mostExpensiveCalls(
  db: DatabaseSync,
  window: TelemetryWindow,
  limit: number,
): ExpensiveCallRow[] {
  return windowRows(
    db,
    EXPENSIVE_CALL,
    window,
    (agents) =>
      `SELECT u.ts, u.agent, u.session_id, u.model, u.cost_usd, u.input_tokens, u.output_tokens,
        u.cache_read_tokens, u.cache_write_tokens, t.request_id, t.prompt_id, t.duration_ms
      FROM (
        SELECT * FROM usage WHERE ts >= ? AND ts < ? AND priced = 1 ${agents}
        ORDER BY cost_usd DESC LIMIT ?
      ) u
      LEFT JOIN telemetry_model_calls t ON t.usage_key = u.usage_key
      ORDER BY u.cost_usd DESC, u.ts DESC`,
    limit,
  );
}

/** A session's priced calls: how many, and their cost. */
export interface PricedTotals {
  /** Priced calls. */
  calls: number;
  /** Their cost, USD. */
  cost_usd: number;
}

const PRICED_TOTALS = new RowReader<PricedTotals>("priced totals", {
  calls: "number",
  cost_usd: "number",
});

/** The session's priced calls and their cost, over its whole life. */
export function sessionPricedTotals(db: DatabaseSync, sessionId: string): PricedTotals {
  return PRICED_TOTALS.one(
    prepared(
      db,
      `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(cost_usd), 0) AS cost_usd FROM usage
      WHERE session_id = ? AND priced = 1`,
    ).get(sessionId),
  );
}

/** A priced model call of one session, as the costly-call rule reads it. */
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

const SESSION_MODEL_CALL = new RowReader<SessionModelCallRow>("session model call", {
  call_key: "text",
  ts: "number",
  model: "text?",
  request_id: "text?",
  cost_usd: "number",
  in_totals: "number",
  context_tokens: "number",
  output_tokens: "number",
});

/**
 * The session's priced calls since `since` that cost at least `minUsd` and more than `factor`
 * times the average of the session's other priced calls, given its priced `totals`: the only
 * calls the costly-call rule can report, found from the usage rows (each call once, whatever
 * reported it; side requests are in none) without reading every call of a busy session, then
 * joined to what telemetry knows of them (request id). The latest 50, oldest first.
 */
export function sessionCostlyCalls(
  db: DatabaseSync,
  sessionId: string,
  since: number,
  totals: PricedTotals,
  minUsd: number,
  factor: number,
): SessionModelCallRow[] {
  return SESSION_MODEL_CALL.all(
    prepared(
      db,
      `SELECT u.usage_key AS call_key, u.ts, u.model,
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
      ORDER BY u.ts DESC`,
    ).all(sessionId, since, minUsd, totals.calls, factor, totals.cost_usd),
  ).reverse();
}
