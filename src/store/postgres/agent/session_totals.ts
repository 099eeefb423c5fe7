/**
 * The running totals of sessions on PostgreSQL: what a batch of messages or
 * usage adds to each session it touches, applied with one upsert per
 * session, a sub-agent's counts going to its parent too — the same sums as
 * SQLite's (../../agent/session_totals.ts, whose deltas, sums and
 * parameters are used as they are). Sessions are upserted in id order, so
 * concurrent writers take their row locks in one order.
 *
 * @module
 */
import {
  parentDeltas,
  type SessionDelta,
  TOTALS_UPSERT,
  totalsValues,
} from "../../agent/session_totals.ts";
import { RowReader } from "../../rows.ts";
import { upsertSql } from "../../upserts.ts";
import { PG_UPSERT } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";

const PARENT = new RowReader<{ session_id: string; parent: string }>("session parent", {
  session_id: "text",
  parent: "text",
});

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

const UPSERT_TOTALS = upsertSql(TOTALS_UPSERT, PG_UPSERT);

const byId = (a: [string, SessionDelta], b: [string, SessionDelta]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;

/** Applies a batch's deltas, and each sub-agent's to its parent too (inside the caller's write). */
export async function applyDeltas(
  q: PgQueryable,
  deltas: Map<string, SessionDelta>,
): Promise<void> {
  if (deltas.size === 0) return;
  const parents = await readRows(
    q,
    PARENT,
    `SELECT session_id, parent_session_id AS parent FROM sessions
     WHERE session_id = ANY($1::text[]) AND is_subagent = 1 AND parent_session_id IS NOT NULL`,
    [[...deltas.keys()]],
  );
  const parentOf = new Map(parents.map((row) => [row.session_id, row.parent]));
  const rollup = parentDeltas(deltas, (id) => parentOf.get(id));
  for (const [sessionId, d] of [...[...deltas].sort(byId), ...[...rollup].sort(byId)]) {
    await q.query(UPSERT_TOTALS, totalsValues(sessionId, d));
  }
}
