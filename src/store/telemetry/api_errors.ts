/**
 * Model API errors agents reported over telemetry: stored once per error
 * key, and read back as an error rate per bucket, counts per HTTP status and
 * the latest errors, and per session for the error-burst rule.
 *
 * @module
 */
import type { ApiErrorInput } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../database.ts";
import { builtRows, type BuiltStatement } from "../params.ts";
import { RowReader, type SqlParam } from "../rows.ts";
import { prepared } from "../statements.ts";
import { bucketOf, type TelemetryWindow, windowRows, type WindowStatement } from "./window.ts";

/**
 * The parameters of the insert of an API error (`error_key, agent, session_id, ts, model,
 * request_id, prompt_id, status_code, error, duration_ms, attempt, user_id, host_name`, on
 * both backends).
 */
export function apiErrorValues(e: ApiErrorInput): SqlParam[] {
  return [
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
  ];
}

/** Stores an API error; answers whether it was new. */
export function insertApiError(db: DatabaseSync, e: ApiErrorInput): boolean {
  const result = prepared(
    db,
    `INSERT OR IGNORE INTO telemetry_api_errors (error_key, agent, session_id, ts, model,
      request_id, prompt_id, status_code, error, duration_ms, attempt, user_id, host_name)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...apiErrorValues(e));
  return Number(result.changes) > 0;
}

/** An API error. */
export interface ApiErrorRow {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Model. */
  model: string | null;
  /** HTTP status. */
  status_code: number | null;
  /** Error text. */
  error: string | null;
  /** Attempt. */
  attempt: number | null;
  /** Request id. */
  request_id: string | null;
  /** Duration, ms. */
  duration_ms: number | null;
}

/** Reads {@linkcode ApiErrorRow} rows (on either backend). */
export const API_ERROR = new RowReader<ApiErrorRow>("API error", {
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

/** Reads counts per bucket (on either backend). */
export const BUCKET_COUNT = new RowReader<{ bucket: number; n: number }>("bucket count", {
  bucket: "number",
  n: "number",
});

/** Reads errors per status (on either backend). */
export const STATUS_COUNT = new RowReader<{ status_code: number | null; errors: number }>(
  "errors per status",
  { status_code: "number?", errors: "number" },
);

/** What {@linkcode apiErrorSummary} answers. */
export interface ApiErrorSummary {
  /** API errors and successful model calls per bucket. */
  buckets: Array<{ bucket: number; errors: number; calls: number }>;
  /** Errors per HTTP status, most first. */
  byStatus: Array<{ status_code: number | null; errors: number }>;
  /** The latest errors. */
  recent: ApiErrorRow[];
}

/**
 * The statements of {@linkcode apiErrorSummary} (either backend): API errors per bucket
 * ({@linkcode BUCKET_COUNT}), successful model calls per bucket (failed attempts are the
 * errors), errors per status ({@linkcode STATUS_COUNT}) and the latest errors
 * ({@linkcode API_ERROR}).
 */
export function apiErrorSummarySql(bucketMs: number, limit: number): {
  errors: WindowStatement;
  calls: WindowStatement;
  byStatus: WindowStatement;
  recent: WindowStatement;
} {
  const bucket = bucketOf(bucketMs);
  return {
    errors: (w) =>
      `SELECT ${bucket} AS bucket, count(*) AS n FROM telemetry_api_errors
      WHERE ${w.range} ${w.agents} GROUP BY 1`,
    calls: (w) =>
      `SELECT ${bucket} AS bucket, count(*) AS n FROM telemetry_model_calls
      WHERE ${w.range} AND coalesce(success, 1) = 1 ${w.agents} GROUP BY 1`,
    byStatus: (w) =>
      `SELECT status_code, count(*) AS errors FROM telemetry_api_errors
      WHERE ${w.range} ${w.agents} GROUP BY status_code ORDER BY errors DESC`,
    recent: (w) =>
      `SELECT ${API_ERROR.columns} FROM telemetry_api_errors WHERE ${w.range} ${w.agents}
      ORDER BY ts DESC LIMIT ${w.p.add(limit)}`,
  };
}

/** The summary of what {@linkcode apiErrorSummarySql}'s statements read (either backend). */
export function apiErrorSummaryOf(
  errors: ReadonlyArray<{ bucket: number; n: number }>,
  calls: ReadonlyArray<{ bucket: number; n: number }>,
  byStatus: ApiErrorSummary["byStatus"],
  recent: ApiErrorRow[],
): ApiErrorSummary {
  const merged = new Map<number, { bucket: number; errors: number; calls: number }>();
  for (const row of errors) merged.set(row.bucket, { bucket: row.bucket, errors: row.n, calls: 0 });
  for (const row of calls) {
    const entry = merged.get(row.bucket) ?? { bucket: row.bucket, errors: 0, calls: 0 };
    entry.calls = row.n;
    merged.set(row.bucket, entry);
  }
  return {
    buckets: [...merged.values()].sort((a, b) => a.bucket - b.bucket),
    byStatus,
    recent,
  };
}

/** API errors and model calls per bucket, errors per status, and the latest errors. */
export function apiErrorSummary(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
  limit: number,
): ApiErrorSummary {
  const sql = apiErrorSummarySql(bucketMs, limit);
  return apiErrorSummaryOf(
    windowRows(db, BUCKET_COUNT, window, sql.errors),
    windowRows(db, BUCKET_COUNT, window, sql.calls),
    windowRows(db, STATUS_COUNT, window, sql.byStatus),
    windowRows(db, API_ERROR, window, sql.recent),
  );
}

/** An API error of one session, as the error-burst rule reads it. */
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

/** Reads {@linkcode SessionApiErrorRow} rows (on either backend). */
export const SESSION_API_ERROR = new RowReader<SessionApiErrorRow>("session API error", {
  ts: "number",
  status_code: "number?",
  error: "text?",
  model: "text?",
});

/** Most API errors one session read answers (a burst needs far fewer). */
const SESSION_ERRORS_READ = 500;

/** The statement of {@linkcode sessionApiErrors}, newest first (either backend). */
export function sessionApiErrorsSql(sessionId: string, since: number): BuiltStatement {
  return (p) =>
    `SELECT ${SESSION_API_ERROR.columns} FROM telemetry_api_errors
    WHERE session_id = ${p.add(sessionId)} AND ts >= ${p.add(since)}
    ORDER BY ts DESC LIMIT ${SESSION_ERRORS_READ}`;
}

/** The session's API errors since `since` (the latest 500), oldest first. */
export function sessionApiErrors(
  db: DatabaseSync,
  sessionId: string,
  since: number,
): SessionApiErrorRow[] {
  return builtRows(db, SESSION_API_ERROR, sessionApiErrorsSql(sessionId, since)).reverse();
}
