/**
 * The running totals of sessions on PostgreSQL: what a batch of messages or
 * usage adds to each session it touches, applied with one upsert per
 * session, a sub-agent's counts going to its parent too — the same sums as
 * SQLite's (../../agent/session_totals.ts, whose deltas are used as they
 * are). Sessions are upserted in id order, so concurrent writers take their
 * row locks in one order.
 *
 * @module
 */
import type { SessionDelta } from "../../agent/session_totals.ts";
import type { PgQueryable } from "../connection.ts";

/**
 * Takes the write's lock of each session it stores records of, in one order for every writer
 * (held to the end of the write). Two servers storing the same records at once would otherwise
 * wait on each other's uncommitted keys in their batches' orders and deadlock; with the
 * session's lock, writers of one session take turns, and writers of different sessions never
 * wait. (The locks live in their own advisory namespace, 1, keyed by the id's hash; a hash
 * shared by two ids only makes their writers take turns.)
 */
export async function lockSessions(q: PgQueryable, sessionIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(sessionIds)].sort();
  if (ids.length === 0) return;
  await q.query(
    "SELECT count(pg_advisory_xact_lock(1, hashtext(id))) AS n FROM unnest($1::text[]) AS id",
    [ids],
  );
}

/**
 * The earlier of two start times, where 0 means "not known yet": an unknown start never
 * hides a known one (SQLite's `EARLIEST_START`).
 */
export const PG_EARLIEST_START = `CASE
        WHEN sessions.started_at <= 0 THEN excluded.started_at
        WHEN excluded.started_at <= 0 THEN sessions.started_at
        ELSE least(sessions.started_at, excluded.started_at) END`;

const UPSERT_TOTALS = `
    INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, message_count,
      tool_calls, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
      reasoning_tokens, cost_usd, unpriced_calls, context_tokens, context_window)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
    ON CONFLICT (session_id) DO UPDATE SET
      cwd = coalesce(sessions.cwd, excluded.cwd),
      project = coalesce(sessions.project, excluded.project),
      started_at = ${PG_EARLIEST_START},
      last_activity_at = greatest(sessions.last_activity_at, excluded.last_activity_at),
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

const byId = (a: [string, SessionDelta], b: [string, SessionDelta]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;

/** Applies a batch's deltas, and each sub-agent's to its parent too (inside the caller's write). */
export async function applyDeltas(
  q: PgQueryable,
  deltas: Map<string, SessionDelta>,
): Promise<void> {
  if (deltas.size === 0) return;
  const parents = await q.query(
    `SELECT session_id, parent_session_id AS parent FROM sessions
     WHERE session_id = ANY($1::text[]) AND is_subagent = 1 AND parent_session_id IS NOT NULL`,
    [[...deltas.keys()]],
  );
  const parentOf = new Map(parents.map((row) => [String(row.session_id), String(row.parent)]));
  const rollup = new Map<string, SessionDelta>();
  // In the batch's order, as SQLite sums them.
  for (const [sessionId, d] of deltas) {
    const parent = parentOf.get(sessionId);
    if (parent === undefined) continue;
    const into = rollup.get(parent);
    if (into === undefined) {
      rollup.set(parent, { ...d, model: null, context: null, contextWindow: null });
    } else {
      addTo(into, d);
    }
  }
  for (const [sessionId, d] of [...[...deltas].sort(byId), ...[...rollup].sort(byId)]) {
    await q.query(UPSERT_TOTALS, [
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
    ]);
  }
}
