/**
 * One OTLP export stored on PostgreSQL: its raw signals, sessions, model calls, tool calls and
 * API errors in one write, so a failure stores nothing of it — SQLite's steps, rows and
 * parameters (../../telemetry/telemetry_batch.ts, ../../telemetry/signals.ts), the raw
 * signals of each kind stored by one statement over column arrays.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../../model/agent_records.ts";
import type { TelemetryBatch, TelemetrySessionInput } from "../../../model/telemetry_records.ts";
import { prepareModelCalls } from "../../telemetry/model_calls.ts";
import { prepareToolCalls } from "../../telemetry/tool_calls.ts";
import { signalRows } from "../../telemetry/signals.ts";
import {
  TELEMETRY_SESSION_UPSERT,
  telemetrySessionRowValues,
  telemetrySessionValues,
  type TelemetryWriteCounts,
} from "../../telemetry/telemetry_batch.ts";
import { upsertSql } from "../../upserts.ts";
import { PG_UPSERT } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { unnestInsert } from "../unnest.ts";
import { lockSessions } from "../agent/session_totals.ts";
import { insertApiError } from "./cost_and_errors.ts";
import { storeModelCalls } from "./model_calls.ts";
import { sessionHasTranscript } from "./settle.ts";
import { storeToolCalls } from "./tool_calls.ts";

/** The spans of an export, in `signalRows` order; a span already stored is not again. */
const INSERT_SPANS = unnestInsert(
  "telemetry_spans",
  {
    trace_id: "text",
    span_id: "text",
    parent_span_id: "text",
    name: "text",
    kind: "integer",
    service: "text",
    agent: "text",
    session_id: "text",
    start_ts: "bigint",
    duration_ms: "float8",
    status_code: "integer",
    status_message: "text",
    attributes: "text",
    received_at: "bigint",
  },
  "ON CONFLICT (trace_id, span_id) DO NOTHING RETURNING id",
);

/** The log records of an export; one whose key is stored already is not again. */
const INSERT_LOGS = unnestInsert(
  "telemetry_logs",
  {
    dedupe_key: "text",
    ts: "bigint",
    service: "text",
    agent: "text",
    session_id: "text",
    event_name: "text",
    severity: "integer",
    body: "text",
    attributes: "text",
    trace_id: "text",
    span_id: "text",
    received_at: "bigint",
  },
  "ON CONFLICT (dedupe_key) DO NOTHING RETURNING id",
);

/** The metric points of an export (each stored). */
const INSERT_METRIC_POINTS = unnestInsert("telemetry_metric_points", {
  name: "text",
  unit: "text",
  kind: "text",
  temporality: "integer",
  monotonic: "integer",
  ts: "bigint",
  start_ts: "bigint",
  value: "float8",
  count: "bigint",
  sum: "float8",
  min: "float8",
  max: "float8",
  service: "text",
  agent: "text",
  session_id: "text",
  attributes: "text",
  received_at: "bigint",
});

const UPSERT_TELEMETRY_SESSION = upsertSql(TELEMETRY_SESSION_UPSERT, PG_UPSERT);

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
    const signals = signalRows(batch, receivedAt);
    const counts: TelemetryWriteCounts = {
      spans: (await INSERT_SPANS.run(w, signals.spans)).length,
      logs: (await INSERT_LOGS.run(w, signals.logs)).length,
      metric_points: signals.metricPoints.length,
      model_calls: 0,
      tool_calls: 0,
      api_errors: 0,
      sessions: [...batch.sessions.keys()],
    };
    await INSERT_METRIC_POINTS.run(w, signals.metricPoints);
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
    // Each call's records merged in memory, then with its stored row: a few statements for
    // all of an export's calls (call_merge.ts).
    counts.model_calls = await storeModelCalls(
      w,
      prepareModelCalls(batch.modelCalls),
      hasTranscript,
      priceOf,
    );
    counts.tool_calls = await storeToolCalls(w, prepareToolCalls(batch.toolCalls), hasTranscript);
    for (const error of batch.apiErrors) {
      if (await insertApiError(w, error)) counts.api_errors++;
    }
    return counts;
  });
}

/**
 * The session in `sessions` and its user and host in `telemetry_sessions` (times only widen;
 * the person and host stay those of the first hook or export that named the session).
 */
async function upsertSession(q: PgQueryable, s: TelemetrySessionInput): Promise<void> {
  await q.query(
    `INSERT INTO sessions (session_id, agent, started_at, last_activity_at, person, host)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (session_id) DO UPDATE SET
       started_at = CASE WHEN sessions.started_at <= 0 THEN excluded.started_at
         ELSE least(sessions.started_at, excluded.started_at) END,
       last_activity_at = greatest(sessions.last_activity_at, excluded.last_activity_at),
       person = coalesce(sessions.person, excluded.person),
       host = coalesce(sessions.host, excluded.host)`,
    telemetrySessionRowValues(s),
  );
  await q.query(UPSERT_TELEMETRY_SESSION, telemetrySessionValues(s));
}
