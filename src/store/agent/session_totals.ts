/**
 * The running totals of sessions: what a batch of messages or usage adds to
 * each session it touches, summed per session and applied with one upsert
 * per session. A sub-agent's counts also go to its parent, whose totals
 * include its sub-agents (as ccusage counts a session); its model and
 * context stay its own.
 *
 * Used by the message and usage writers of this area; PostgreSQL's writers
 * (../postgres/agent/) sum and apply the same deltas.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader, type SqlParam } from "../rows.ts";
import { SQLITE_UPSERT, upsertSql, type UpsertTable } from "../upserts.ts";
import { prepared } from "../statements.ts";

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

/**
 * The upsert of a batch's delta of one session (both backends; its parameters are
 * {@linkcode totalsValues}): the counters add up, the first working directory stays, the
 * latest model and context win.
 */
export const TOTALS_UPSERT: UpsertTable = {
  table: "sessions",
  key: "session_id",
  columns: {
    session_id: "insert",
    agent: "insert",
    cwd: "first",
    project: "first",
    started_at: "earliest_start",
    last_activity_at: "greatest",
    message_count: "sum",
    tool_calls: "sum",
    model: "latest",
    input_tokens: "sum",
    output_tokens: "sum",
    cache_read_tokens: "sum",
    cache_write_tokens: "sum",
    reasoning_tokens: "sum",
    cost_usd: "sum",
    unpriced_calls: "sum",
    context_tokens: "latest",
    context_window: "latest",
  },
};

const UPSERT_TOTALS = upsertSql(TOTALS_UPSERT, SQLITE_UPSERT);

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

/**
 * What a batch's deltas add to the parents of the sub-agents among them (`parentOf` answers a
 * session's parent, or null or undefined for a top-level one), summed in the batch's order;
 * a parent's model and context stay its own. Shared by both backends' writers.
 */
export function parentDeltas(
  deltas: ReadonlyMap<string, SessionDelta>,
  parentOf: (sessionId: string) => string | null | undefined,
): Map<string, SessionDelta> {
  const rollup = new Map<string, SessionDelta>();
  for (const [sessionId, d] of deltas) {
    const parent = parentOf(sessionId);
    if (parent === null || parent === undefined) continue;
    const into = rollup.get(parent);
    if (into === undefined) {
      rollup.set(parent, { ...d, model: null, context: null, contextWindow: null });
    } else {
      addTo(into, d);
    }
  }
  return rollup;
}

/** The parameters of the totals upsert of one session's delta, in its column order. */
export function totalsValues(sessionId: string, d: SessionDelta): SqlParam[] {
  return [
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
  ];
}

/** Applies a batch's deltas, and each sub-agent's to its parent too (inside the caller's write). */
export function applyDeltas(db: DatabaseSync, deltas: Map<string, SessionDelta>): void {
  if (deltas.size === 0) return;
  const upsert = prepared(db, UPSERT_TOTALS);
  const parentOf = prepared(
    db,
    "SELECT parent_session_id AS parent FROM sessions WHERE session_id = ? AND is_subagent = 1",
  );
  const rollup = parentDeltas(deltas, (id) => PARENT.optional(parentOf.get(id))?.parent);
  for (const [sessionId, d] of [...deltas, ...rollup]) upsert.run(...totalsValues(sessionId, d));
}
