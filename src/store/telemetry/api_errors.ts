/**
 * Model API errors agents reported over telemetry: stored once per error
 * key, and read back as an error rate per bucket, counts per HTTP status and
 * the latest errors, and per session for the error-burst rule.
 *
 * @module
 */
import type { ApiErrorInput } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { bucketOf, type TelemetryWindow, windowRows } from "./window.ts";

/** Stores an API error; answers whether it was new. */
export function insertApiError(db: DatabaseSync, e: ApiErrorInput): boolean {
  const result = prepared(
    db,
    `INSERT OR IGNORE INTO telemetry_api_errors (error_key, agent, session_id, ts, model,
      request_id, prompt_id, status_code, error, duration_ms, attempt, user_id, host_name)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
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
  );
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
export function apiErrorSummary(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
  limit: number,
): {
  buckets: Array<{ bucket: number; errors: number; calls: number }>;
  byStatus: Array<{ status_code: number | null; errors: number }>;
  recent: ApiErrorRow[];
} {
  const bucket = bucketOf(bucketMs);
  const errors = windowRows(
    db,
    BUCKET_COUNT,
    window,
    (agents) =>
      `SELECT ${bucket} AS bucket, count(*) AS n FROM telemetry_api_errors
    WHERE ts >= ? AND ts < ? ${agents} GROUP BY bucket`,
  );
  // A successful call is a model call that did not fail; failed attempts are the errors.
  const calls = windowRows(
    db,
    BUCKET_COUNT,
    window,
    (agents) =>
      `SELECT ${bucket} AS bucket, count(*) AS n FROM telemetry_model_calls
    WHERE ts >= ? AND ts < ? AND coalesce(success, 1) = 1 ${agents} GROUP BY bucket`,
  );
  const merged = new Map<number, { bucket: number; errors: number; calls: number }>();
  for (const row of errors) merged.set(row.bucket, { bucket: row.bucket, errors: row.n, calls: 0 });
  for (const row of calls) {
    const entry = merged.get(row.bucket) ?? { bucket: row.bucket, errors: 0, calls: 0 };
    entry.calls = row.n;
    merged.set(row.bucket, entry);
  }
  const byStatus = windowRows(
    db,
    STATUS_COUNT,
    window,
    (agents) =>
      `SELECT status_code, count(*) AS errors FROM telemetry_api_errors
    WHERE ts >= ? AND ts < ? ${agents} GROUP BY status_code ORDER BY errors DESC`,
  );
  const recent = windowRows(
    db,
    API_ERROR,
    window,
    (agents) =>
      `SELECT ${API_ERROR.columns}
      FROM telemetry_api_errors WHERE ts >= ? AND ts < ? ${agents}
      ORDER BY ts DESC LIMIT ?`,
    limit,
  );
  return {
    buckets: [...merged.values()].sort((a, b) => a.bucket - b.bucket),
    byStatus,
    recent,
  };
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

const SESSION_API_ERROR = new RowReader<SessionApiErrorRow>("session API error", {
  ts: "number",
  status_code: "number?",
  error: "text?",
  model: "text?",
});

/** Most API errors one session read answers (a burst needs far fewer). */
const SESSION_ERRORS_READ = 500;

/** The session's API errors since `since` (the latest 500), oldest first. */
export function sessionApiErrors(
  db: DatabaseSync,
  sessionId: string,
  since: number,
): SessionApiErrorRow[] {
  return SESSION_API_ERROR.all(
    prepared(
      db,
      `SELECT ${SESSION_API_ERROR.columns} FROM telemetry_api_errors
      WHERE session_id = ? AND ts >= ? ORDER BY ts DESC LIMIT ${SESSION_ERRORS_READ}`,
    ).all(sessionId, since),
  ).reverse();
}
