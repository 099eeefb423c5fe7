/**
 * The tool calls' arguments and results that agents' telemetry carries, read for the security
 * scan on PostgreSQL: SQLite's statements (../../telemetry/tool_texts.ts, which says which
 * records hold them), built with PostgreSQL's parameters and its spellings of a JSON key's text
 * and a substring's position, into the same rows.
 *
 * @module
 */
import type { StoredToolTexts, ToolTextWindow } from "../../agent/tool_texts.ts";
import { telemetryToolTextsOf, telemetryToolTextsSql } from "../../telemetry/tool_texts.ts";
import type { BuiltStatement } from "../../params.ts";
import { Params } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";

/**
 * Telemetry tool records of the window whose attributes hold a call's `arguments` or its
 * `results`: at most `limit` log records and `limit` spans, each newest first.
 */
export async function telemetryToolTexts(
  q: PgQueryable,
  window: ToolTextWindow,
  what: "arguments" | "results",
  limit: number,
): Promise<StoredToolTexts> {
  const sql = telemetryToolTextsSql(window, what, limit);
  const run = (build: BuiltStatement) => {
    const p = new Params();
    const text = build(p);
    return q.query(text, p.values);
  };
  const [logs, spans] = await Promise.all([run(sql.logs), run(sql.spans)]);
  return telemetryToolTextsOf(logs, spans, limit);
}
