/**
 * Cost burn and model API errors on PostgreSQL: what the usage rows add up to per window and
 * bucket, the most expensive calls with what telemetry knows of each, side requests' reported
 * cost, API errors stored once per key and read back per bucket and status, and what the
 * costly-call and error-burst rules read of one session — SQLite's statements, readers and
 * parameters (../../telemetry/cost.ts, ../../telemetry/api_errors.ts), run here.
 *
 * @module
 */
import type { ApiErrorInput } from "../../../model/telemetry_records.ts";
import {
  API_ERROR,
  type ApiErrorSummary,
  apiErrorSummaryOf,
  apiErrorSummarySql,
  apiErrorValues,
  BUCKET_COUNT,
  SESSION_API_ERROR,
  type SessionApiErrorRow,
  sessionApiErrorsSql,
  STATUS_COUNT,
} from "../../telemetry/api_errors.ts";
import {
  BUCKET_COST,
  COST,
  costBetweenSql,
  costBucketsSql,
  EXPENSIVE_CALL,
  type ExpensiveCallRow,
  mostExpensiveCallsSql,
  outsideTranscriptCostSql,
  PRICED_TOTALS,
  type PricedTotals,
  SESSION_MODEL_CALL,
  sessionCostlyCallsSql,
  type SessionModelCallRow,
  sessionPricedTotalsSql,
  SIDE_COST,
} from "../../telemetry/cost.ts";
import type { TelemetryWindow } from "../../telemetry/window.ts";
import type { PgQueryable } from "../connection.ts";
import { builtRow, builtRows, wroteAny } from "../reads.ts";
import { windowRow, windowRows } from "./window.ts";

/** Cost and calls in a window, from the usage rows. */
export function costBetween(
  q: PgQueryable,
  window: TelemetryWindow,
): Promise<{ cost_usd: number; calls: number; unpriced_calls: number }> {
  return windowRow(q, COST, window, costBetweenSql);
}

/** What agents reported spending on calls no transcript holds, in a window. */
export function outsideTranscriptCost(
  q: PgQueryable,
  window: TelemetryWindow,
): Promise<{ cost_usd: number; calls: number }> {
  return windowRow(q, SIDE_COST, window, outsideTranscriptCostSql);
}

/** Cost per bucket. */
export function costBuckets(
  q: PgQueryable,
  window: TelemetryWindow,
  bucketMs: number,
): Promise<Array<{ bucket: number; cost_usd: number; calls: number }>> {
  return windowRows(q, BUCKET_COST, window, costBucketsSql(bucketMs));
}

/** The most expensive priced calls of the window, with what telemetry knows about each. */
export function mostExpensiveCalls(
  q: PgQueryable,
  window: TelemetryWindow,
  limit: number,
): Promise<ExpensiveCallRow[]> {
  return windowRows(q, EXPENSIVE_CALL, window, mostExpensiveCallsSql(limit));
}

/** The session's priced calls and their cost, over its whole life. */
export function sessionPricedTotals(q: PgQueryable, sessionId: string): Promise<PricedTotals> {
  return builtRow(q, PRICED_TOTALS, sessionPricedTotalsSql(sessionId));
}

/**
 * The session's recent priced calls far above the average of its other priced calls (see
 * SQLite's `sessionCostlyCalls`): the latest 50, oldest first.
 */
export async function sessionCostlyCalls(
  q: PgQueryable,
  sessionId: string,
  since: number,
  totals: PricedTotals,
  minUsd: number,
  factor: number,
): Promise<SessionModelCallRow[]> {
  const sql = sessionCostlyCallsSql(sessionId, since, totals, minUsd, factor);
  return (await builtRows(q, SESSION_MODEL_CALL, sql)).reverse();
}

/** Stores an API error; answers whether it was new. */
export function insertApiError(q: PgQueryable, e: ApiErrorInput): Promise<boolean> {
  return wroteAny(
    q,
    `INSERT INTO telemetry_api_errors (error_key, agent, session_id, ts, model, request_id,
       prompt_id, status_code, error, duration_ms, attempt, user_id, host_name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (error_key) DO NOTHING RETURNING id`,
    apiErrorValues(e),
  );
}

/** API errors and model calls per bucket, errors per status, and the latest errors. */
export async function apiErrorSummary(
  q: PgQueryable,
  window: TelemetryWindow,
  bucketMs: number,
  limit: number,
): Promise<ApiErrorSummary> {
  const sql = apiErrorSummarySql(bucketMs, limit);
  const [errors, calls, byStatus, recent] = await Promise.all([
    windowRows(q, BUCKET_COUNT, window, sql.errors),
    windowRows(q, BUCKET_COUNT, window, sql.calls),
    windowRows(q, STATUS_COUNT, window, sql.byStatus),
    windowRows(q, API_ERROR, window, sql.recent),
  ]);
  return apiErrorSummaryOf(errors, calls, byStatus, recent);
}

/** The session's API errors since `since` (the latest 500), oldest first. */
export async function sessionApiErrors(
  q: PgQueryable,
  sessionId: string,
  since: number,
): Promise<SessionApiErrorRow[]> {
  return (await builtRows(q, SESSION_API_ERROR, sessionApiErrorsSql(sessionId, since))).reverse();
}
