/**
 * Writes of OpenTelemetry intake: one export's spans, log records, metric
 * points, sessions, model calls, tool calls and API errors, in one
 * transaction (so a failure stores nothing of it), or in a few, taking turns
 * with other writers between the export's parts.
 *
 * Storing comes in two steps: {@linkcode prepareTelemetryPart} does what
 * needs no store (every row's values in column order, each call's records
 * merged among themselves), so an intake worker does it before its turn to
 * write; the store step then only reads the rows a part's calls name and
 * writes.
 *
 * A model call or tool call may be described by several records (Claude
 * Code's `api_request` event and `llm_request` span share a request id; a
 * `tool_decision`, a `tool_result` and a `claude_code.tool` span share a
 * tool call id): each is one row, merged field by field. An event's figure
 * wins over a span's; a span only fills what is still empty.
 *
 * Counting, so a call seen in a transcript and in telemetry counts once: a
 * session's token totals, model calls and tool calls come from its transcript
 * whenever one was read (the figures ccusage counts). Telemetry counts a call
 * (its own usage row `otel:<call key>`, one more tool call) only while no
 * transcript of that session was read; when one is read later,
 * {@linkcode settleTelemetryCounts} (telemetry_settle.ts) withdraws those
 * counts. A call telemetry reports and the transcript lacks (Claude Code's
 * side requests for titles or summaries) stays in `telemetry_model_calls`
 * for latency and cost views, outside the session's totals.
 *
 * @module
 */
import type { CallPrice, UsageInput } from "./agent_records.ts";
import {
  type DatabaseSync,
  letWaitingWritersIn,
  transaction,
  writersWaiting,
  writing,
} from "./database.ts";
import {
  type PreparedCalls,
  prepareModelCalls,
  prepareToolCalls,
  storeModelCalls,
  storeToolCalls,
} from "./telemetry_calls.ts";
import { telemetryStatement } from "./telemetry_statements.ts";
import { sessionHasTranscript } from "./telemetry_settle.ts";
import type { TelemetryBatch, TelemetrySessionInput } from "./telemetry_records.ts";

export { telemetryUsageKey } from "./telemetry_calls.ts";

/** What a stored batch added. */
export interface TelemetryWriteCounts {
  /** Spans newly stored (a resent span is not). */
  spans: number;
  /** Log records newly stored. */
  logs: number;
  /** Metric points stored. */
  metric_points: number;
  /** Model call records merged. */
  model_calls: number;
  /** Tool call records merged. */
  tool_calls: number;
  /** API errors newly stored. */
  api_errors: number;
  /** Sessions touched. */
  sessions: string[];
}

/** How a stored call is priced (the same pricing as transcript usage). */
export type TelemetryPricing = (record: UsageInput) => CallPrice;

/** A value as bound to a statement. */
type SqlValue = string | number | null;

/** One part of an export (see `mapExport`), made ready to store. */
export interface PreparedTelemetryPart {
  /** Rows of `telemetry_spans`, in {@linkcode SPAN_COLUMNS} order. */
  spans: SqlValue[][];
  /** Rows of `telemetry_logs`, in {@linkcode LOG_COLUMNS} order. */
  logs: SqlValue[][];
  /** Rows of `telemetry_metric_points`, in {@linkcode METRIC_POINT_COLUMNS} order. */
  metricPoints: SqlValue[][];
  /** Rows of `telemetry_api_errors`, in {@linkcode API_ERROR_COLUMNS} order. */
  apiErrors: SqlValue[][];
  /** Sessions named. */
  sessions: TelemetrySessionInput[];
  /** Model call records, merged among themselves. */
  modelCalls: PreparedCalls;
  /** Tool call records, merged among themselves. */
  toolCalls: PreparedCalls;
}

const SPAN_COLUMNS = `trace_id, span_id, parent_span_id, name, kind, service, agent, session_id,
  start_ts, duration_ms, status_code, status_message, attributes, received_at`;
const LOG_COLUMNS = `dedupe_key, ts, service, agent, session_id, event_name, severity, body,
  attributes, trace_id, span_id, received_at`;
const METRIC_POINT_COLUMNS = `name, unit, kind, temporality, monotonic, ts, start_ts, value,
  count, sum, min, max, service, agent, session_id, attributes, received_at`;
const API_ERROR_COLUMNS = `error_key, agent, session_id, ts, model, request_id, prompt_id,
  status_code, error, duration_ms, attempt, user_id, host_name`;

