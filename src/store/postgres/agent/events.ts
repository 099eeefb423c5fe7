/**
 * Hook events on PostgreSQL: stored once per delivery id, each one also
 * creating or refreshing its session, and the reads of a session's events —
 * SQLite's statements (../../agent/events.ts) in PostgreSQL's dialect.
 *
 * @module
 */
import type { EventRow, StoredEventRow, TimelineEventRow, ToolCount } from "../../agent/events.ts";
import { TOOL_COUNT } from "../../agent/events.ts";
import type { HookEvent } from "../../../model/agent_records.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { lockSessions, PG_EARLIEST_START } from "./session_totals.ts";

const INSERT_EVENT = `
      INSERT INTO events (delivery_id, agent, session_id, cwd, project, event_type, ts,
        tool_name, tool_use_id, file_path, command, command_prefix, success, error, duration_ms,
        prompt, model, received_at, raw, person, host)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
        $20, $21)
      ON CONFLICT (delivery_id) DO NOTHING RETURNING id
    `;

const UPSERT_HOOK_SESSION = `
      INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, model,
        transcript_path, person, host, has_hooks, event_count)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, 1)
      ON CONFLICT (session_id) DO UPDATE SET
        cwd = coalesce(excluded.cwd, sessions.cwd),
        project = coalesce(sessions.project, excluded.project),
        started_at = ${PG_EARLIEST_START},
        last_activity_at = greatest(sessions.last_activity_at, excluded.last_activity_at),
        model = coalesce(excluded.model, sessions.model),
        transcript_path = coalesce(sessions.transcript_path, excluded.transcript_path),
        person = coalesce(sessions.person, excluded.person),
        host = coalesce(sessions.host, excluded.host),
        has_hooks = 1,
        event_count = sessions.event_count + 1
    `;

/** Inserts a hook event once per delivery id; false when it was already stored. */
export function insertHookEvent(
  q: PgQueryable,
  event: HookEvent,
  deliveryId: string,
  receivedAt: number,
): Promise<boolean> {
  return q.write(async (w) => {
    await lockSessions(w, [event.session_id]);
    const inserted = await w.query(INSERT_EVENT, [
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
    ]);
    if (inserted.length === 0) return false;
    await w.query(UPSERT_HOOK_SESSION, [
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
    ]);
    return true;
  });
}

const EVENT = new RowReader<EventRow>("event", {
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
export async function recentToolEvents(
  q: PgQueryable,
  sessionId: string,
  limit: number,
): Promise<EventRow[]> {
  return EVENT.all(
    await q.query(
      `SELECT ${EVENT.columns} FROM events
       WHERE session_id = $1 AND event_type IN ('PreToolUse', 'PostToolUse', 'PostToolUseFailure')
       ORDER BY ts DESC, id DESC LIMIT $2`,
      [sessionId, limit],
    ),
  );
}

/** Tool name → calls and failures for a session, from its hook events. */
export async function toolCountsFromEvents(
  q: PgQueryable,
  sessionId: string,
): Promise<ToolCount[]> {
  return TOOL_COUNT.all(
    await q.query(
      `SELECT tool_name, count(*) AS calls,
         count(*) FILTER (WHERE event_type = 'PostToolUseFailure' OR success = 0) AS failures
       FROM events WHERE session_id = $1 AND tool_name IS NOT NULL
         AND event_type IN ('PostToolUse', 'PostToolUseFailure')
       GROUP BY tool_name ORDER BY calls DESC, tool_name COLLATE "C"`,
      [sessionId],
    ),
  );
}

const TIMELINE_EVENT = new RowReader<TimelineEventRow>("timeline event", {
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
export async function timelineEvents(
  q: PgQueryable,
  sessionId: string,
  limit: number,
  textChars: number,
): Promise<TimelineEventRow[]> {
  return TIMELINE_EVENT.all(
    await q.query(
      `SELECT ts, event_type, tool_name, tool_use_id, file_path, command_prefix, success,
         left(error, $1) AS error, duration_ms, left(prompt, $1) AS prompt
       FROM events WHERE session_id = $2 ORDER BY ts, id LIMIT $3`,
      [textChars, sessionId, limit],
    ),
  );
}

const STORED_EVENT = new RowReader<StoredEventRow>("stored event", {
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
});

/** A session's latest hook events since a time, with their normalized fields, oldest first. */
export async function storedEventsSince(
  q: PgQueryable,
  sessionId: string,
  since: number,
  limit: number,
): Promise<StoredEventRow[]> {
  return STORED_EVENT.all(
    await q.query(
      `SELECT ${STORED_EVENT.columns} FROM events WHERE session_id = $1 AND ts >= $2
       ORDER BY ts DESC, id DESC LIMIT $3`,
      [sessionId, since, limit],
    ),
  ).reverse();
}
