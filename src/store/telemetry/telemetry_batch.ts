/**
 * One OTLP export stored: its raw signals, sessions, model calls, tool calls
 * and API errors, in one transaction (so a failure stores nothing of it), or
 * in a few, taking turns with other writers between the export's parts.
 *
 * Storing comes in two steps: {@linkcode prepareTelemetryPart} does what
 * needs no store (every signal's row, each call's records merged among
 * themselves), so an intake worker does it before its turn to write; the
 * store step then only reads the rows a part's calls name, and writes.
 *
 * A model call or tool call may be described by several records: each is
 * one row, merged field by field (call_merge.ts), and counted once with what
 * transcripts hold (model_calls.ts, tool_calls.ts, settle.ts).
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../model/agent_records.ts";
import type {
  ApiErrorInput,
  TelemetryBatch,
  TelemetrySessionInput,
} from "../../model/telemetry_records.ts";
import {
  type DatabaseSync,
  letWaitingWritersIn,
  transaction,
  writersWaiting,
  writing,
} from "../database.ts";
import type { SqlParam } from "../rows.ts";
import { SQLITE_UPSERT, upsertSql, type UpsertTable } from "../upserts.ts";
import { prepared } from "../statements.ts";
import { insertApiError } from "./api_errors.ts";
import { type PreparedModelCalls, prepareModelCalls, storeModelCalls } from "./model_calls.ts";
import { sessionHasTranscript } from "./settle.ts";
import { insertSignalRows, type SignalCounts, type SignalRows, signalRows } from "./signals.ts";
import { type PreparedToolCalls, prepareToolCalls, storeToolCalls } from "./tool_calls.ts";

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

/** How a call counted from telemetry is priced (the same pricing as transcript usage). */
export type TelemetryPricing = (record: CountedUsage) => CallPrice;

/** One part of an export (a `TelemetryBatch`), made ready to store. */
export interface PreparedTelemetryPart {
  /** Its spans, log records and metric points as rows. */
  signals: SignalRows;
  /** Sessions named. */
  sessions: TelemetrySessionInput[];
  /** Model call records, merged among themselves. */
  modelCalls: PreparedModelCalls;
  /** Tool call records, merged among themselves. */
  toolCalls: PreparedToolCalls;
  /** API errors. */
  apiErrors: readonly ApiErrorInput[];
}

/** Readies one part of an export for storing (no store needed), stamped `receivedAt`. */
export function prepareTelemetryPart(
  batch: TelemetryBatch,
  receivedAt: number,
): PreparedTelemetryPart {
  return {
    signals: signalRows(batch, receivedAt),
    sessions: [...batch.sessions.values()],
    modelCalls: prepareModelCalls(batch.modelCalls),
    toolCalls: prepareToolCalls(batch.toolCalls),
    apiErrors: batch.apiErrors,
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

/** Stores the prepared parts of one export in one transaction (or in the one open on `db`). */
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

/** Counts of nothing stored yet. */
export function noCounts(): TelemetryWriteCounts {
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
export function transcriptCheck(db: DatabaseSync): (sessionId: string) => boolean {
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
export function storePart(
  db: DatabaseSync,
  part: PreparedTelemetryPart,
  priceOf: TelemetryPricing,
  hasTranscript: (sessionId: string) => boolean,
  counts: TelemetryWriteCounts,
): void {
  const signals = insertSignalRows(db, part.signals);
  counts.spans += signals.spans;
  counts.logs += signals.logs;
  counts.metric_points += signals.metric_points;
  for (const session of part.sessions) {
    upsertSession(db, session);
    counts.sessions.push(session.session_id);
  }
  counts.model_calls += storeModelCalls(db, part.modelCalls, hasTranscript, priceOf);
  counts.tool_calls += storeToolCalls(db, part.toolCalls, hasTranscript);
  for (const error of part.apiErrors) {
    if (insertApiError(db, error)) counts.api_errors++;
  }
}

/**
 * The upsert of a session's user and host as telemetry tells them (both backends; its
 * parameters are {@linkcode telemetrySessionValues}): what is known stays unless told anew,
 * and the times only widen.
 */
export const TELEMETRY_SESSION_UPSERT: UpsertTable = {
  table: "telemetry_sessions",
  key: "session_id",
  columns: {
    session_id: "insert",
    agent: "insert",
    service: "latest",
    service_version: "latest",
    user_id: "latest",
    user_email: "latest",
    organization_id: "latest",
    host_name: "latest",
    host_arch: "latest",
    os_type: "latest",
    terminal_type: "latest",
    first_seen: "least",
    last_seen: "greatest",
  },
};

const UPSERT_TELEMETRY_SESSION = upsertSql(TELEMETRY_SESSION_UPSERT, SQLITE_UPSERT);

/**
 * The session in `sessions` (so telemetry-only sessions are listed like any other) and its
 * user and host in `telemetry_sessions`. A transcript's facts (cwd, project, model) are left as
 * they are; times only widen; the person and host stay those of the first hook or export that
 * named them, as a hook's upsert keeps them.
 */
function upsertSession(db: DatabaseSync, s: TelemetrySessionInput): void {
  prepared(
    db,
    `INSERT INTO sessions (session_id, agent, started_at, last_activity_at, person, host)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      started_at = CASE WHEN sessions.started_at <= 0 THEN excluded.started_at
        ELSE min(sessions.started_at, excluded.started_at) END,
      last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at),
      person = coalesce(sessions.person, excluded.person),
      host = coalesce(sessions.host, excluded.host)`,
  ).run(...telemetrySessionRowValues(s));
  prepared(db, UPSERT_TELEMETRY_SESSION).run(...telemetrySessionValues(s));
}

/**
 * The parameters of the upsert of the `sessions` row an export names (`session_id, agent,
 * started_at, last_activity_at, person, host`, on both backends).
 */
export function telemetrySessionRowValues(s: TelemetrySessionInput): SqlParam[] {
  return [s.session_id, s.agent, s.first_seen, s.last_seen, s.person ?? null, s.host ?? null];
}

/**
 * The parameters of the upsert of a session's telemetry facts (`session_id, agent, service,
 * service_version, user_id, user_email, organization_id, host_name, host_arch, os_type,
 * terminal_type, first_seen, last_seen`, on both backends).
 */
export function telemetrySessionValues(s: TelemetrySessionInput): SqlParam[] {
  return [
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
  ];
}
