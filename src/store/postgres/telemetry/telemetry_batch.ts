/**
 * One OTLP export stored on PostgreSQL: its raw signals, sessions, model calls, tool calls and
 * API errors in one write, so a failure stores nothing of it — SQLite's steps
 * (../../telemetry/telemetry_batch.ts, ../../telemetry/signals.ts) in PostgreSQL's dialect, the
 * raw signals each stored by one statement over column arrays.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../../model/agent_records.ts";
import type { TelemetryBatch, TelemetrySessionInput } from "../../../model/telemetry_records.ts";
import type { SignalCounts } from "../../telemetry/signals.ts";
import type { TelemetryWriteCounts } from "../../telemetry/telemetry_batch.ts";
import type { PgQueryable } from "../connection.ts";
import { lockSessions } from "../agent/session_totals.ts";
import { insertApiError } from "./cost_and_errors.ts";
import { countModelCalls, mergeModelCall, type StoredModelCall } from "./model_calls.ts";
import { sessionHasTranscript } from "./settle.ts";
import { mergeToolCall } from "./tool_calls.ts";

/** Stores one export's records in one write; `priceOf` prices calls counted from telemetry. */
export function storeTelemetryBatch(
  q: PgQueryable,
  batch: TelemetryBatch,
  priceOf: (record: CountedUsage) => CallPrice,
  receivedAt: number,
): Promise<TelemetryWriteCounts> {
  return q.write(async (w) => {
    await lockSessions(w, [
      ...batch.sessions.keys(),
      ...batch.modelCalls.map((c) => c.session_id),
      ...batch.toolCalls.map((c) => c.session_id),
    ]);
    const counts: TelemetryWriteCounts = {
      ...await insertSignals(w, batch, receivedAt),
      model_calls: 0,
      tool_calls: 0,
      api_errors: 0,
      sessions: [...batch.sessions.keys()],
    };
    for (const session of batch.sessions.values()) await upsertSession(w, session);
    const transcripts = new Map<string, boolean>();
    const hasTranscript = async (sessionId: string): Promise<boolean> => {
      let known = transcripts.get(sessionId);
      if (known === undefined) {
        known = await sessionHasTranscript(w, sessionId);
        transcripts.set(sessionId, known);
      }
      return known;
    };
    const merged = new Map<string, StoredModelCall>();
    for (const call of batch.modelCalls) {
      merged.set(call.call_key, await mergeModelCall(w, call));
      counts.model_calls++;
    }
    await countModelCalls(w, merged, hasTranscript, priceOf);
    for (const call of batch.toolCalls) {
      await mergeToolCall(w, call, hasTranscript);
      counts.tool_calls++;
    }
    for (const error of batch.apiErrors) {
      if (await insertApiError(w, error)) counts.api_errors++;
    }
    return counts;
  });
}

/** The session in `sessions` and its user and host in `telemetry_sessions` (times only widen). */
async function upsertSession(q: PgQueryable, s: TelemetrySessionInput): Promise<void> {
  await q.query(
    `INSERT INTO sessions (session_id, agent, started_at, last_activity_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id) DO UPDATE SET
       started_at = CASE WHEN sessions.started_at <= 0 THEN excluded.started_at
         ELSE least(sessions.started_at, excluded.started_at) END,
       last_activity_at = greatest(sessions.last_activity_at, excluded.last_activity_at)`,
    [s.session_id, s.agent, s.first_seen, s.last_seen],
  );
  await q.query(
    `INSERT INTO telemetry_sessions (session_id, agent, service, service_version, user_id,
       user_email, organization_id, host_name, host_arch, os_type, terminal_type, first_seen,
       last_seen)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
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
       first_seen = least(telemetry_sessions.first_seen, excluded.first_seen),
       last_seen = greatest(telemetry_sessions.last_seen, excluded.last_seen)`,
    [
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
    ],
  );
}

