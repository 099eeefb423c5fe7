/**
 * Hook events: stored once per delivery id (so a replayed spool never
 * counts anything twice) with who sent each (a team server's person) from
 * which host, each one also creating or refreshing its session (which keeps
 * the person and host of the first hook that named them), and the reads of
 * a session's events the operations, the timeline and the anomaly rules
 * ask for.
 *
 * @module
 */
import type { HookEvent } from "../../model/agent_records.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader, type RowShape, type SqlParam } from "../rows.ts";
import { SQLITE_UPSERT, upsertSql, type UpsertTable } from "../upserts.ts";
import { prepared } from "../statements.ts";

const INSERT_EVENT = `
      INSERT OR IGNORE INTO events (delivery_id, agent, session_id, cwd, project, event_type, ts,
        tool_name, tool_use_id, file_path, command, command_prefix, success, error, duration_ms,
        prompt, model, received_at, raw, person, host)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    `;

/**
 * The upsert of the session a hook event names (both backends; its parameters are
 * {@linkcode hookSessionValues}): the session keeps the person and host of the first hook
 * that named them, and counts its events.
 */
export const HOOK_SESSION_UPSERT: UpsertTable = {
  table: "sessions",
  key: "session_id",
  columns: {
    session_id: "insert",
    agent: "insert",
    cwd: "latest",
    project: "first",
    started_at: "earliest_start",
    last_activity_at: "greatest",
    model: "latest",
    transcript_path: "first",
    person: "first",
    host: "first",
    has_hooks: ["replace", "1"],
    event_count: ["sum", "1"],
  },
};

const UPSERT_HOOK_SESSION = upsertSql(HOOK_SESSION_UPSERT, SQLITE_UPSERT);

/**
 * The parameters of the insert of a hook event, in its column order (the same on every
 * backend).
 */
export function hookEventValues(
  event: HookEvent,
  deliveryId: string,
  receivedAt: number,
): SqlParam[] {
  return [
    deliveryId,
    event.agent,
    event.session_id,
    event.cwd ?? null,
    event.project ?? event.cwd ?? null,
    event.event_type,
    event.ts,
    event.tool_name ?? null,
    event.tool_use_id ?? null,
    event.file_path ?? null,
    event.command ?? null,
    event.command_prefix ?? null,
    event.success === undefined ? null : event.success ? 1 : 0,
    event.error ?? null,
    event.duration_ms ?? null,
    event.prompt ?? null,
    event.model ?? null,
    receivedAt,
    JSON.stringify(event.raw ?? {}),
    event.person ?? null,
    event.host ?? null,
  ];
}

/**
 * The parameters of the upsert of the session a hook event names, in its column order (the
 * same on every backend).
 */
export function hookSessionValues(event: HookEvent): SqlParam[] {
  return [
    event.session_id,
    event.agent,
    event.cwd ?? null,
    event.project ?? event.cwd ?? null,
    event.ts,
    event.ts,
    event.model ?? null,
    event.transcript_path ?? null,
    event.person ?? null,
    event.host ?? null,
  ];
}

/** Inserts a hook event once per delivery id; false when it was already stored. */
export function insertHookEvent(
  db: DatabaseSync,
  event: HookEvent,
  deliveryId: string,
  receivedAt: number,
): boolean {
  return writing(db, () => {
    const inserted = prepared(db, INSERT_EVENT).run(
      ...hookEventValues(event, deliveryId, receivedAt),
    );
    if (Number(inserted.changes) === 0) return false;
    prepared(db, UPSERT_HOOK_SESSION).run(...hookSessionValues(event));
    return true;
  });
}

/** A stored hook event (the fields the operations show). */
export interface EventRow {
  /** Time, ms. */
  ts: number;
  /** Canonical event name. */
  event_type: string;
  /** Tool name. */
  tool_name: string | null;
  /** File touched. */
  file_path: string | null;
  /** Shell command. */
  command: string | null;
  /** Its first word(s). */
  command_prefix: string | null;
  /** 1, 0 or null. */
  success: number | null;
  /** Error summary. */
  error: string | null;
  /** Prompt text. */
  prompt: string | null;
}

/** Reads {@linkcode EventRow} rows (on either backend). */
export const EVENT = new RowReader<EventRow>("event", {
  ts: "number",
  event_type: "text",
  tool_name: "text?",
  file_path: "text?",
  command: "text?",
  command_prefix: "text?",
  success: "number?",
  error: "text?",
  prompt: "text?",
});

/** The newest tool events of a session (Pre/Post/Failure), newest first. */
export function recentToolEvents(db: DatabaseSync, sessionId: string, limit: number): EventRow[] {
  return EVENT.all(
    prepared(
      db,
      `SELECT ${EVENT.columns}
     FROM events WHERE session_id = ? AND event_type IN ('PreToolUse', 'PostToolUse', 'PostToolUseFailure')
     ORDER BY ts DESC, id DESC LIMIT ?`,
    ).all(sessionId, limit),
  );
}