/**
 * Readies one part of an export for storing (no store needed); `receivedAt` stamps its raw
 * records.
 */
export function prepareTelemetryPart(
  batch: TelemetryBatch,
  receivedAt: number,
): PreparedTelemetryPart {
  return {
    spans: batch.spans.map((s) => [
      s.trace_id,
      s.span_id,
      s.parent_span_id ?? null,
      s.name,
      s.kind,
      s.service ?? null,
      s.agent ?? null,
      s.session_id ?? null,
      s.start_ts,
      s.duration_ms,
      s.status_code,
      s.status_message ?? null,
      s.attributes,
      receivedAt,
    ]),
    logs: batch.logs.map((l) => [
      l.dedupe_key ?? null,
      l.ts,
      l.service ?? null,
      l.agent ?? null,
      l.session_id ?? null,
      l.event_name ?? null,
      l.severity ?? null,
      l.body ?? null,
      l.attributes,
      l.trace_id ?? null,
      l.span_id ?? null,
      receivedAt,
    ]),
    metricPoints: batch.metricPoints.map((p) => [
      p.name,
      p.unit ?? null,
      p.kind,
      p.temporality ?? null,
      p.monotonic === undefined ? null : p.monotonic ? 1 : 0,
      p.ts,
      p.start_ts ?? null,
      p.value ?? null,
      p.count ?? null,
      p.sum ?? null,
      p.min ?? null,
      p.max ?? null,
      p.service ?? null,
      p.agent ?? null,
      p.session_id ?? null,
      p.attributes,
      receivedAt,
    ]),
    apiErrors: batch.apiErrors.map((e) => [
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
    ]),
    sessions: [...batch.sessions.values()],
    modelCalls: prepareModelCalls(batch.modelCalls),
    toolCalls: prepareToolCalls(batch.toolCalls),
  };
}

/**
 * Stores one export's records in one transaction (or in the one open on `db`). `priceOf`
 * prices a model call counted from telemetry; `receivedAt` stamps the raw records.
 */
export function storeTelemetryBatch(
  db: DatabaseSync,
  batch: TelemetryBatch,
  priceOf: TelemetryPricing,
  receivedAt: number,
): TelemetryWriteCounts {
  return storeTelemetryParts(db, [prepareTelemetryPart(batch, receivedAt)], priceOf);
}

/** Stores the prepared parts of one export in one transaction. */
export function storeTelemetryParts(
  db: DatabaseSync,
  parts: readonly PreparedTelemetryPart[],
  priceOf: TelemetryPricing,
): TelemetryWriteCounts {
  return writing(db, () => {
    const counts = noCounts();
    const hasTranscript = transcriptCheck(db);
    for (const part of parts) storePart(db, part, priceOf, hasTranscript, counts);
    return counts;
  });
}

/**
 * Stores the prepared parts of one export, letting other writers in between parts: they go
 * into one transaction while no other thread or process waits to write; when one does, the
 * transaction commits after the current part, the waiting writers take their turn, and the
 * rest follows in a new transaction. A hook then waits for one part, never for a whole
 * export. Each transaction is whole (a failure leaves the parts committed before it, which a
 * resent export merges into without counting anything twice).
 */
export async function storeTelemetryPartsTakingTurns(
  db: DatabaseSync,
  parts: readonly PreparedTelemetryPart[],
  priceOf: TelemetryPricing,
): Promise<TelemetryWriteCounts> {
  const counts = noCounts();
  let next = 0;
  while (next < parts.length) {
    transaction(db, () => {
      // A transcript stored between two transactions changes the answer: asked afresh.
      const hasTranscript = transcriptCheck(db);
      do {
        storePart(db, parts[next++], priceOf, hasTranscript, counts);
      } while (next < parts.length && !writersWaiting(db));
    });
    if (next < parts.length) await letWaitingWritersIn(db);
  }
  return counts;
}

function noCounts(): TelemetryWriteCounts {
  return {
    spans: 0,
    logs: 0,
    metric_points: 0,
    model_calls: 0,
    tool_calls: 0,
    api_errors: 0,
    sessions: [],
  };
}

/** Whether each session has a transcript, asked once per transaction. */
function transcriptCheck(db: DatabaseSync): (sessionId: string) => boolean {
  const known = new Map<string, boolean>();
  return (sessionId) => {
    let found = known.get(sessionId);
    if (found === undefined) {
      found = sessionHasTranscript(db, sessionId);
      known.set(sessionId, found);
    }
    return found;
  };
}

