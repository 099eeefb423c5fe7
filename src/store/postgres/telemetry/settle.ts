/**
 * Keeps a call seen in a transcript and in telemetry counted once, on PostgreSQL: SQLite's
 * rules (../../telemetry/settle.ts) in PostgreSQL's dialect. While no transcript of a session
 * was read, telemetry's calls count in its totals; once one is, those counts are withdrawn
 * and the transcript's records count instead.
 *
 * @module
 */
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";

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
  const rows = await q.query(
    `SELECT usage_key FROM usage
     WHERE agent = 'claude_code' AND substr(usage_key, strpos(usage_key, ':') + 1) = $1
       AND usage_key NOT LIKE 'otel:%'
     LIMIT 1`,
    [requestId],
  );
  return rows.length === 0 ? undefined : String(rows[0].usage_key);
}

/** Whether a transcript of the session was read. */
export async function sessionHasTranscript(q: PgQueryable, sessionId: string): Promise<boolean> {
  return (await q.query("SELECT 1 AS found FROM messages WHERE session_id = $1 LIMIT 1", [
    sessionId,
  ])).length > 0;
}

const USAGE_FIGURES = new RowReader<{
  session_id: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  priced: number;
  calls: number;
}>("usage", {
  session_id: "text",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  reasoning_tokens: "number",
  cost_usd: "number",
  priced: "number",
  calls: "number",
});

/** The parent of a sub-agent session (undefined for any other). */
async function parentOf(q: PgQueryable, sessionId: string): Promise<string | undefined> {
  const rows = await q.query(
    `SELECT parent_session_id AS parent FROM sessions
     WHERE session_id = $1 AND is_subagent = 1 AND parent_session_id IS NOT NULL`,
    [sessionId],
  );
  return rows.length === 0 ? undefined : String(rows[0].parent);
}

/**
 * Deletes telemetry's own usage row `usageKey` and moves its session's totals (and the
 * parent's, for a sub-agent) back by its figures.
 */
export async function withdrawTelemetryUsage(q: PgQueryable, usageKey: string): Promise<void> {
  const row = USAGE_FIGURES.optional(
    (await q.query(`SELECT ${USAGE_FIGURES.columns} FROM usage WHERE usage_key = $1`, [
      usageKey,
    ]))[0],
  );
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
      [
        row.input_tokens,
        row.output_tokens,
        row.cache_read_tokens,
        row.cache_write_tokens,
        row.reasoning_tokens,
        row.cost_usd,
        row.priced === 0 ? row.calls : 0,
        session,
      ],
    );
  }
}

const LINKED_CALL = new RowReader<{
  call_key: string;
  agent: string;
  request_id: string | null;
  usage_key: string | null;
  counted: number;
}>("model call", {
  call_key: "text",
  agent: "text",
  request_id: "text?",
  usage_key: "text?",
  counted: "number",
});

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
      const calls = LINKED_CALL.all(
        await w.query(
          `SELECT call_key, agent, request_id, usage_key, counted FROM telemetry_model_calls
           WHERE session_id = $1 AND (counted = 1 OR (usage_key IS NULL AND request_id IS NOT NULL))`,
          [session],
        ),
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
      const tools = Number(
        (await w.query(
          "SELECT count(*) AS n FROM telemetry_tool_calls WHERE session_id = $1 AND counted = 1",
          [session],
        ))[0].n,
      );
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
