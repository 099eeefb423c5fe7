/**
 * Keeps a call seen in a transcript and in telemetry counted once. While no
 * transcript of a session was read, the model calls and tool calls its
 * telemetry reported are counted in its totals (model_calls.ts, tool_calls.ts); once a
 * transcript batch of that session (or of one of its sub-agents) is stored,
 * {@linkcode settleTelemetryCounts} withdraws those counts, and the
 * transcript's own records count instead. Telemetry rows stay, linked to the
 * transcript's usage row by the provider's request id, so latency and time
 * to first token join the transcript's tokens and price.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader, type SqlParam } from "../rows.ts";
import { prepared } from "../statements.ts";

/** Reads a usage key (on either backend). */
export const USAGE_KEY = new RowReader<{ usage_key: string }>("usage key", { usage_key: "text" });

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
  return USAGE_KEY.optional(
    prepared(
      db,
      `SELECT usage_key FROM usage
       WHERE agent = 'claude_code' AND substr(usage_key, instr(usage_key, ':') + 1) = ?
         AND usage_key NOT LIKE 'otel:%'
       LIMIT 1`,
    ).get(requestId),
  )?.usage_key;
}

/** Whether a transcript of the session (or of a sub-agent of it) was read. */
export function sessionHasTranscript(db: DatabaseSync, sessionId: string): boolean {
  return prepared(
    db,
    `SELECT 1 AS found FROM messages WHERE session_id = ? LIMIT 1`,
  ).get(sessionId) !== undefined;
}

/** What a usage row added to its session's totals. */
export interface UsageFigures {
  /** Session. */
  session_id: string;
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes. */
  cache_write_tokens: number;
  /** Reasoning tokens. */
  reasoning_tokens: number;
  /** Cost, USD. */
  cost_usd: number;
  /** 0 when no price fits. */
  priced: number;
  /** Calls. */
  calls: number;
}

/** Reads {@linkcode UsageFigures} (on either backend). */
export const USAGE_FIGURES = new RowReader<UsageFigures>("usage", {
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

const PARENT = new RowReader<{ parent: string | null }>("parent session", { parent: "text?" });

/** The parent of a sub-agent session (undefined for any other). */
function parentOf(db: DatabaseSync, sessionId: string): string | undefined {
  return PARENT.optional(
    prepared(
      db,
      "SELECT parent_session_id AS parent FROM sessions WHERE session_id = ? AND is_subagent = 1",
    ).get(sessionId),
  )?.parent ?? undefined;
}

/** A model call as settling reads it: how it is linked and counted. */
export interface LinkedCall {
  /** Merge key. */
  call_key: string;
  /** Agent. */
  agent: string;
  /** The provider's request id. */
  request_id: string | null;
  /** The usage row that counts it. */
  usage_key: string | null;
  /** 1: telemetry's own usage row counts it. */
  counted: number;
}

/** Reads {@linkcode LinkedCall} rows (on either backend). */
export const LINKED_CALL = new RowReader<LinkedCall>("model call", {
  call_key: "text",
  agent: "text",
  request_id: "text?",
  usage_key: "text?",
  counted: "number",
});

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/**
 * What withdrawing a usage row takes from its session's totals: the parameters of the update
 * that subtracts it (`input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
 * reasoning_tokens, cost_usd, unpriced_calls`, then the session; both backends).
 */
export function withdrawalValues(row: UsageFigures): SqlParam[] {
  return [
    row.input_tokens,
    row.output_tokens,
    row.cache_read_tokens,
    row.cache_write_tokens,
    row.reasoning_tokens,
    row.cost_usd,
    row.priced === 0 ? row.calls : 0,
  ];
}

/**
 * Deletes telemetry's own usage row `usageKey` and moves its session's totals (and the
 * parent's, for a sub-agent) back by its figures.
 */
export function withdrawTelemetryUsage(db: DatabaseSync, usageKey: string): void {
  const row = USAGE_FIGURES.optional(
    prepared(db, `SELECT ${USAGE_FIGURES.columns} FROM usage WHERE usage_key = ?`).get(usageKey),
  );
  if (row === undefined) return;
  prepared(db, "DELETE FROM usage WHERE usage_key = ?").run(usageKey);
  const subtract = prepared(
    db,
    `UPDATE sessions SET
       input_tokens = input_tokens - ?, output_tokens = output_tokens - ?,
       cache_read_tokens = cache_read_tokens - ?, cache_write_tokens = cache_write_tokens - ?,
       reasoning_tokens = reasoning_tokens - ?, cost_usd = cost_usd - ?,
       unpriced_calls = unpriced_calls - ?
     WHERE session_id = ?`,
  );
  for (const session of [row.session_id, parentOf(db, row.session_id)]) {
    if (session === undefined) continue;
    subtract.run(...withdrawalValues(row), session);
  }
}

/**
 * After a transcript batch of `sessionIds` was stored (inside its transaction): withdraws
 * what telemetry counted for those sessions and their parents, and links their telemetry
 * model calls to the transcript's usage rows. Answers how many counts were withdrawn.
 */
export function settleTelemetryCounts(db: DatabaseSync, sessionIds: Iterable<string>): number {
  const roots = new Set<string>();
  for (const id of sessionIds) {
    roots.add(id);
    const parent = parentOf(db, id);
    if (parent !== undefined) roots.add(parent);
  }
  const calls = prepared(
    db,
    `SELECT call_key, agent, request_id, usage_key, counted FROM telemetry_model_calls
     WHERE session_id = ? AND (counted = 1 OR (usage_key IS NULL AND request_id IS NOT NULL))`,
  );
  const link = prepared(
    db,
    "UPDATE telemetry_model_calls SET usage_key = ?, counted = 0 WHERE call_key = ?",
  );
  const countedTools = prepared(
    db,
    "SELECT count(*) AS n FROM telemetry_tool_calls WHERE session_id = ? AND counted = 1",
  );
  let withdrawn = 0;
  for (const session of roots) {
    for (const row of LINKED_CALL.all(calls.all(session))) {
      if (row.counted === 1 && row.usage_key !== null) {
        withdrawTelemetryUsage(db, row.usage_key);
        withdrawn++;
      }
      const key = row.request_id === null
        ? undefined
        : findTranscriptUsageKey(db, row.agent, row.request_id);
      link.run(key ?? null, row.call_key);
    }
    const tools = COUNT.one(countedTools.get(session)).n;
    if (tools > 0) {
      prepared(db, "UPDATE sessions SET tool_calls = tool_calls - ? WHERE session_id = ?")
        .run(tools, session);
      prepared(
        db,
        "UPDATE telemetry_tool_calls SET counted = 0 WHERE session_id = ? AND counted = 1",
      ).run(session);
      withdrawn += tools;
    }
  }
  return withdrawn;
}
