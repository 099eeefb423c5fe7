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
import { type BuiltStatement, SqliteParams } from "../params.ts";
import type { Row } from "../rows.ts";
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
 * The statements of {@linkcode telemetryToolTexts} (either backend): the window's tool log
 * records, then its spans, whose attributes hold a call's `arguments` or its `results`, each
 * newest first and `limit + 1` at most (one more tells the cap left some out).
 */
export function telemetryToolTextsSql(
  window: ToolTextWindow,
  what: "arguments" | "results",
  limit: number,
): { logs: BuiltStatement; spans: BuiltStatement } {
  return {
    logs: (p) =>
      `SELECT ts, agent, session_id, ${p.jsonText("attributes", "tool_name")} AS tool_name,
        coalesce(${p.jsonText("attributes", "tool_use_id")},
          ${p.jsonText("attributes", "call_id")}) AS tool_use_id,
        attributes AS text
      FROM telemetry_logs
      WHERE ts >= ${p.add(window.since)} AND ts < ${p.add(window.until)}
        AND session_id IS NOT NULL AND agent IS NOT NULL
        AND event_name IN ('tool_result', 'claude_code.tool_result', 'codex.tool_result')
        AND ${LOG_KEYS[what]}
      ORDER BY ts DESC LIMIT ${p.add(limit + 1)}`,
    spans: (p) =>
      `SELECT ${p.integer("start_ts + duration_ms")} AS ts, agent, session_id,
        ${p.jsonText("attributes", "gen_ai.tool.name")} AS tool_name,
        ${p.jsonText("attributes", "gen_ai.tool.call.id")} AS tool_use_id,
        attributes AS text
      FROM telemetry_spans
      WHERE start_ts >= ${p.add(window.since)} AND start_ts < ${p.add(window.until)}
        AND session_id IS NOT NULL AND agent IS NOT NULL
        AND ${p.position("attributes", p.add(`"${SPAN_KEYS[what]}"`))} > 0
      ORDER BY start_ts DESC LIMIT ${p.add(limit + 1)}`,
  };
}

/** What {@linkcode telemetryToolTextsSql}'s statements read, capped at `limit` each. */
export function telemetryToolTextsOf(
  logs: readonly Row[],
  spans: readonly Row[],
  limit: number,
): StoredToolTexts {
  const fromLogs = cappedToolTexts("telemetry", logs, limit);
  const fromSpans = cappedToolTexts("telemetry", spans, limit);
  return {
    rows: [...fromLogs.rows, ...fromSpans.rows],
    truncated: fromLogs.truncated || fromSpans.truncated,
  };
}

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
  const sql = telemetryToolTextsSql(window, what, limit);
  const run = (build: BuiltStatement) => {
    const p = new SqliteParams();
    const text = build(p);
    return prepared(db, text).all(...p.values);
  };
  return telemetryToolTextsOf(run(sql.logs), run(sql.spans), limit);
}
