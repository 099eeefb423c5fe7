/**
 * Hook events on PostgreSQL: stored once per delivery id, each one also
 * creating or refreshing its session, and the reads of a session's events —
 * SQLite's statements (../../agent/events.ts) in PostgreSQL's dialect.
 *
 * @module
 */
import {
  EVENT,
  type EventRow,
  HOOK_SESSION_UPSERT,
  hookEventValues,
  hookSessionValues,
  STORED_EVENT,
  type StoredEventRow,
  TIMELINE_EVENT,
  type TimelineEventRow,
  TOOL_COUNT,
  type ToolCount,
} from "../../agent/events.ts";
import type { HookEvent } from "../../../model/agent_records.ts";
import { upsertSql } from "../../upserts.ts";
import { PG_UPSERT } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows, wroteAny } from "../reads.ts";
import { lockSessions } from "./session_totals.ts";

const INSERT_EVENT = `
      INSERT INTO events (delivery_id, agent, session_id, cwd, project, event_type, ts,
        tool_name, tool_use_id, file_path, command, command_prefix, success, error, duration_ms,
        prompt, model, received_at, raw, person, host)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
        $20, $21)
      ON CONFLICT (delivery_id) DO NOTHING RETURNING id
    `;

const UPSERT_HOOK_SESSION = upsertSql(HOOK_SESSION_UPSERT, PG_UPSERT);

/** Inserts a hook event once per delivery id; false when it was already stored. */
export function insertHookEvent(
  q: PgQueryable,
  event: HookEvent,
  deliveryId: string,
  receivedAt: number,
): Promise<boolean> {
  return q.write(async (w) => {
    await lockSessions(w, [event.session_id]);
    if (!await wroteAny(w, INSERT_EVENT, hookEventValues(event, deliveryId, receivedAt))) {
      return false;
    }
    await w.query(UPSERT_HOOK_SESSION, hookSessionValues(event));
    return true;
  });
}

/** The newest tool events of a session (Pre/Post/Failure), newest first. */
export function recentToolEvents(
  q: PgQueryable,
  sessionId: string,
  limit: number,
): Promise<EventRow[]> {
  return readRows(
    q,
    EVENT,
    `SELECT ${EVENT.columns} FROM events
     WHERE session_id = $1 AND event_type IN ('PreToolUse', 'PostToolUse', 'PostToolUseFailure')
     ORDER BY ts DESC, id DESC LIMIT $2`,
    [sessionId, limit],
  );
}

/** Tool name → calls and failures for a session, from its hook events. */
export function toolCountsFromEvents(q: PgQueryable, sessionId: string): Promise<ToolCount[]> {
  return readRows(
    q,
    TOOL_COUNT,
    `SELECT tool_name, count(*) AS calls,
       count(*) FILTER (WHERE event_type = 'PostToolUseFailure' OR success = 0) AS failures
     FROM events WHERE session_id = $1 AND tool_name IS NOT NULL
       AND event_type IN ('PostToolUse', 'PostToolUseFailure')
     GROUP BY tool_name ORDER BY calls DESC, tool_name COLLATE "C"`,
    [sessionId],
  );
}

/** A session's hook events in time order (at most `limit`). */
export function timelineEvents(
  q: PgQueryable,
  sessionId: string,
  limit: number,
  textChars: number,
): Promise<TimelineEventRow[]> {
  return readRows(
    q,
    TIMELINE_EVENT,
    `SELECT ts, event_type, tool_name, tool_use_id, file_path, command_prefix, success,
       left(error, $1) AS error, duration_ms, left(prompt, $1) AS prompt
     FROM events WHERE session_id = $2 ORDER BY ts, id LIMIT $3`,
    [textChars, sessionId, limit],
  );
}

/** A session's latest hook events since a time, with their normalized fields, oldest first. */
export async function storedEventsSince(
  q: PgQueryable,
  sessionId: string,
  since: number,
  limit: number,
): Promise<StoredEventRow[]> {
  const latest = await readRows(
    q,
    STORED_EVENT,
    `SELECT ${STORED_EVENT.columns} FROM events WHERE session_id = $1 AND ts >= $2
     ORDER BY ts DESC, id DESC LIMIT $3`,
    [sessionId, since, limit],
  );
  return latest.reverse();
}
