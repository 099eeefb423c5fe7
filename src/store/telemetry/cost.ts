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
import { builtRow, builtRows, type BuiltStatement } from "../params.ts";
import { RowReader } from "../rows.ts";
import {
  bucketOf,
  type TelemetryWindow,
  windowRow,
  windowRows,
  type WindowStatement,
} from "./window.ts";

/** Reads a window's cost (on either backend). */
export const COST = new RowReader<{ cost_usd: number; calls: number; unpriced_calls: number }>(
  "cost",
  {
    cost_usd: "number",
    calls: "number",
    unpriced_calls: "number",
  },
);

/** The statement of {@linkcode costBetween} (either backend). */
export const costBetweenSql: WindowStatement = (w) =>
  `SELECT coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
    coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
  FROM usage WHERE ${w.range} ${w.agents}`;

/** Cost and calls in a window, from the usage rows. */
export function costBetween(
  db: DatabaseSync,
  window: TelemetryWindow,
): { cost_usd: number; calls: number; unpriced_calls: number } {
  return windowRow(db, COST, window, costBetweenSql);
}

/** Reads the cost of side requests (on either backend). */
export const SIDE_COST = new RowReader<{ cost_usd: number; calls: number }>("side request cost", {
  cost_usd: "number",
  calls: "number",
});

/** The statement of {@linkcode outsideTranscriptCost} (either backend). */
export const outsideTranscriptCostSql: WindowStatement = (w) =>
  `SELECT coalesce(sum(cost_usd), 0) AS cost_usd, count(*) AS calls FROM telemetry_model_calls
  WHERE ${w.range} AND outside_transcript = 1 ${w.agents}`;

/** What agents reported spending on calls no transcript holds, in a window. */
export function outsideTranscriptCost(
  db: DatabaseSync,
  window: TelemetryWindow,
): { cost_usd: number; calls: number } {
  return windowRow(db, SIDE_COST, window, outsideTranscriptCostSql);
}

/** Reads cost per bucket (on either backend). */
export const BUCKET_COST = new RowReader<{ bucket: number; cost_usd: number; calls: number }>(
  "cost per bucket",
  { bucket: "number", cost_usd: "number", calls: "number" },
);

/** The statement of {@linkcode costBuckets} (either backend). */
export function costBucketsSql(bucketMs: number): WindowStatement {
  return (w) =>
    `SELECT ${bucketOf(bucketMs)} AS bucket, sum(cost_usd) AS cost_usd, sum(calls) AS calls
    FROM usage WHERE ${w.range} ${w.agents} GROUP BY 1 ORDER BY 1`;
}

/** Cost per bucket. */
export function costBuckets(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
): Array<{ bucket: number; cost_usd: number; calls: number }> {
  return windowRows(db, BUCKET_COST, window, costBucketsSql(bucketMs));
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

/** Reads {@linkcode ExpensiveCallRow} rows (on either backend). */
export const EXPENSIVE_CALL = new RowReader<ExpensiveCallRow>("expensive call", {
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

/** The statement of {@linkcode mostExpensiveCalls} (either backend). */
export function mostExpensiveCallsSql(limit: number): WindowStatement {
  return (w) =>
    `SELECT u.ts, u.agent, u.session_id, u.model, u.cost_usd, u.input_tokens, u.output_tokens,
      u.cache_read_tokens, u.cache_write_tokens, t.request_id, t.prompt_id, t.duration_ms
    FROM (
      SELECT * FROM usage WHERE ${w.range} AND priced = 1 ${w.agents}
      ORDER BY cost_usd DESC LIMIT ${w.p.add(limit)}
    ) u
    LEFT JOIN telemetry_model_calls t ON t.usage_key = u.usage_key
    ORDER BY u.cost_usd DESC, u.ts DESC`;
}

/** The most expensive priced calls of the window, with what telemetry knows about each. */
export function mostExpensiveCalls(
  db: DatabaseSync,
  window: TelemetryWindow,
  limit: number,
): ExpensiveCallRow[] {
  return windowRows(db, EXPENSIVE_CALL, window, mostExpensiveCallsSql(limit));
}

/** A session's priced calls: how many, and their cost. */
export interface PricedTotals {
  /** Priced calls. */
  calls: number;
  /** Their cost, USD. */
  cost_usd: number;
}

/** Reads {@linkcode PricedTotals} (on either backend). */
export const PRICED_TOTALS = new RowReader<PricedTotals>("priced totals", {
  calls: "number",
  cost_usd: "number",
});

/** The statement of {@linkcode sessionPricedTotals} (either backend). */
export function sessionPricedTotalsSql(sessionId: string): BuiltStatement {
  return (p) =>
    `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(cost_usd), 0) AS cost_usd FROM usage
    WHERE session_id = ${p.add(sessionId)} AND priced = 1`;
}

/** The session's priced calls and their cost, over its whole life. */
export function sessionPricedTotals(db: DatabaseSync, sessionId: string): PricedTotals {
  return builtRow(db, PRICED_TOTALS, sessionPricedTotalsSql(sessionId));
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

/** Reads {@linkcode SessionModelCallRow} rows (on either backend). */
export const SESSION_MODEL_CALL = new RowReader<SessionModelCallRow>("session model call", {
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
 * The statement of {@linkcode sessionCostlyCalls}, newest first (either backend): the usage
 * rows of the session's priced calls since `since` that cost at least `minUsd` and more than
 * `factor` times the average of its other priced calls, joined to their telemetry records.
 */
export function sessionCostlyCallsSql(
  sessionId: string,
  since: number,
  totals: PricedTotals,
  minUsd: number,
  factor: number,
): BuiltStatement {
  return (p) => {
    const colon = p.position("u.usage_key", "':'");
    // cost > factor × (the others' cost / the others' count), multiplied out.
    const aboveOthers = `cost_usd * (${p.add(totals.calls)} - 1) > ${p.add(factor)} * (${
      p.add(totals.cost_usd)
    } - cost_usd)`;
    return `SELECT u.usage_key AS call_key, u.ts, u.model,
      coalesce(t.request_id, CASE WHEN u.agent = 'claude_code' AND ${colon} > 0
        THEN substr(u.usage_key, ${colon} + 1) END) AS request_id,
      u.cost_usd, 1 AS in_totals,
      u.input_tokens + u.cache_read_tokens + u.cache_write_tokens AS context_tokens,
      u.output_tokens
    FROM (
      SELECT * FROM usage
      WHERE session_id = ${p.add(sessionId)} AND ts >= ${p.add(since)} AND priced = 1
        AND calls = 1 AND cost_usd >= ${p.add(minUsd)} AND ${aboveOthers}
      ORDER BY ts DESC LIMIT 50
    ) u
    LEFT JOIN telemetry_model_calls t
      ON u.usage_key LIKE 'otel:%' AND t.call_key = substr(u.usage_key, 6)
    ORDER BY u.ts DESC`;
  };
}

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
  const sql = sessionCostlyCallsSql(sessionId, since, totals, minUsd, factor);
  return builtRows(db, SESSION_MODEL_CALL, sql).reverse();
}
