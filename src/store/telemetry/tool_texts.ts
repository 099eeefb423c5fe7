/**
 * The tool calls' arguments and results that agents' telemetry carries,
 * read for the security scan beside what hooks and transcripts keep
 * (`../agent/tool_texts.ts`): Claude Code's `tool_result` events with tool
 * details (`tool_parameters`), Codex's `tool_result` events (`arguments`,
 * `output`) and GenAI `execute_tool` spans (`gen_ai.tool.call.arguments`,
 * `gen_ai.tool.call.result`). Each row's text is the record's attributes
 * (JSON); the scan picks the command or result out of them. Ids and names
 * are read as text whatever JSON type an exporter gave them.
 *
 * @module
 */
import { cappedToolTexts, type StoredToolTexts, type ToolTextWindow } from "../agent/tool_texts.ts";
import type { DatabaseSync } from "../database.ts";
import { prepared } from "../statements.ts";

/** Log records whose attributes hold a call's arguments, or its result. */
const LOG_KEYS = {
  arguments:
    `(attributes LIKE '%"tool\\_parameters"%' ESCAPE '\\' OR attributes LIKE '%"arguments"%')`,
  results: `attributes LIKE '%"output"%'`,
} as const;

/** The span attribute that holds a call's arguments, or its result. */
const SPAN_KEYS = {
  arguments: "gen_ai.tool.call.arguments",
  results: "gen_ai.tool.call.result",
} as const;

/**
 * Telemetry tool records of the window whose attributes hold a call's `arguments` or its
 * `results`: at most `limit` log records and `limit` spans, each newest first.
 */
export function telemetryToolTexts(
  db: DatabaseSync,
  window: ToolTextWindow,
  what: "arguments" | "results",
  limit: number,
): StoredToolTexts {
  const logs = cappedToolTexts(
    "telemetry",
    prepared(
      db,
      `SELECT ts, agent, session_id,
        CAST(json_extract(attributes, '$.tool_name') AS TEXT) AS tool_name,
        CAST(coalesce(json_extract(attributes, '$.tool_use_id'),
          json_extract(attributes, '$.call_id')) AS TEXT) AS tool_use_id,
        attributes AS text
      FROM telemetry_logs
      WHERE ts >= ? AND ts < ? AND session_id IS NOT NULL AND agent IS NOT NULL
        AND event_name IN ('tool_result', 'claude_code.tool_result', 'codex.tool_result')
        AND ${LOG_KEYS[what]}
      ORDER BY ts DESC LIMIT ?`,
    ).all(window.since, window.until, limit + 1),
    limit,
  );
  const spans = cappedToolTexts(
    "telemetry",
    prepared(
      db,
      `SELECT CAST(start_ts + duration_ms AS INTEGER) AS ts, agent, session_id,
        CAST(json_extract(attributes, '$."gen_ai.tool.name"') AS TEXT) AS tool_name,
        CAST(json_extract(attributes, '$."gen_ai.tool.call.id"') AS TEXT) AS tool_use_id,
        attributes AS text
      FROM telemetry_spans
      WHERE start_ts >= ? AND start_ts < ? AND session_id IS NOT NULL AND agent IS NOT NULL
        AND instr(attributes, ?) > 0
      ORDER BY start_ts DESC LIMIT ?`,
    ).all(window.since, window.until, `"${SPAN_KEYS[what]}"`, limit + 1),
    limit,
  );
  return { rows: [...logs.rows, ...spans.rows], truncated: logs.truncated || spans.truncated };
}
