/**
 * Reads behind the security view: the shell commands agents ran and the
 * results their tools returned, from every place the store keeps them —
 * hook events (`events.command`), transcripts (`messages` tool calls and
 * results) and telemetry (Claude Code's `tool_result` events with tool
 * details, Codex's `tool_result` events, GenAI `execute_tool` spans). All of
 * it was redacted before it was stored. Newest first, each source capped,
 * so a long window costs a bounded read.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";

/** Where a stored text came from. */
export type SecuritySource = "hook" | "transcript" | "telemetry";

/** A window of time. */
export interface SecurityWindow {
  /** Start, ms (inclusive). */
  since: number;
  /** End, ms (exclusive). */
  until: number;
}

/** One stored text: a tool call's command or input, or a tool's result. */
export interface StoredToolText {
  /** Where it is kept. */
  source: SecuritySource;
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

/** Rows read, and whether a cap left older ones out. */
export interface StoredToolTexts {
  /** The rows, newest first within each source. */
  rows: StoredToolText[];
  /** A source had more rows in the window than its cap. */
  truncated: boolean;
}

/** Longest tool result read (its start): injected text sits near where a reader starts. */
const RESULT_CHARS = 65_536;

function capped(rows: StoredToolText[], limit: number): { rows: StoredToolText[]; more: boolean } {
  return rows.length > limit ? { rows: rows.slice(0, limit), more: true } : { rows, more: false };
}

/**
 * The shell commands of the window: hook events with a command, transcript calls of
 * `shellTools` (their input), and telemetry tool records carrying parameters or arguments.
 * At most `limit` rows per source.
 */
export function shellCallsIn(
  db: DatabaseSync,
  window: SecurityWindow,
  shellTools: readonly string[],
  limit: number,
): StoredToolTexts {
  const hooks = capped(
    db.prepare(`
      SELECT 'hook' AS source, ts, agent, session_id, tool_name, tool_use_id, command AS text
      FROM events WHERE ts >= ? AND ts < ? AND command IS NOT NULL AND command <> ''
      ORDER BY ts DESC LIMIT ?
    `).all(window.since, window.until, limit + 1) as unknown as StoredToolText[],
    limit,
  );
  const tools = shellTools.length === 0 ? "NULL" : shellTools.map(() => "?").join(", ");
  const transcript = capped(
    db.prepare(`
      SELECT 'transcript' AS source, ts, agent, session_id, tool_name, tool_use_id, text
      FROM messages
      WHERE session_id IN (SELECT session_id FROM sessions WHERE last_activity_at >= ?)
        AND ts >= ? AND ts < ? AND message_type = 'tool_use' AND lower(tool_name) IN (${tools})
      ORDER BY ts DESC LIMIT ?
    `).all(
      window.since,
      window.since,
      window.until,
      ...shellTools,
      limit + 1,
    ) as unknown as StoredToolText[],
    limit,
  );
  const telemetry = telemetryToolTexts(db, window, "arguments", limit);
  return {
    rows: [...hooks.rows, ...transcript.rows, ...telemetry.rows],
    truncated: hooks.more || transcript.more || telemetry.truncated,
  };
}

/**
 * The tool results of the window: transcript tool results (their first 64 KiB) and telemetry
 * tool records carrying an output or result. At most `limit` rows per source.
 */
export function toolResultsIn(
  db: DatabaseSync,
  window: SecurityWindow,
  limit: number,
): StoredToolTexts {
  const transcript = capped(
    db.prepare(`
      SELECT 'transcript' AS source, ts, agent, session_id, tool_name, tool_use_id,
        substr(text, 1, ${RESULT_CHARS}) AS text
      FROM messages
      WHERE session_id IN (SELECT session_id FROM sessions WHERE last_activity_at >= ?)
        AND ts >= ? AND ts < ? AND message_type = 'tool_result' AND text <> ''
      ORDER BY ts DESC LIMIT ?
    `).all(window.since, window.since, window.until, limit + 1) as unknown as StoredToolText[],
    limit,
  );
  const telemetry = telemetryToolTexts(db, window, "results", limit);
  return {
    rows: [...transcript.rows, ...telemetry.rows],
    truncated: transcript.more || telemetry.truncated,
  };
}

/**
 * Telemetry tool records whose attributes hold a call's arguments (Claude Code's
 * `tool_parameters`, Codex's `arguments`, GenAI's `gen_ai.tool.call.arguments`) or its result
 * (Codex's `output`, GenAI's `gen_ai.tool.call.result`).
 */
function telemetryToolTexts(
  db: DatabaseSync,
  window: SecurityWindow,
  what: "arguments" | "results",
  limit: number,
): StoredToolTexts {
  const logKeys = what === "arguments"
    ? `(attributes LIKE '%"tool\\_parameters"%' ESCAPE '\\' OR attributes LIKE '%"arguments"%')`
    : `attributes LIKE '%"output"%'`;
  const spanKey = what === "arguments" ? "gen_ai.tool.call.arguments" : "gen_ai.tool.call.result";
  const logs = capped(
    db.prepare(`
      SELECT 'telemetry' AS source, ts, agent, session_id,
        json_extract(attributes, '$.tool_name') AS tool_name,
        coalesce(json_extract(attributes, '$.tool_use_id'), json_extract(attributes, '$.call_id'))
          AS tool_use_id,
        attributes AS text
      FROM telemetry_logs
      WHERE ts >= ? AND ts < ? AND session_id IS NOT NULL AND agent IS NOT NULL
        AND event_name IN ('tool_result', 'claude_code.tool_result', 'codex.tool_result')
        AND ${logKeys}
      ORDER BY ts DESC LIMIT ?
    `).all(window.since, window.until, limit + 1) as unknown as StoredToolText[],
    limit,
  );
  const spans = capped(
    db.prepare(`
      SELECT 'telemetry' AS source, CAST(start_ts + duration_ms AS INTEGER) AS ts, agent,
        session_id, json_extract(attributes, '$."gen_ai.tool.name"') AS tool_name,
        json_extract(attributes, '$."gen_ai.tool.call.id"') AS tool_use_id, attributes AS text
      FROM telemetry_spans
      WHERE start_ts >= ? AND start_ts < ? AND session_id IS NOT NULL AND agent IS NOT NULL
        AND instr(attributes, ?) > 0
      ORDER BY start_ts DESC LIMIT ?
    `).all(window.since, window.until, `"${spanKey}"`, limit + 1) as unknown as StoredToolText[],
    limit,
  );
  return { rows: [...logs.rows, ...spans.rows], truncated: logs.more || spans.more };
}

/** A transcript tool call: its tool and input. */
export interface StoredToolCall {
  /** Tool. */
  tool_name: string | null;
  /** Its input (JSON text). */
  text: string;
}

/** The transcript tool call a result answers, when the transcript holds it. */
export function toolCallOf(
  db: DatabaseSync,
  sessionId: string,
  toolUseId: string,
): StoredToolCall | undefined {
  return db.prepare(`
    SELECT tool_name, substr(text, 1, 2000) AS text FROM messages
    WHERE session_id = ? AND tool_use_id = ? AND message_type = 'tool_use' LIMIT 1
  `).get(sessionId, toolUseId) as StoredToolCall | undefined;
}
