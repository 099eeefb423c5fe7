/**
 * The raw signals of an OTLP export, kept as received: spans (once per trace
 * and span id), log records (an agent event once per session and sequence
 * number) and metric points.
 *
 * @module
 */
import type { TelemetryBatch } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../database.ts";
import { prepared } from "../statements.ts";

/** What storing an export's signals added. */
export interface SignalCounts {
  /** Spans newly stored (a resent span is not). */
  spans: number;
  /** Log records newly stored. */
  logs: number;
  /** Metric points stored. */
  metric_points: number;
}

/** Stores an export's spans, log records and metric points, stamped `receivedAt`. */
export function insertSignals(
  db: DatabaseSync,
  batch: TelemetryBatch,
  receivedAt: number,
): SignalCounts {
  return {
    spans: insertSpans(db, batch, receivedAt),
    logs: insertLogs(db, batch, receivedAt),
    metric_points: insertMetricPoints(db, batch, receivedAt),
  };
}

/** Rows per multi-row INSERT: one statement call costs more than the row it carries. */
const ROWS_PER_INSERT = 32;

/**
 * Inserts `rows` (each the values of `columns`) with multi-row statements; answers how many
 * were added (`OR IGNORE` skips rows a unique key already holds).
 */
function insertRows(
  db: DatabaseSync,
  head: string,
  columns: number,
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): number {
  const one = `(${Array(columns).fill("?").join(", ")})`;
  let added = 0;
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    const sql = `${head} VALUES ${Array(chunk.length).fill(one).join(", ")}`;
    added += Number(prepared(db, sql).run(...chunk.flat()).changes);
  }
  return added;
}

function insertSpans(db: DatabaseSync, batch: TelemetryBatch, receivedAt: number): number {
  return insertRows(
    db,
    `INSERT OR IGNORE INTO telemetry_spans (trace_id, span_id, parent_span_id, name, kind,
      service, agent, session_id, start_ts, duration_ms, status_code, status_message, attributes,
      received_at)`,
    14,
    batch.spans.map((s) => [
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
  );
}

function insertLogs(db: DatabaseSync, batch: TelemetryBatch, receivedAt: number): number {
  return insertRows(
    db,
    `INSERT OR IGNORE INTO telemetry_logs (dedupe_key, ts, service, agent, session_id,
      event_name, severity, body, attributes, trace_id, span_id, received_at)`,
    12,
    batch.logs.map((l) => [
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
  );
}

function insertMetricPoints(db: DatabaseSync, batch: TelemetryBatch, receivedAt: number): number {
  if (batch.metricPoints.length === 0) return 0;
  const insert = prepared(
    db,
    `INSERT INTO telemetry_metric_points (name, unit, kind, temporality, monotonic, ts, start_ts,
      value, count, sum, min, max, service, agent, session_id, attributes, received_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const p of batch.metricPoints) {
    insert.run(
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
    );
  }
  return batch.metricPoints.length;
}
