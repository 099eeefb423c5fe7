/**
 * Keeps a call seen in a transcript and in telemetry counted once. While no
 * transcript of a session was read, the model calls and tool calls its
 * telemetry reported are counted in its totals (telemetry_writes.ts); once a
 * transcript batch of that session (or of one of its sub-agents) is stored,
 * {@linkcode settleTelemetryCounts} withdraws those counts, and the
 * transcript's own records count instead. Telemetry rows stay, linked to the
 * transcript's usage row by the provider's request id, so latency and time
 * to first token join the transcript's tokens and price.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";
import { telemetryStatement } from "./telemetry_statements.ts";

/**
 * The usage key the transcript stored a call under, found by the provider's request id. Only
 * Claude Code's transcripts name request ids (`<message id>:<request id>`).
 */
export function findTranscriptUsageKey(
  db: DatabaseSync,
  agent: string,
  requestId: string,
): string | undefined {
  if (agent !== "claude_code") return undefined;
  const row = telemetryStatement(
    db,
    `SELECT usage_key FROM usage
     WHERE agent = 'claude_code' AND substr(usage_key, instr(usage_key, ':') + 1) = ?
       AND usage_key NOT LIKE 'otel:%'
     LIMIT 1`,
  ).get(requestId) as { usage_key: string } | undefined;
  return row?.usage_key;
}

/** Whether a transcript of the session (or of a sub-agent of it) was read. */
export function sessionHasTranscript(db: DatabaseSync, sessionId: string): boolean {
  return telemetryStatement(
    db,
    `SELECT 1 AS found FROM messages WHERE session_id = ? LIMIT 1`,
  ).get(sessionId) !== undefined;
}

interface CountedUsage {
  session_id: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  priced: number;
  calls: number;
}

/**
 * Deletes telemetry's own usage row `usageKey` and moves its session's totals (and the
 * parent's, for a sub-agent) back by its figures.
 */
export function withdrawTelemetryUsage(db: DatabaseSync, usageKey: string): void {
  const row = telemetryStatement(
    db,
    `SELECT session_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
       reasoning_tokens, cost_usd, priced, calls
     FROM usage WHERE usage_key = ?`,
  ).get(usageKey) as CountedUsage | undefined;
  if (row === undefined) return;
  telemetryStatement(db, "DELETE FROM usage WHERE usage_key = ?").run(usageKey);
  const parent = telemetryStatement(
    db,
    "SELECT parent_session_id AS parent FROM sessions WHERE session_id = ? AND is_subagent = 1",
  ).get(row.session_id) as { parent: string | null } | undefined;
  const subtract = telemetryStatement(
    db,
    `UPDATE sessions SET
       input_tokens = input_tokens - ?, output_tokens = output_tokens - ?,
       cache_read_tokens = cache_read_tokens - ?, cache_write_tokens = cache_write_tokens - ?,
       reasoning_tokens = reasoning_tokens - ?, cost_usd = cost_usd - ?,
       unpriced_calls = unpriced_calls - ?
     WHERE session_id = ?`,
  );
  for (const session of [row.session_id, parent?.parent ?? undefined]) {
    if (session === undefined || session === null) continue;
    subtract.run(
      row.input_tokens,
      row.output_tokens,
      row.cache_read_tokens,
      row.cache_write_tokens,
      row.reasoning_tokens,
      row.cost_usd,
      row.priced === 0 ? row.calls : 0,
      session,
    );
  }
}

/**
 * After a transcript batch of `sessionIds` was stored (inside its transaction): withdraws
 * what telemetry counted for those sessions and their parents, and links their telemetry
 * model calls to the transcript's usage rows. Answers how many counts were withdrawn.
 */
export function settleTelemetryCounts(db: DatabaseSync, sessionIds: Iterable<string>): number {
  const parentOf = telemetryStatement(
    db,
    "SELECT parent_session_id AS parent FROM sessions WHERE session_id = ? AND is_subagent = 1",
  );
  const roots = new Set<string>();
  for (const id of sessionIds) {
    roots.add(id);
    const parent = (parentOf.get(id) as { parent: string | null } | undefined)?.parent;
    if (parent !== undefined && parent !== null) roots.add(parent);
  }
  const calls = telemetryStatement(
    db,
    `SELECT call_key, agent, request_id, usage_key, counted FROM telemetry_model_calls
     WHERE session_id = ? AND (counted = 1 OR (usage_key IS NULL AND request_id IS NOT NULL))`,
  );
  const link = telemetryStatement(
    db,
    "UPDATE telemetry_model_calls SET usage_key = ?, counted = 0 WHERE call_key = ?",
  );
  const countedTools = telemetryStatement(
    db,
    "SELECT count(*) AS n FROM telemetry_tool_calls WHERE session_id = ? AND counted = 1",
  );
  let withdrawn = 0;
  for (const session of roots) {
    for (
      const row of calls.all(session) as unknown as Array<{
        call_key: string;
        agent: string;
        request_id: string | null;
        usage_key: string | null;
        counted: number;
      }>
    ) {
      if (row.counted === 1 && row.usage_key !== null) {
        withdrawTelemetryUsage(db, row.usage_key);
        withdrawn++;
      }
      const key = row.request_id === null
        ? undefined
        : findTranscriptUsageKey(db, row.agent, row.request_id);
      link.run(key ?? null, row.call_key);
    }
    const tools = (countedTools.get(session) as { n: number }).n;
    if (tools > 0) {
      telemetryStatement(db, "UPDATE sessions SET tool_calls = tool_calls - ? WHERE session_id = ?")
        .run(tools, session);
      telemetryStatement(
        db,
        "UPDATE telemetry_tool_calls SET counted = 0 WHERE session_id = ? AND counted = 1",
      ).run(session);
      withdrawn += tools;
    }
  }
  return withdrawn;
}
