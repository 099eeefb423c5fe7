/**
 * One OTLP export stored: its raw signals, sessions, model calls, tool calls
 * and API errors, in one transaction, so a failure stores nothing of it.
 *
 * A model call or tool call may be described by several records: each is
 * one row, merged field by field (call_merge.ts), and counted once with what
 * transcripts hold (model_calls.ts, tool_calls.ts, settle.ts).
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../model/agent_records.ts";
import type { TelemetryBatch, TelemetrySessionInput } from "../../model/telemetry_records.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { prepared } from "../statements.ts";
import { insertApiError } from "./api_errors.ts";
import { countModelCalls, mergeModelCall, type StoredModelCall } from "./model_calls.ts";
import { sessionHasTranscript } from "./settle.ts";
import { insertSignals, type SignalCounts } from "./signals.ts";
import { mergeToolCall } from "./tool_calls.ts";

/** What a stored batch added. */
export interface TelemetryWriteCounts extends SignalCounts {
  /** Model call records merged. */
  model_calls: number;
  /** Tool call records merged. */
  tool_calls: number;
  /** API errors newly stored. */
  api_errors: number;
  /** Sessions touched. */
  sessions: string[];
}

/**
 * Stores one export's records. `priceOf` prices a model call counted from
 * telemetry (the same pricing as transcript usage); `receivedAt` stamps the
 * raw records.
 */
export function storeTelemetryBatch(
  db: DatabaseSync,
  batch: TelemetryBatch,
  priceOf: (record: CountedUsage) => CallPrice,
  receivedAt: number,
): TelemetryWriteCounts {
  return writing(db, () => {
    const counts: TelemetryWriteCounts = {
      ...insertSignals(db, batch, receivedAt),
      model_calls: 0,
      tool_calls: 0,
      api_errors: 0,
      sessions: [...batch.sessions.keys()],
    };
    for (const session of batch.sessions.values()) upsertSession(db, session);
    // Whether each session has a transcript, asked once per export.
    const transcripts = new Map<string, boolean>();
    const hasTranscript = (sessionId: string): boolean => {
      let known = transcripts.get(sessionId);
      if (known === undefined) {
        known = sessionHasTranscript(db, sessionId);
        transcripts.set(sessionId, known);
      }
      return known;
    };
    // The merged row of each call, as its last record left it.
    const merged = new Map<string, StoredModelCall>();
    for (const call of batch.modelCalls) {
      merged.set(call.call_key, mergeModelCall(db, call));
      counts.model_calls++;
    }
    countModelCalls(db, merged, hasTranscript, priceOf);
    for (const call of batch.toolCalls) {
      mergeToolCall(db, call, hasTranscript);
      counts.tool_calls++;
    }
    for (const error of batch.apiErrors) {
      if (insertApiError(db, error)) counts.api_errors++;
    }
    return counts;
  });
}

/**
 * The session in `sessions` (so telemetry-only sessions are listed like any other) and its
 * user and host in `telemetry_sessions`. A transcript's facts (cwd, project, model) are left as
 * they are; times only widen.
 */
function upsertSession(db: DatabaseSync, s: TelemetrySessionInput): void {
  prepared(
    db,
    `INSERT INTO sessions (session_id, agent, started_at, last_activity_at)
    VALUES (?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      started_at = CASE WHEN sessions.started_at <= 0 THEN excluded.started_at
        ELSE min(sessions.started_at, excluded.started_at) END,
      last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at)`,
  ).run(s.session_id, s.agent, s.first_seen, s.last_seen);
  prepared(
    db,
    `INSERT INTO telemetry_sessions (session_id, agent, service, service_version, user_id,
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
      last_seen = max(telemetry_sessions.last_seen, excluded.last_seen)`,
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