/** Calls and failures of one tool. */
export interface ToolCount {
  /** Tool name. */
  tool_name: string;
  /** Calls. */
  calls: number;
  /** Failed calls. */
  failures: number;
}

/** Reads {@linkcode ToolCount} rows (here and in session_activity.ts). */
export const TOOL_COUNT = new RowReader<ToolCount>("tool count", {
  tool_name: "text",
  calls: "number",
  failures: "number",
});

/** Tool name → calls and failures for a session, from its hook events. */
export function toolCountsFromEvents(db: DatabaseSync, sessionId: string): ToolCount[] {
  return TOOL_COUNT.all(
    prepared(
      db,
      `SELECT tool_name, count(*) AS calls,
       sum(CASE WHEN event_type = 'PostToolUseFailure' OR success = 0 THEN 1 ELSE 0 END) AS failures
     FROM events WHERE session_id = ? AND tool_name IS NOT NULL
       AND event_type IN ('PostToolUse', 'PostToolUseFailure')
     GROUP BY tool_name ORDER BY calls DESC, tool_name`,
    ).all(sessionId),
  );
}

/** One hook event as the timeline shows it. */
export interface TimelineEventRow {
  /** Time, ms. */
  ts: number;
  /** Canonical event name. */
  event_type: string;
  /** Tool name. */
  tool_name: string | null;
  /** Pairs Pre/Post events. */
  tool_use_id: string | null;
  /** File touched. */
  file_path: string | null;
  /** The command's first words. */
  command_prefix: string | null;
  /** 1, 0 or null. */
  success: number | null;
  /** Error summary. */
  error: string | null;
  /** Reported duration, ms. */
  duration_ms: number | null;
  /** Prompt text, cut short. */
  prompt: string | null;
}

/** Reads {@linkcode TimelineEventRow} rows (on either backend). */
export const TIMELINE_EVENT = new RowReader<TimelineEventRow>("timeline event", {
  ts: "number",
  event_type: "text",
  tool_name: "text?",
  tool_use_id: "text?",
  file_path: "text?",
  command_prefix: "text?",
  success: "number?",
  error: "text?",
  duration_ms: "number?",
  prompt: "text?",
});

/** A session's hook events in time order (at most `limit`). */
export function timelineEvents(
  db: DatabaseSync,
  sessionId: string,
  limit: number,
  textChars: number,
): TimelineEventRow[] {
  return TIMELINE_EVENT.all(
    prepared(
      db,
      `SELECT ts, event_type, tool_name, tool_use_id, file_path, command_prefix, success,
       substr(error, 1, ?) AS error, duration_ms, substr(prompt, 1, ?) AS prompt
     FROM events WHERE session_id = ? ORDER BY ts, id LIMIT ?`,
    ).all(textChars, textChars, sessionId, limit),
  );
}

/** One stored hook event with the fields its intake normalized. */
export interface StoredEventRow {
  /** Canonical agent name. */
  agent: string;
  /** Session id. */
  session_id: string;
  /** Working directory. */
  cwd: string | null;
  /** Project root (the cwd when the payload named no better root). */
  project: string | null;
  /** Canonical event name. */
  event_type: string;
  /** Time, ms. */
  ts: number;
  /** Tool name. */
  tool_name: string | null;
  /** The tool call's id. */
  tool_use_id: string | null;
  /** First file touched. */
  file_path: string | null;
  /** Shell command. */
  command: string | null;
  /** Its first word(s). */
  command_prefix: string | null;
  /** 1, 0 or null (unknown). */
  success: number | null;
  /** Error summary. */
  error: string | null;
  /** Duration, ms. */
  duration_ms: number | null;
  /** Prompt text. */
  prompt: string | null;
  /** Model id. */
  model: string | null;
  /** The stored payload (redacted and capped), JSON. */
  raw: string;
}

/** The columns of {@linkcode StoredEventRow} (also what a push reads, beside its own). */
export const STORED_EVENT_SHAPE: RowShape<StoredEventRow> = {
  agent: "text",
  session_id: "text",
  cwd: "text?",
  project: "text?",
  event_type: "text",
  ts: "number",
  tool_name: "text?",
  tool_use_id: "text?",
  file_path: "text?",
  command: "text?",
  command_prefix: "text?",
  success: "number?",
  error: "text?",
  duration_ms: "number?",
  prompt: "text?",
  model: "text?",
  raw: "text",
};

/** Reads {@linkcode StoredEventRow} rows (on either backend). */
export const STORED_EVENT = new RowReader<StoredEventRow>("stored event", STORED_EVENT_SHAPE);

/**
 * A session's latest hook events since a time, with their normalized fields, oldest first
 * (what rebuilds perception's cache of a session without normalizing payloads again).
 */
export function storedEventsSince(
  db: DatabaseSync,
  sessionId: string,
  since: number,
  limit: number,
): StoredEventRow[] {
  return STORED_EVENT.all(
    prepared(
      db,
      `SELECT ${STORED_EVENT.columns} FROM events WHERE session_id = ? AND ts >= ?
       ORDER BY ts DESC, id DESC LIMIT ?`,
    ).all(sessionId, since, limit),
  ).reverse();
}
