/**
 * The running totals of sessions: what a batch of messages or usage adds to
 * each session it touches, summed per session and applied with one upsert
 * per session. A sub-agent's counts also go to its parent, whose totals
 * include its sub-agents (as ccusage counts a session); its model and
 * context stay its own.
 *
 * Used by the message and usage writers of this area only.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { EARLIEST_START } from "./sessions.ts";

/** Per-session sums of a batch, applied with one upsert per session. */
export interface SessionDelta {
  /** The session's agent. */
  agent: string;
  /** First working directory seen. */
  cwd: string | null;
  /** Earliest record time (Infinity while none had a time). */
  first: number;
  /** Latest record time (0 while none had a time). */
  last: number;
  /** Messages added. */
  messages: number;
  /** Tool calls added. */
  toolCalls: number;
  /** Latest model seen. */
  model: string | null;
  /** Uncached input tokens added. */
  input: number;
  /** Output tokens added. */
  output: number;
  /** Cache reads added. */
  cacheRead: number;
  /** Cache writes added. */
  cacheWrite: number;
  /** Reasoning tokens added. */
  reasoning: number;
  /** Cost added, USD. */
  cost: number;
  /** Unpriced calls added. */
  unpriced: number;
  /** Context size of the latest call, when one was seen. */
  context: number | null;
  /** Time of that call. */
  contextAt: number;
  /** Context window, when reported. */
  contextWindow: number | null;
}

/** The delta of `sessionId` in `deltas`, made when new; a record at `ts` widens its times. */
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

const UPSERT_TOTALS = `
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
  `;

const PARENT = new RowReader<{ parent: string | null }>("session parent", { parent: "text?" });

/** Adds a sub-agent's delta to its parent's (what the parent's totals include). */
function addTo(into: SessionDelta, d: SessionDelta): void {
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

/** Applies a batch's deltas, and each sub-agent's to its parent too (inside the caller's write). */
export function applyDeltas(db: DatabaseSync, deltas: Map<string, SessionDelta>): void {
  if (deltas.size === 0) return;
  const upsert = prepared(db, UPSERT_TOTALS);
  const parentOf = prepared(
    db,
    "SELECT parent_session_id AS parent FROM sessions WHERE session_id = ? AND is_subagent = 1",
  );
  const rollup = new Map<string, SessionDelta>();
  for (const [sessionId, d] of deltas) {
    const parent = PARENT.optional(parentOf.get(sessionId))?.parent;
    if (parent === null || parent === undefined) continue;
    const into = rollup.get(parent);
    if (into === undefined) {
      rollup.set(parent, { ...d, model: null, context: null, contextWindow: null });
    } else {
      addTo(into, d);
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
