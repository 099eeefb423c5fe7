/**
 * Cost burn and model API errors on PostgreSQL: what the usage rows add up to per window and
 * bucket, the most expensive calls with what telemetry knows of each, side requests' reported
 * cost, and API errors stored once per key and read back per bucket and status — SQLite's
 * statements (../../telemetry/cost.ts, ../../telemetry/api_errors.ts) in PostgreSQL's dialect.
 *
 * @module
 */
import type { ApiErrorInput } from "../../../model/telemetry_records.ts";
import type { ApiErrorRow } from "../../telemetry/api_errors.ts";
import type { ExpensiveCallRow } from "../../telemetry/cost.ts";
import type { TelemetryWindow } from "../../telemetry/window.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { bucketOf, windowRow, windowRows } from "./window.ts";

const COST = new RowReader<{ cost_usd: number; calls: number; unpriced_calls: number }>("cost", {
  cost_usd: "number",
  calls: "number",
  unpriced_calls: "number",
});

/** Cost and calls in a window, from the usage rows. */
export function costBetween(
  q: PgQueryable,
  window: TelemetryWindow,
): Promise<{ cost_usd: number; calls: number; unpriced_calls: number }> {
  return windowRow(
    q,
    COST,
    window,
    (w) =>
      `SELECT coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
      coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
    FROM usage WHERE ${w.range} ${w.agents}`,
  );
}

const SIDE_COST = new RowReader<{ cost_usd: number; calls: number }>("side request cost", {
  cost_usd: "number",
  calls: "number",
});

/** What agents reported spending on calls no transcript holds, in a window. */
export function outsideTranscriptCost(
  q: PgQueryable,
  window: TelemetryWindow,
): Promise<{ cost_usd: number; calls: number }> {
  return windowRow(
    q,
    SIDE_COST,
    window,
    (w) =>
      `SELECT coalesce(sum(cost_usd), 0) AS cost_usd, count(*) AS calls FROM telemetry_model_calls
    WHERE ${w.range} AND outside_transcript = 1 ${w.agents}`,
  );
}

const BUCKET_COST = new RowReader<{ bucket: number; cost_usd: number; calls: number }>(
  "cost per bucket",
  { bucket: "number", cost_usd: "number", calls: "number" },
);

/** Cost per bucket. */
export function costBuckets(
  q: PgQueryable,
  window: TelemetryWindow,
  bucketMs: number,
): Promise<Array<{ bucket: number; cost_usd: number; calls: number }>> {
  return windowRows(
    q,
    BUCKET_COST,
    window,
    (w) =>
      `SELECT ${bucketOf(bucketMs)} AS bucket, sum(cost_usd) AS cost_usd, sum(calls) AS calls
    FROM usage WHERE ${w.range} ${w.agents} GROUP BY 1 ORDER BY 1`,
  );
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
  q: PgQueryable,
  window: TelemetryWindow,
  limit: number,
): Promise<ExpensiveCallRow[]> {
  return windowRows(
    q,
    EXPENSIVE_CALL,
    window,
    (w) =>
      `SELECT u.ts, u.agent, u.session_id, u.model, u.cost_usd, u.input_tokens, u.output_tokens,
        u.cache_read_tokens, u.cache_write_tokens, t.request_id, t.prompt_id, t.duration_ms
      FROM (
        SELECT * FROM usage WHERE ${w.range} AND priced = 1 ${w.agents}
        ORDER BY cost_usd DESC LIMIT ${w.p.add(limit)}
      ) u
      LEFT JOIN telemetry_model_calls t ON t.usage_key = u.usage_key
      ORDER BY u.cost_usd DESC, u.ts DESC`,
  );
}

/** Stores an API error; answers whether it was new. */
export async function insertApiError(q: PgQueryable, e: ApiErrorInput): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO telemetry_api_errors (error_key, agent, session_id, ts, model, request_id,
       prompt_id, status_code, error, duration_ms, attempt, user_id, host_name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (error_key) DO NOTHING RETURNING id`,
    [
      e.error_key,
      e.agent,
      e.session_id,
      e.ts,
      e.model ?? null,
      e.request_id ?? null,
      e.prompt_id ?? null,
      e.status_code ?? null,
      e.error ?? null,
      e.duration_ms ?? null,
      e.attempt ?? null,
      e.user_id ?? null,
      e.host_name ?? null,
    ],
  );
  return rows.length > 0;
}

const API_ERROR = new RowReader<ApiErrorRow>("API error", {
  ts: "number",
  agent: "text",
  session_id: "text",
  model: "text?",
  status_code: "number?",
  error: "text?",
  attempt: "number?",
  request_id: "text?",
  duration_ms: "number?",
});

const BUCKET_COUNT = new RowReader<{ bucket: number; n: number }>("bucket count", {
  bucket: "number",
  n: "number",
});

const STATUS_COUNT = new RowReader<{ status_code: number | null; errors: number }>(
  "errors per status",
  { status_code: "number?", errors: "number" },
);

/** API errors and model calls per bucket, errors per status, and the latest errors. */
export async function apiErrorSummary(
  q: PgQueryable,
  window: TelemetryWindow,
  bucketMs: number,
  limit: number,
): Promise<{
  buckets: Array<{ bucket: number; errors: number; calls: number }>;
  byStatus: Array<{ status_code: number | null; errors: number }>;
  recent: ApiErrorRow[];
}> {
  const bucket = bucketOf(bucketMs);
  const errors = await windowRows(
    q,
    BUCKET_COUNT,
    window,
    (w) =>
      `SELECT ${bucket} AS bucket, count(*) AS n FROM telemetry_api_errors
    WHERE ${w.range} ${w.agents} GROUP BY 1`,
  );
  const calls = await windowRows(
    q,
    BUCKET_COUNT,
    window,
    (w) =>
      `SELECT ${bucket} AS bucket, count(*) AS n FROM telemetry_model_calls
    WHERE ${w.range} AND coalesce(success, 1) = 1 ${w.agents} GROUP BY 1`,
  );
  const merged = new Map<number, { bucket: number; errors: number; calls: number }>();
  for (const row of errors) merged.set(row.bucket, { bucket: row.bucket, errors: row.n, calls: 0 });
  for (const row of calls) {
    const entry = merged.get(row.bucket) ?? { bucket: row.bucket, errors: 0, calls: 0 };
    entry.calls = row.n;
    merged.set(row.bucket, entry);
  }
  const byStatus = await windowRows(
    q,
    STATUS_COUNT,
    window,
    (w) =>
      `SELECT status_code, count(*) AS errors FROM telemetry_api_errors
    WHERE ${w.range} ${w.agents} GROUP BY status_code ORDER BY errors DESC`,
  );
  const recent = await windowRows(q, API_ERROR, window, (w) =>
    `SELECT ${API_ERROR.columns}
      FROM telemetry_api_errors WHERE ${w.range} ${w.agents}
      ORDER BY ts DESC LIMIT ${w.p.add(limit)}`);
  return {
    buckets: [...merged.values()].sort((a, b) => a.bucket - b.bucket),
    byStatus,
    recent,
  };
}
