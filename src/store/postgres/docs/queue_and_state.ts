/**
 * The index queue and the bookkeeping values of document memory on PostgreSQL: SQLite's
 * (../../docs/search_index.ts's queue, ../../docs/state.ts). Times of the queue are the
 * server's clock in ms, as SQLite's are its own.
 *
 * @module
 */
import { QUEUED } from "../../docs/search_index.ts";
import { type DocsCounter, VALUE } from "../../docs/state.ts";
import { numberColumn } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readOptionalRow, readRows } from "../reads.ts";

/** The server's clock, ms. */
const NOW_MS = "trunc(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/** Queues a search index change for a document; answers its position. */
export async function queueIndexChange(
  q: PgQueryable,
  documentId: number,
  op: "add" | "remove",
): Promise<number> {
  const rows = await q.query(
    `INSERT INTO docs_index_queue (document_id, op, queued_at) VALUES ($1, $2, ${NOW_MS})
     RETURNING seq`,
    [documentId, op === "add" ? 1 : 0],
  );
  return numberColumn(rows, "seq")[0];
}

/** Queued changes after a position that have waited long enough, oldest first. */
export async function queuedIndexChanges(
  q: PgQueryable,
  limit: number,
  after = 0,
  minAgeMs = 0,
): Promise<Array<{ seq: number; op: "add" | "remove"; id: number }>> {
  const rows = await readRows(
    q,
    QUEUED,
    `SELECT seq, document_id AS id, op FROM docs_index_queue
     WHERE seq > $1 AND queued_at <= ${NOW_MS} - $2 ORDER BY seq LIMIT $3`,
    [after, minAgeMs, limit],
  );
  return rows.map((row) => ({ seq: row.seq, op: row.op === 1 ? "add" : "remove", id: row.id }));
}

/** Whether any change has waited long enough. */
export async function indexChangesQueued(q: PgQueryable, minAgeMs = 0): Promise<boolean> {
  return (await q.query(
    `SELECT 1 AS x FROM docs_index_queue WHERE queued_at <= ${NOW_MS} - $1 LIMIT 1`,
    [minAgeMs],
  )).length > 0;
}

/**
 * Takes up to `limit` changes that have waited at least `minAgeMs`, oldest first, and restarts
 * their wait: a lease, so a second server catching up at the same moment skips them (rows the
 * first is updating are skipped, not waited for; once it commits they are no longer old
 * enough). A server that stops before deleting them leaves them to be taken again.
 */
export async function leaseIndexChanges(
  q: PgQueryable,
  limit: number,
  minAgeMs: number,
): Promise<Array<{ seq: number; op: "add" | "remove"; id: number }>> {
  const rows = await readRows(
    q,
    QUEUED,
    `UPDATE docs_index_queue SET queued_at = ${NOW_MS}
     WHERE seq IN (SELECT seq FROM docs_index_queue WHERE queued_at <= ${NOW_MS} - $1
       ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING seq, document_id AS id, op`,
    [minAgeMs, limit],
  );
  // RETURNING gives no order: oldest first, as the queue is read.
  return rows.sort((a, b) => a.seq - b.seq)
    .map((row) => ({ seq: row.seq, op: row.op === 1 ? "add" : "remove", id: row.id }));
}

/** Deletes applied changes from the queue; answers how many were still there. */
export async function deleteIndexChanges(q: PgQueryable, seqs: readonly number[]): Promise<number> {
  if (seqs.length === 0) return 0;
  return (await q.query(
    "DELETE FROM docs_index_queue WHERE seq = ANY($1::bigint[]) RETURNING seq",
    [
      [...seqs],
    ],
  )).length;
}

/** Reads a state value. */
export async function readState(q: PgQueryable, key: string): Promise<string | undefined> {
  return (await readOptionalRow(q, VALUE, "SELECT value FROM docs_state WHERE key = $1", [key]))
    ?.value;
}

/** Writes (or, given undefined, removes) a state value. */
export async function writeState(
  q: PgQueryable,
  key: string,
  value: string | undefined,
): Promise<void> {
  if (value === undefined) {
    await q.query("DELETE FROM docs_state WHERE key = $1", [key]);
    return;
  }
  await q.query(
    `INSERT INTO docs_state (key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [key, value],
  );
}

/** Reads a change counter (0 when never bumped). */
export async function readCounter(q: PgQueryable, counter: DocsCounter): Promise<number> {
  return Number(await readState(q, counter) ?? "0");
}

/** Increments a change counter (the row lock orders concurrent bumps, so none is lost). */
export async function bumpCounter(q: PgQueryable, counter: DocsCounter): Promise<void> {
  await q.query(
    `INSERT INTO docs_state (key, value) VALUES ($1, '1')
     ON CONFLICT (key) DO UPDATE SET value = (docs_state.value::bigint + 1)::text`,
    [counter],
  );
}

/**
 * Takes the write's lock of each key (a path, a content hash), held to the end of the write, in
 * one order for every writer: two adds of the same path would otherwise both read no latest
 * version and both insert one, and two adds of the same new content would both insert it. The
 * locks live in their own advisory namespace, 2 (the agent area's session locks use 1), keyed
 * by the key's hash; a hash shared by two keys only makes their writers take turns. Taken in
 * ascending lock order in one statement, so writers that hold some of the same keys never wait
 * on each other in a circle.
 */
export async function lockDocumentKeys(q: PgQueryable, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await q.query(
    `SELECT count(pg_advisory_xact_lock(2, h)) AS n
     FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) AS k ORDER BY h) t`,
    [[...new Set(keys)]],
  );
}
