/**
 * Session totals moved by a batch: per-session sums (messages, tool calls, tokens, cost,
 * unpriced calls, times) gathered while records are stored and applied with one upsert per
 * session; a sub-agent's sums also go to its parent, whose totals include its sub-agents.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";
import { telemetryStatement } from "./telemetry_statements.ts";

/**
 * The earlier of two start times, where 0 means "not known yet" (a transcript whose first
 * lines carry no time): an unknown start never hides a known one.
 */
export const EARLIEST_START = `CASE
        WHEN sessions.started_at <= 0 THEN excluded.started_at
        WHEN excluded.started_at <= 0 THEN sessions.started_at
        ELSE min(sessions.started_at, excluded.started_at) END`;

/** Per-session sums of a batch, applied with one upsert per session. */
export interface SessionDelta {
  agent: string;
  cwd: string | null;
  first: number;
  last: number;
  messages: number;
  toolCalls: number;
  model: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  cost: number;
  unpriced: number;
  context: number | null;
  contextAt: number;
  contextWindow: number | null;
}

/** The delta of `sessionId`, created on first use; a record time of 0 moves no time. */
export function deltaFor(
  deltas: Map<string, SessionDelta>,
  sessionId: string,
  agent: string,
  ts: number,
): SessionDelta {
  let delta = deltas.get(sessionId);
  if (delta === undefined) {
    delta = {
      agent,
      cwd: null,
      first: Infinity,
      last: 0,
      messages: 0,
      toolCalls: 0,
      model: null,
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      cost: 0,
      unpriced: 0,
      context: null,
      contextAt: -Infinity,
      contextWindow: null,
    };
    deltas.set(sessionId, delta);
  }
  // A record without a time (ts 0) tells nothing about when the session ran.
  if (ts > 0) {
    delta.first = Math.min(delta.first, ts);
    delta.last = Math.max(delta.last, ts);
  }
  return delta;
}

/** Applies the deltas of a batch (and their roll-up into sub-agents' parents). */
export function applyDeltas(db: DatabaseSync, deltas: Map<string, SessionDelta>): void {
  if (deltas.size === 0) return;
  // Prepared once per connection: a batch of a few calls would pay more to prepare than to run.
  const upsert = telemetryStatement(
    db,
    `
    INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, message_count,
      tool_calls, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
      reasoning_tokens, cost_usd, unpriced_calls, context_tokens, context_window)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      cwd = coalesce(sessions.cwd, excluded.cwd),
      project = coalesce(sessions.project, excluded.project),
      started_at = ${EARLIEST_START},
      last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at),
      message_count = sessions.message_count + excluded.message_count,
      tool_calls = sessions.tool_calls + excluded.tool_calls,
      model = coalesce(excluded.model, sessions.model),
      input_tokens = sessions.input_tokens + excluded.input_tokens,
      output_tokens = sessions.output_tokens + excluded.output_tokens,
      cache_read_tokens = sessions.cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = sessions.cache_write_tokens + excluded.cache_write_tokens,
      reasoning_tokens = sessions.reasoning_tokens + excluded.reasoning_tokens,
      cost_usd = sessions.cost_usd + excluded.cost_usd,
      unpriced_calls = sessions.unpriced_calls + excluded.unpriced_calls,
      context_tokens = coalesce(excluded.context_tokens, sessions.context_tokens),
      context_window = coalesce(excluded.context_window, sessions.context_window)
  `,
  );
  const parentOf = telemetryStatement(
    db,
    "SELECT parent_session_id AS parent FROM sessions WHERE session_id = ? AND is_subagent = 1",
  );
  // A sub-agent's counts also go to its parent, whose totals include its sub-agents (as
  // ccusage counts a session); its model and context stay its own.
  const rollup = new Map<string, SessionDelta>();
  for (const [sessionId, d] of deltas) {
    const parent = (parentOf.get(sessionId) as { parent: string | null } | undefined)?.parent;
    if (parent === null || parent === undefined) continue;
    const into = rollup.get(parent);
    if (into === undefined) {
      rollup.set(parent, { ...d, model: null, context: null, contextWindow: null });
    } else {
      into.first = Math.min(into.first, d.first);
      into.last = Math.max(into.last, d.last);
      into.messages += d.messages;
      into.toolCalls += d.toolCalls;
      into.input += d.input;
      into.output += d.output;
      into.cacheRead += d.cacheRead;
      into.cacheWrite += d.cacheWrite;
      into.reasoning += d.reasoning;
      into.cost += d.cost;
      into.unpriced += d.unpriced;
      if (into.cwd === null) into.cwd = d.cwd;
    }
  }
  for (const [sessionId, d] of [...deltas, ...rollup]) {
    upsert.run(
      sessionId,
      d.agent,
      d.cwd,
      d.cwd,
      d.first === Infinity ? 0 : d.first,
      d.last,
      d.messages,
      d.toolCalls,
      d.model,
      d.input,
      d.output,
      d.cacheRead,
      d.cacheWrite,
      d.reasoning,
      d.cost,
      d.unpriced,
      d.context,
      d.contextWindow,
    );
  }
}