/** Stores an export's spans, log records and metric points, stamped `receivedAt`. */
async function insertSignals(
  q: PgQueryable,
  batch: TelemetryBatch,
  receivedAt: number,
): Promise<SignalCounts> {
  const spans = batch.spans.length === 0 ? [] : await q.query(
    `INSERT INTO telemetry_spans (trace_id, span_id, parent_span_id, name, kind, service, agent,
       session_id, start_ts, duration_ms, status_code, status_message, attributes, received_at)
     SELECT trace_id, span_id, parent_span_id, name, kind, service, agent, session_id, start_ts,
       duration_ms, status_code, status_message, attributes, $14
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[],
       $7::text[], $8::text[], $9::bigint[], $10::float8[], $11::integer[], $12::text[],
       $13::text[]) WITH ORDINALITY AS s (trace_id, span_id, parent_span_id, name, kind, service,
       agent, session_id, start_ts, duration_ms, status_code, status_message, attributes, n)
     ORDER BY n
     ON CONFLICT (trace_id, span_id) DO NOTHING RETURNING id`,
    [
      batch.spans.map((s) => s.trace_id),
      batch.spans.map((s) => s.span_id),
      batch.spans.map((s) => s.parent_span_id ?? null),
      batch.spans.map((s) => s.name),
      batch.spans.map((s) => s.kind),
      batch.spans.map((s) => s.service ?? null),
      batch.spans.map((s) => s.agent ?? null),
      batch.spans.map((s) => s.session_id ?? null),
      batch.spans.map((s) => s.start_ts),
      batch.spans.map((s) => s.duration_ms),
      batch.spans.map((s) => s.status_code),
      batch.spans.map((s) => s.status_message ?? null),
      batch.spans.map((s) => s.attributes),
      receivedAt,
    ],
  );
  const logs = batch.logs.length === 0 ? [] : await q.query(
    `INSERT INTO telemetry_logs (dedupe_key, ts, service, agent, session_id, event_name, severity,
       body, attributes, trace_id, span_id, received_at)
     SELECT dedupe_key, ts, service, agent, session_id, event_name, severity, body, attributes,
       trace_id, span_id, $11
     FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[],
       $7::integer[], $8::text[], $9::text[], $10::text[], $12::text[]) WITH ORDINALITY AS l (
       dedupe_key, ts, service, agent, session_id, event_name, severity, body, attributes,
       trace_id, span_id, n)
     ORDER BY n
     ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
    [
      batch.logs.map((l) => l.dedupe_key ?? null),
      batch.logs.map((l) => l.ts),
      batch.logs.map((l) => l.service ?? null),
      batch.logs.map((l) => l.agent ?? null),
      batch.logs.map((l) => l.session_id ?? null),
      batch.logs.map((l) => l.event_name ?? null),
      batch.logs.map((l) => l.severity ?? null),
      batch.logs.map((l) => l.body ?? null),
      batch.logs.map((l) => l.attributes),
      batch.logs.map((l) => l.trace_id ?? null),
      receivedAt,
      batch.logs.map((l) => l.span_id ?? null),
    ],
  );
  const points = batch.metricPoints;
  if (points.length > 0) {
    await q.query(
      `INSERT INTO telemetry_metric_points (name, unit, kind, temporality, monotonic, ts,
         start_ts, value, count, sum, min, max, service, agent, session_id, attributes,
         received_at)
       SELECT name, unit, kind, temporality, monotonic, ts, start_ts, value, count, sum, min, max,
         service, agent, session_id, attributes, $17
       FROM unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::integer[],
         $6::bigint[], $7::bigint[], $8::float8[], $9::bigint[], $10::float8[], $11::float8[],
         $12::float8[], $13::text[], $14::text[], $15::text[], $16::text[]) WITH ORDINALITY AS p (
         name, unit, kind, temporality, monotonic, ts, start_ts, value, count, sum, min, max,
         service, agent, session_id, attributes, n)
       ORDER BY n`,
      [
        points.map((p) => p.name),
        points.map((p) => p.unit ?? null),
        points.map((p) => p.kind),
        points.map((p) => p.temporality ?? null),
        points.map((p) => p.monotonic === undefined ? null : p.monotonic ? 1 : 0),
        points.map((p) => p.ts),
        points.map((p) => p.start_ts ?? null),
        points.map((p) => p.value ?? null),
        points.map((p) => p.count ?? null),
        points.map((p) => p.sum ?? null),
        points.map((p) => p.min ?? null),
        points.map((p) => p.max ?? null),
        points.map((p) => p.service ?? null),
        points.map((p) => p.agent ?? null),
        points.map((p) => p.session_id ?? null),
        points.map((p) => p.attributes),
        receivedAt,
      ],
    );
  }
  return { spans: spans.length, logs: logs.length, metric_points: points.length };
}
