/**
 * Keeps a call seen in a transcript and in telemetry counted once, on PostgreSQL: SQLite's
 * rules, readers and parameters (../../telemetry/settle.ts) in PostgreSQL's dialect. While no
 * transcript of a session was read, telemetry's calls count in its totals; once one is, those
 * counts are withdrawn and the transcript's records count instead.
 *
 * @module
 */
import { COUNT } from "../../agent/messages.ts";
import { LINKED_CALL, USAGE_FIGURES, USAGE_KEY, withdrawalValues } from "../../telemetry/settle.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readOptionalRow, readRow, readRows } from "../reads.ts";

/**
 * The usage key the transcript stored a call under, found by the provider's request id (only
 * Claude Code's transcripts name request ids: `<message id>:<request id>`).
 */
export async function findTranscriptUsageKey(
  q: PgQueryable,
  agent: string,
  requestId: string,
): Promise<string | undefined> {
  if (agent !== "claude_code") return undefined;
  const row = await readOptionalRow(
    q,
    USAGE_KEY,
    `SELECT usage_key FROM usage
     WHERE agent = 'claude_code' AND substr(usage_key, strpos(usage_key, ':') + 1) = $1
       AND usage_key NOT LIKE 'otel:%'
     LIMIT 1`,
    [requestId],
  );
  return row?.usage_key;
}

/** Whether a transcript of the session was read. */
export async function sessionHasTranscript(q: PgQueryable, sessionId: string): Promise<boolean> {
  const sql = "SELECT 1 AS found FROM messages WHERE session_id = $1 LIMIT 1";
  return (await q.query(sql, [sessionId])).length > 0;
}

const PARENT = new RowReader<{ parent: string }>("parent session", { parent: "text" });

/** The parent of a sub-agent session (undefined for any other). */
async function parentOf(q: PgQueryable, sessionId: string): Promise<string | undefined> {
  const row = await readOptionalRow(
    q,
    PARENT,
    `SELECT parent_session_id AS parent FROM sessions
     WHERE session_id = $1 AND is_subagent = 1 AND parent_session_id IS NOT NULL`,
    [sessionId],
  );
  return row?.parent;
}

/**
 * Deletes telemetry's own usage row `usageKey` and moves its session's totals (and the
 * parent's, for a sub-agent) back by its figures.
 */
export async function withdrawTelemetryUsage(q: PgQueryable, usageKey: string): Promise<void> {
  const sql = `SELECT ${USAGE_FIGURES.columns} FROM usage WHERE usage_key = $1`;
  const row = await readOptionalRow(q, USAGE_FIGURES, sql, [usageKey]);
  if (row === undefined) return;
  await q.query("DELETE FROM usage WHERE usage_key = $1", [usageKey]);
  for (const session of [row.session_id, await parentOf(q, row.session_id)]) {
    if (session === undefined) continue;
    await q.query(
      `UPDATE sessions SET
         input_tokens = input_tokens - $1, output_tokens = output_tokens - $2,
         cache_read_tokens = cache_read_tokens - $3, cache_write_tokens = cache_write_tokens - $4,
         reasoning_tokens = reasoning_tokens - $5, cost_usd = cost_usd - $6,
         unpriced_calls = unpriced_calls - $7
       WHERE session_id = $8`,
      [...withdrawalValues(row), session],
    );
  }
}

/**
 * After a transcript batch of `sessionIds` was stored (inside its write): withdraws what
 * telemetry counted for those sessions and their parents, and links their telemetry model
 * calls to the transcript's usage rows. Answers how many counts were withdrawn.
 */
export function settleTelemetryCounts(
  q: PgQueryable,
  sessionIds: Iterable<string>,
): Promise<number> {
  const ids = [...sessionIds];
  return q.write(async (w) => {
    const roots = new Set<string>();
    for (const id of ids) {
      roots.add(id);
      const parent = await parentOf(w, id);
      if (parent !== undefined) roots.add(parent);
    }
    let withdrawn = 0;
    for (const session of roots) {
      const calls = await readRows(
        w,
        LINKED_CALL,
        `SELECT call_key, agent, request_id, usage_key, counted FROM telemetry_model_calls
         WHERE session_id = $1 AND (counted = 1 OR (usage_key IS NULL AND request_id IS NOT NULL))`,
        [session],
      );
      for (const row of calls) {
        if (row.counted === 1 && row.usage_key !== null) {
          await withdrawTelemetryUsage(w, row.usage_key);
          withdrawn++;
        }
        const key = row.request_id === null
          ? undefined
          : await findTranscriptUsageKey(w, row.agent, row.request_id);
        await w.query(
          "UPDATE telemetry_model_calls SET usage_key = $1, counted = 0 WHERE call_key = $2",
          [key ?? null, row.call_key],
        );
      }
      const tools = (await readRow(
        w,
        COUNT,
        "SELECT count(*) AS n FROM telemetry_tool_calls WHERE session_id = $1 AND counted = 1",
        [session],
      )).n;
      if (tools > 0) {
        await w.query("UPDATE sessions SET tool_calls = tool_calls - $1 WHERE session_id = $2", [
          tools,
          session,
        ]);
        await w.query(
          "UPDATE telemetry_tool_calls SET counted = 0 WHERE session_id = $1 AND counted = 1",
          [session],
        );
        withdrawn += tools;
      }
    }
    return withdrawn;
  });
}
