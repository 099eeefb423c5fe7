/**
 * What agents ran and what their tools returned, as hook events and
 * transcripts keep it, read for the security scan: hook events' shell
 * commands (`events.command`), transcript calls of the shell tools (their
 * input) and transcript tool results (their start). The telemetry area reads
 * its own records of the same kind (`../telemetry/tool_texts.ts`) into the
 * same rows. All of it was redacted before it was stored. Newest first, each
 * read capped, so a long window costs a bounded read.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { type Row, RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** Where a stored text came from. */
export type ToolTextSource = "hook" | "transcript" | "telemetry";

/** The time a read covers. */
export interface ToolTextWindow {
  /** Start, ms (inclusive). */
  since: number;
  /** End, ms (exclusive). */
  until: number;
}

/** One stored text: a tool call's command or input, or a tool's result. */
export interface StoredToolText {
  /** Where it is kept. */
  source: ToolTextSource;
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Tool, when the record names it. */
  tool_name: string | null;
  /** The agent's tool call id, when the record names it. */
  tool_use_id: string | null;
  /**
   * The text: a hook event's command, a transcript tool call's input (JSON) or result, or a
   * telemetry record's attributes (JSON).
   */
  text: string;
}

/** Rows read, and whether the cap left older ones out. */
export interface StoredToolTexts {
  /** The rows, newest first. */
  rows: StoredToolText[];
  /** The window held more rows than the cap. */
  truncated: boolean;
}

/** Longest tool result read (its start): injected text sits near where a reader starts. */
export const RESULT_CHARS = 65_536;

const TOOL_TEXT = new RowReader<Omit<StoredToolText, "source">>("tool text", {
  ts: "number",
  agent: "text",
  session_id: "text",
  tool_name: "text?",
  tool_use_id: "text?",
  text: "text",
});

/**
 * The rows of a read that asked for `limit + 1`, newest first: at most `limit` of them, each
 * marked with its source, and whether there were more.
 */
export function cappedToolTexts(
  source: ToolTextSource,
  rows: readonly Row[],
  limit: number,
): StoredToolTexts {
  const read = TOOL_TEXT.all(rows.length > limit ? rows.slice(0, limit) : rows);
  return { rows: read.map((row) => ({ source, ...row })), truncated: rows.length > limit };
}

/** The hook events of the window that carry a shell command, at most `limit`. */
export function hookShellCommands(
  db: DatabaseSync,
  window: ToolTextWindow,
  limit: number,
): StoredToolTexts {
  return cappedToolTexts(
    "hook",
    prepared(
      db,
      `SELECT ts, agent, session_id, tool_name, tool_use_id, command AS text
      FROM events WHERE ts >= ? AND ts < ? AND command IS NOT NULL AND command <> ''
      ORDER BY ts DESC LIMIT ?`,
    ).all(window.since, window.until, limit + 1),
    limit,
  );
}

/** Only sessions active since the window began: messages are indexed by session, then time. */
const ACTIVE_SESSIONS =
  "session_id IN (SELECT session_id FROM sessions WHERE last_activity_at >= ?)";

/**
 * The transcript calls of the window to the tools named `shellTools` (lower case), their
 * input, at most `limit`.
 */
export function transcriptShellCalls(
  db: DatabaseSync,
  window: ToolTextWindow,
  shellTools: readonly string[],
  limit: number,
): StoredToolTexts {
  const tools = shellTools.length === 0 ? "NULL" : shellTools.map(() => "?").join(", ");
  return cappedToolTexts(
    "transcript",
    prepared(
      db,
      `SELECT ts, agent, session_id, tool_name, tool_use_id, text FROM messages
      WHERE ${ACTIVE_SESSIONS} AND ts >= ? AND ts < ? AND message_type = 'tool_use'
        AND lower(tool_name) IN (${tools})
      ORDER BY ts DESC LIMIT ?`,
    ).all(window.since, window.since, window.until, ...shellTools, limit + 1),
    limit,
  );
}

/** The transcript tool results of the window (their first 64 KiB), at most `limit`. */
export function transcriptToolResults(
  db: DatabaseSync,
  window: ToolTextWindow,
  limit: number,
): StoredToolTexts {
  return cappedToolTexts(
    "transcript",
    prepared(
      db,
      `SELECT ts, agent, session_id, tool_name, tool_use_id,
        substr(text, 1, ${RESULT_CHARS}) AS text
      FROM messages
      WHERE ${ACTIVE_SESSIONS} AND ts >= ? AND ts < ? AND message_type = 'tool_result'
        AND text <> ''
      ORDER BY ts DESC LIMIT ?`,
    ).all(window.since, window.since, window.until, limit + 1),
    limit,
  );
}

/** A transcript tool call: its tool and input. */
export interface StoredToolCall {
  /** Tool. */
  tool_name: string | null;
  /** Its input (JSON text, its first 2,000 characters). */
  text: string;
}

/** Reads {@linkcode StoredToolCall} rows (on either backend). */
export const TOOL_CALL = new RowReader<StoredToolCall>("transcript tool call", {
  tool_name: "text?",
  text: "text",
});

/** The transcript tool call a result answers, when the transcript holds it. */
export function transcriptToolCall(
  db: DatabaseSync,
  sessionId: string,
  toolUseId: string,
): StoredToolCall | undefined {
  return TOOL_CALL.optional(
    prepared(
      db,
      `SELECT tool_name, substr(text, 1, 2000) AS text FROM messages
      WHERE session_id = ? AND tool_use_id = ? AND message_type = 'tool_use' LIMIT 1`,
    ).get(sessionId, toolUseId),
  );
}
