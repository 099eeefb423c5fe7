/**
 * What sessions did, read from their hook events and transcripts together:
 * tool calls and failures, files touched, the latest prompt. A session that
 * started sub-agents includes what they did (its hook events already do; its
 * transcript does not, so their transcripts are read with it).
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { TOOL_COUNT, type ToolCount } from "./events.ts";

/**
 * A session and its sub-agents, as a subquery of session ids: what a session did includes
 * what the sub-agents it started did (its hook events already do).
 */
const FAMILY = `(SELECT ? UNION ALL
  SELECT session_id FROM sessions WHERE is_subagent = 1 AND parent_session_id = ?)`;

/** Tool name → calls and failures for a session and its sub-agents, from their transcripts. */
export function toolCountsFromMessages(db: DatabaseSync, sessionId: string): ToolCount[] {
  return TOOL_COUNT.all(
    prepared(
      db,
      `SELECT u.tool_name AS tool_name, count(*) AS calls,
       sum(CASE WHEN r.is_error = 1 THEN 1 ELSE 0 END) AS failures
     FROM messages u LEFT JOIN messages r
       ON r.session_id = u.session_id AND r.tool_use_id = u.tool_use_id AND r.message_type = 'tool_result'
     WHERE u.session_id IN ${FAMILY} AND u.message_type = 'tool_use' AND u.tool_name IS NOT NULL
     GROUP BY u.tool_name ORDER BY calls DESC, u.tool_name`,
    ).all(sessionId, sessionId),
  );
}

/** A file a session touched. */
export interface TouchedFile {
  /** The file. */
  path: string;
  /** The tool that last touched it. */
  tool_name: string | null;
  /** When, ms. */
  ts: number;
}

/** Reads {@linkcode TouchedFile} rows (on either backend). */
export const TOUCHED_FILE = new RowReader<TouchedFile>("touched file", {
  path: "text",
  tool_name: "text?",
  ts: "number",
});

/** Files a session (with its sub-agents) touched, newest first, from hooks and transcripts. */
export function recentFiles(db: DatabaseSync, sessionId: string, limit: number): TouchedFile[] {
  return TOUCHED_FILE.all(
    prepared(
      db,
      `SELECT path, tool_name, max(ts) AS ts FROM (
       SELECT file_path AS path, tool_name, ts FROM events
         WHERE session_id = ? AND file_path IS NOT NULL AND event_type IN ('PreToolUse', 'PostToolUse')
       UNION ALL
       SELECT file_path AS path, tool_name, ts FROM messages
         WHERE session_id IN ${FAMILY} AND file_path IS NOT NULL AND message_type = 'tool_use'
     ) GROUP BY path ORDER BY ts DESC LIMIT ?`,
    ).all(sessionId, sessionId, sessionId, limit),
  );
}

/** Reads a prompt and its time (on either backend). */
export const PROMPT = new RowReader<{ text: string; ts: number }>("prompt", {
  text: "text",
  ts: "number",
});

/** The latest user prompt of a session, from hooks or transcript. */
export function lastPrompt(
  db: DatabaseSync,
  sessionId: string,
): { text: string; ts: number } | undefined {
  const fromHook = PROMPT.optional(
    prepared(
      db,
      `SELECT prompt AS text, ts FROM events WHERE session_id = ? AND event_type = 'UserPromptSubmit'
     AND prompt IS NOT NULL ORDER BY ts DESC LIMIT 1`,
    ).get(sessionId),
  );
  const fromTranscript = PROMPT.optional(
    prepared(
      db,
      `SELECT text, ts FROM messages WHERE session_id = ? AND message_type = 'user' AND text != ''
     ORDER BY ts DESC LIMIT 1`,
    ).get(sessionId),
  );
  return laterPrompt(fromHook, fromTranscript);
}

/** The later of a hook's and a transcript's latest prompt (the hook's on a tie; both backends). */
export function laterPrompt(
  fromHook: { text: string; ts: number } | undefined,
  fromTranscript: { text: string; ts: number } | undefined,
): { text: string; ts: number } | undefined {
  if (fromHook === undefined) return fromTranscript;
  if (fromTranscript === undefined) return fromHook;
  return fromHook.ts >= fromTranscript.ts ? fromHook : fromTranscript;
}

/** Sessions examined at most when counting tool calls over a window. */
export const TOOL_COUNT_SESSIONS = 1000;

/** Tool calls and failures over a window. */
export interface ToolCallTotals {
  /** Tool calls. */
  calls: number;
  /** Failed calls. */
  failures: number;
  /** Sessions counted (parents). */
  sessions: number;
}

/** Reads {@linkcode ToolCallTotals} (on either backend). */
export const TOOL_CALL_TOTALS = new RowReader<ToolCallTotals>("tool call totals", {
  calls: "number",
  failures: "number",
  sessions: "number",
});

/**
 * Tool calls and failures in `[since, until)`, across the most recently
 * active sessions: from the transcript where a session has one, else from
 * its hook events, so a session reported both ways is counted once. A
 * sub-agent's transcript counts toward its parent (whose hook events include
 * the sub-agent's calls); `sessions` counts parents.
 */
export function toolCallTotals(db: DatabaseSync, since: number, until: number): ToolCallTotals {
  return TOOL_CALL_TOTALS.one(
    prepared(
      db,
      `WITH s AS (
       SELECT session_id FROM sessions WHERE last_activity_at >= ? AND is_subagent = 0
       ORDER BY last_activity_at DESC LIMIT ${TOOL_COUNT_SESSIONS}
     ),
     family AS (
       SELECT session_id, session_id AS root FROM s
       UNION ALL
       SELECT c.session_id, c.parent_session_id FROM sessions c
       WHERE c.is_subagent = 1 AND c.parent_session_id IN (SELECT session_id FROM s)
     ),
     m AS (
       SELECT f.root AS session_id, sum(message_type = 'tool_use') AS calls,
         sum(message_type = 'tool_result' AND is_error = 1) AS failures
       FROM messages JOIN family f USING (session_id) WHERE ts >= ? AND ts < ?
         AND message_type IN ('tool_use', 'tool_result')
       GROUP BY f.root
     ),
     e AS (
       SELECT session_id, count(*) AS calls,
         sum(event_type = 'PostToolUseFailure' OR success = 0) AS failures
       FROM events WHERE session_id IN (SELECT session_id FROM s) AND ts >= ? AND ts < ?
         AND event_type IN ('PostToolUse', 'PostToolUseFailure')
       GROUP BY session_id
     )
     SELECT
       coalesce(sum(CASE WHEN coalesce(m.calls, 0) > 0 THEN m.calls ELSE coalesce(e.calls, 0) END), 0) AS calls,
       coalesce(sum(CASE WHEN coalesce(m.calls, 0) > 0 THEN m.failures ELSE coalesce(e.failures, 0) END), 0) AS failures,
       count(*) AS sessions
     FROM s LEFT JOIN m USING (session_id) LEFT JOIN e USING (session_id)`,
    ).get(since, since, until, since, until),
  );
}