/** Stores one part, inside a transaction, adding what it stored to `counts`. */
function storePart(
  db: DatabaseSync,
  part: PreparedTelemetryPart,
  priceOf: TelemetryPricing,
  hasTranscript: (sessionId: string) => boolean,
  counts: TelemetryWriteCounts,
): void {
  counts.spans += insertRows(db, `INSERT OR IGNORE INTO telemetry_spans`, SPAN_COLUMNS, part.spans);
  counts.logs += insertRows(db, `INSERT OR IGNORE INTO telemetry_logs`, LOG_COLUMNS, part.logs);
  counts.metric_points += insertRows(
    db,
    `INSERT INTO telemetry_metric_points`,
    METRIC_POINT_COLUMNS,
    part.metricPoints,
  );
  for (const session of part.sessions) {
    upsertSession(db, session);
    counts.sessions.push(session.session_id);
  }
  counts.model_calls += storeModelCalls(db, part.modelCalls, hasTranscript, priceOf);
  counts.tool_calls += storeToolCalls(db, part.toolCalls, hasTranscript);
  counts.api_errors += insertRows(
    db,
    `INSERT OR IGNORE INTO telemetry_api_errors`,
    API_ERROR_COLUMNS,
    part.apiErrors,
  );
}

/**
 * Inserts `rows` (each the values of `columns`), one prepared statement call a row (node:sqlite
 * binds a long multi-row statement's arguments more slowly than it runs a short one again);
 * answers how many were added (`OR IGNORE` skips rows a unique key already holds).
 */
function insertRows(
  db: DatabaseSync,
  head: string,
  columns: string,
  rows: readonly SqlValue[][],
): number {
  if (rows.length === 0) return 0;
  const places = columns.split(",").map(() => "?").join(", ");
  const insert = telemetryStatement(db, `${head} (${columns}) VALUES (${places})`);
  let added = 0;
  for (const row of rows) added += Number(insert.run(...row).changes);
  return added;
}

/**
 * The session in `sessions` (so telemetry-only sessions are listed like any other) and its
 * user and host in `telemetry_sessions`. A transcript's facts (cwd, project, model) are left as
 * they are; times only widen.
 */
function upsertSession(db: DatabaseSync, s: TelemetrySessionInput): void {
  telemetryStatement(
    db,
    `
    INSERT INTO sessions (session_id, agent, started_at, last_activity_at)
    VALUES (?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      started_at = CASE WHEN sessions.started_at <= 0 THEN excluded.started_at
        ELSE min(sessions.started_at, excluded.started_at) END,
      last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at)
  `,
  ).run(s.session_id, s.agent, s.first_seen, s.last_seen);
  telemetryStatement(
    db,
    `
    INSERT INTO telemetry_sessions (session_id, agent, service, service_version, user_id,
      user_email, organization_id, host_name, host_arch, os_type, terminal_type, first_seen,
      last_seen)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      service = coalesce(excluded.service, telemetry_sessions.service),
      service_version = coalesce(excluded.service_version, telemetry_sessions.service_version),
      user_id = coalesce(excluded.user_id, telemetry_sessions.user_id),
      user_email = coalesce(excluded.user_email, telemetry_sessions.user_email),
      organization_id = coalesce(excluded.organization_id, telemetry_sessions.organization_id),
      host_name = coalesce(excluded.host_name, telemetry_sessions.host_name),
      host_arch = coalesce(excluded.host_arch, telemetry_sessions.host_arch),
      os_type = coalesce(excluded.os_type, telemetry_sessions.os_type),
      terminal_type = coalesce(excluded.terminal_type, telemetry_sessions.terminal_type),
      first_seen = min(telemetry_sessions.first_seen, excluded.first_seen),
      last_seen = max(telemetry_sessions.last_seen, excluded.last_seen)
  `,
  ).run(
    s.session_id,
    s.agent,
    s.service ?? null,
    s.service_version ?? null,
    s.user_id ?? null,
    s.user_email ?? null,
    s.organization_id ?? null,
    s.host_name ?? null,
    s.host_arch ?? null,
    s.os_type ?? null,
    s.terminal_type ?? null,
    s.first_seen,
    s.last_seen,
  );
}
