/**
 * What sessions did on PostgreSQL, read from hook events and transcripts
 * together: tool calls and failures, files touched, the latest prompt —
 * SQLite's statements (../../agent/session_activity.ts) in PostgreSQL's
 * dialect. A session includes what the sub-agents it started did.
 *
 * @module
 */
import { TOOL_COUNT, type ToolCount } from "../../agent/events.ts";
import {
  laterPrompt,
  PROMPT,
  TOOL_CALL_TOTALS,
  TOOL_COUNT_SESSIONS,
  type ToolCallTotals,
  TOUCHED_FILE,
  type TouchedFile,
} from "../../agent/session_activity.ts";
import type { PgQueryable } from "../connection.ts";
import { readOptionalRow, readRow, readRows } from "../reads.ts";

/** A session (`$1`) and its sub-agents, as a subquery of session ids. */
const FAMILY = `(SELECT $1::text UNION ALL
  SELECT session_id FROM sessions WHERE is_subagent = 1 AND parent_session_id = $1)`;

/** Tool name → calls and failures for a session and its sub-agents, from their transcripts. */
export function toolCountsFromMessages(q: PgQueryable, sessionId: string): Promise<ToolCount[]> {
  return readRows(
    q,
    TOOL_COUNT,
    `SELECT u.tool_name AS tool_name, count(*) AS calls,
       count(*) FILTER (WHERE r.is_error = 1) AS failures
     FROM messages u LEFT JOIN messages r
       ON r.session_id = u.session_id AND r.tool_use_id = u.tool_use_id
         AND r.message_type = 'tool_result'
     WHERE u.session_id IN ${FAMILY} AND u.message_type = 'tool_use' AND u.tool_name IS NOT NULL
     GROUP BY u.tool_name ORDER BY calls DESC, u.tool_name COLLATE "C"`,
    [sessionId],
  );
}

/** Files a session (with its sub-agents) touched, newest first, from hooks and transcripts. */
export function recentFiles(
  q: PgQueryable,
  sessionId: string,
  limit: number,
): Promise<TouchedFile[]> {
  // Each file once, with the tool that touched it last (SQLite's bare column beside max()).
  return readRows(
    q,
    TOUCHED_FILE,
    `SELECT path, tool_name, ts FROM (
       SELECT DISTINCT ON (path) path, tool_name, ts FROM (
         SELECT file_path AS path, tool_name, ts FROM events
           WHERE session_id = $1 AND file_path IS NOT NULL
             AND event_type IN ('PreToolUse', 'PostToolUse')
         UNION ALL
         SELECT file_path AS path, tool_name, ts FROM messages
           WHERE session_id IN ${FAMILY} AND file_path IS NOT NULL AND message_type = 'tool_use'
       ) touched ORDER BY path, ts DESC
     ) latest ORDER BY ts DESC LIMIT $2`,
    [sessionId, limit],
  );
}

/** The latest user prompt of a session, from hooks or transcript. */
export async function lastPrompt(
  q: PgQueryable,
  sessionId: string,
): Promise<{ text: string; ts: number } | undefined> {
  const [fromHook, fromTranscript] = await Promise.all([
    readOptionalRow(
      q,
      PROMPT,
      `SELECT prompt AS text, ts FROM events
       WHERE session_id = $1 AND event_type = 'UserPromptSubmit' AND prompt IS NOT NULL
       ORDER BY ts DESC LIMIT 1`,
      [sessionId],
    ),
    readOptionalRow(
      q,
      PROMPT,
      `SELECT text, ts FROM messages WHERE session_id = $1 AND message_type = 'user' AND text <> ''
       ORDER BY ts DESC LIMIT 1`,
      [sessionId],
    ),
  ]);
  return laterPrompt(fromHook, fromTranscript);
}

/**
 * Tool calls and failures in `[since, until)` across the most recently active sessions: from
 * the transcript where a session has one, else from its hook events.
 */
export function toolCallTotals(
  q: PgQueryable,
  since: number,
  until: number,
): Promise<ToolCallTotals> {
  return readRow(
    q,
    TOOL_CALL_TOTALS,
    `WITH s AS (
         SELECT session_id FROM sessions WHERE last_activity_at >= $1 AND is_subagent = 0
         ORDER BY last_activity_at DESC LIMIT ${TOOL_COUNT_SESSIONS}
       ),
       family AS (
         SELECT session_id, session_id AS root FROM s
         UNION ALL
         SELECT c.session_id, c.parent_session_id FROM sessions c
         WHERE c.is_subagent = 1 AND c.parent_session_id IN (SELECT session_id FROM s)
       ),
       m AS (
         SELECT f.root AS session_id, count(*) FILTER (WHERE message_type = 'tool_use') AS calls,
           count(*) FILTER (WHERE message_type = 'tool_result' AND is_error = 1) AS failures
         FROM messages JOIN family f USING (session_id) WHERE ts >= $1 AND ts < $2
           AND message_type IN ('tool_use', 'tool_result')
         GROUP BY f.root
       ),
       e AS (
         SELECT session_id, count(*) AS calls,
           count(*) FILTER (WHERE event_type = 'PostToolUseFailure' OR success = 0) AS failures
         FROM events WHERE session_id IN (SELECT session_id FROM s) AND ts >= $1 AND ts < $2
           AND event_type IN ('PostToolUse', 'PostToolUseFailure')
         GROUP BY session_id
       )
       SELECT
         coalesce(sum(CASE WHEN coalesce(m.calls, 0) > 0 THEN m.calls ELSE coalesce(e.calls, 0) END), 0) AS calls,
         coalesce(sum(CASE WHEN coalesce(m.calls, 0) > 0 THEN m.failures ELSE coalesce(e.failures, 0) END), 0) AS failures,
         count(*) AS sessions
       FROM s LEFT JOIN m USING (session_id) LEFT JOIN e USING (session_id)`,
    [since, until],
  );
}
