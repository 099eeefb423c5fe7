/**
 * The raw signals of an OTLP export, kept as received: spans (once per trace
 * and span id), log records (an agent event once per session and sequence
 * number) and metric points. Their rows are made ready before the store is
 * touched ({@linkcode signalRows}), so an intake worker does that before its
 * turn to write.
 *
 * @module
 */
import type { TelemetryBatch } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../database.ts";
import { prepared } from "../statements.ts";
import type { SqlValue } from "./call_merge.ts";

/** What storing an export's signals added. */
export interface SignalCounts {
  /** Spans newly stored (a resent span is not). */
  spans: number;
  /** Log records newly stored. */
  logs: number;
  /** Metric points stored. */
  metric_points: number;
}

/** An export's signals as rows, each in its INSERT's column order. */
export interface SignalRows {
  /** Rows of `telemetry_spans`. */
  spans: SqlValue[][];
  /** Rows of `telemetry_logs`. */
  logs: SqlValue[][];
  /** Rows of `telemetry_metric_points`. */
  metricPoints: SqlValue[][];
}

const INSERT_SPAN = `INSERT OR IGNORE INTO telemetry_spans (trace_id, span_id, parent_span_id,
  name, kind, service, agent, session_id, start_ts, duration_ms, status_code, status_message,
  attributes, received_at)`;

const INSERT_LOG = `INSERT OR IGNORE INTO telemetry_logs (dedupe_key, ts, service, agent,
  session_id, event_name, severity, body, attributes, trace_id, span_id, received_at)`;

const INSERT_METRIC_POINT = `INSERT INTO telemetry_metric_points (name, unit, kind, temporality,
  monotonic, ts, start_ts, value, count, sum, min, max, service, agent, session_id, attributes,
  received_at)`;

/** An export's signals as rows (no store needed), stamped `receivedAt`. */
export function signalRows(batch: TelemetryBatch, receivedAt: number): SignalRows {
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
  };
}

/** Stores an export's signal rows; answers what was added. */
export function insertSignalRows(db: DatabaseSync, rows: SignalRows): SignalCounts {
  return {
    spans: insertRows(db, INSERT_SPAN, rows.spans),
    logs: insertRows(db, INSERT_LOG, rows.logs),
    metric_points: insertRows(db, INSERT_METRIC_POINT, rows.metricPoints),
  };
}

/**
 * Inserts `rows` with `head` (an INSERT naming its columns), one prepared statement call a row
 * (node:sqlite binds a long multi-row statement's arguments more slowly than it runs a short
 * one again); answers how many were added (`OR IGNORE` skips rows a unique key already holds).
 */
function insertRows(db: DatabaseSync, head: string, rows: readonly SqlValue[][]): number {
  if (rows.length === 0) return 0;
  const insert = prepared(db, `${head} VALUES (${rows[0].map(() => "?").join(", ")})`);
  let added = 0;
  for (const row of rows) added += Number(insert.run(...row).changes);
  return added;
}
