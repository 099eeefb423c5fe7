/**
 * What agents ran and what their tools returned, read for the security scan on PostgreSQL:
 * hook events' shell commands, transcript calls of the shell tools and transcript tool results
 * (their start) — SQLite's reads (../../agent/tool_texts.ts) in PostgreSQL's dialect, with the
 * same caps and the same rows.
 *
 * @module
 */
import {
  cappedToolTexts,
  RESULT_CHARS,
  type StoredToolCall,
  type StoredToolTexts,
  TOOL_CALL,
  type ToolTextWindow,
} from "../../agent/tool_texts.ts";
import type { PgQueryable } from "../connection.ts";
import { readOptionalRow } from "../reads.ts";

/** The hook events of the window that carry a shell command, at most `limit`. */
export async function hookShellCommands(
  q: PgQueryable,
  window: ToolTextWindow,
  limit: number,
): Promise<StoredToolTexts> {
  const rows = await q.query(
    `SELECT ts, agent, session_id, tool_name, tool_use_id, command AS text
    FROM events WHERE ts >= $1 AND ts < $2 AND command IS NOT NULL AND command <> ''
    ORDER BY ts DESC LIMIT $3`,
    [window.since, window.until, limit + 1],
  );
  return cappedToolTexts("hook", rows, limit);
}

/** Only sessions active since the window began: messages are indexed by session, then time. */
const ACTIVE_SESSIONS =
  "session_id IN (SELECT session_id FROM sessions WHERE last_activity_at >= $1)";

/**
 * The transcript calls of the window to the tools named `shellTools` (lower case), their
 * input, at most `limit`.
 */
export async function transcriptShellCalls(
  q: PgQueryable,
  window: ToolTextWindow,
  shellTools: readonly string[],
  limit: number,
): Promise<StoredToolTexts> {
  // An empty list matches no tool, as SQLite's `IN (NULL)` does.
  const rows = await q.query(
    `SELECT ts, agent, session_id, tool_name, tool_use_id, text FROM messages
    WHERE ${ACTIVE_SESSIONS} AND ts >= $1 AND ts < $2 AND message_type = 'tool_use'
      AND lower(tool_name) = ANY($3::text[])
    ORDER BY ts DESC LIMIT $4`,
    [window.since, window.until, [...shellTools], limit + 1],
  );
  return cappedToolTexts("transcript", rows, limit);
}

/** The transcript tool results of the window (their first 64 KiB), at most `limit`. */
export async function transcriptToolResults(
  q: PgQueryable,
  window: ToolTextWindow,
  limit: number,
): Promise<StoredToolTexts> {
  const rows = await q.query(
    `SELECT ts, agent, session_id, tool_name, tool_use_id,
      substr(text, 1, ${RESULT_CHARS}) AS text
    FROM messages
    WHERE ${ACTIVE_SESSIONS} AND ts >= $1 AND ts < $2 AND message_type = 'tool_result'
      AND text <> ''
    ORDER BY ts DESC LIMIT $3`,
    [window.since, window.until, limit + 1],
  );
  return cappedToolTexts("transcript", rows, limit);
}

/** The transcript tool call a result answers, when the transcript holds it. */
export function transcriptToolCall(
  q: PgQueryable,
  sessionId: string,
  toolUseId: string,
): Promise<StoredToolCall | undefined> {
  return readOptionalRow(
    q,
    TOOL_CALL,
    `SELECT tool_name, substr(text, 1, 2000) AS text FROM messages
    WHERE session_id = $1 AND tool_use_id = $2 AND message_type = 'tool_use' LIMIT 1`,
    [sessionId, toolUseId],
  );
}
