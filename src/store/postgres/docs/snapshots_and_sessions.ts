/**
 * Snapshots and document sessions on PostgreSQL: SQLite's (../../docs/snapshots.ts,
 * ../../docs/doc_sessions.ts), read by the same row readers. Making a session current and
 * recording a served suggestion set are each one write, as there.
 *
 * @module
 */
import { DOC_SESSION, type DocSessionRow, SERVED } from "../../docs/doc_sessions.ts";
import { SNAPSHOT, type SnapshotRow } from "../../docs/snapshots.ts";
import { numberColumn, RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readOptionalRow, readRow, readRows } from "../reads.ts";

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** Whether a snapshot id is taken. */
export async function snapshotExists(q: PgQueryable, id: string): Promise<boolean> {
  return (await q.query("SELECT 1 AS x FROM docs_snapshots WHERE snapshot_id = $1", [id]))
    .length > 0;
}

/** Creates a snapshot or refreshes its label and git fields. */
export async function upsertSnapshot(q: PgQueryable, row: SnapshotRow): Promise<void> {
  const kept = (column: string) => `${column} = coalesce(excluded.${column}, s.${column})`;
  await q.query(
    `${SNAPSHOT.insertSql("docs_snapshots AS s", (n) => `$${n}`)}
     ON CONFLICT (snapshot_id) DO UPDATE SET ${
      ["label", "directory_path", "git_commit", "git_branch", "git_remote"].map(kept).join(", ")
    }`,
    SNAPSHOT.valuesOf(row),
  );
}

/** Records that a document belongs to a snapshot. */
export async function addSnapshotMember(
  q: PgQueryable,
  snapshotId: string,
  documentId: number,
): Promise<void> {
  await q.query(
    `INSERT INTO docs_snapshot_members (snapshot_id, document_id) VALUES ($1, $2)
     ON CONFLICT DO NOTHING`,
    [snapshotId, documentId],
  );
}

/** The ids of a snapshot's documents: those it first stored and those added to it. */
const MEMBER_IDS = `SELECT id AS document_id FROM docs_documents WHERE snapshot_id = $1
  UNION SELECT document_id FROM docs_snapshot_members WHERE snapshot_id = $1`;

/** Recounts a snapshot's documents. */
export async function refreshSnapshotCount(q: PgQueryable, snapshotId: string): Promise<void> {
  await q.query(
    `UPDATE docs_snapshots SET files_count = (SELECT count(*) FROM (${MEMBER_IDS}) m)
     WHERE snapshot_id = $1`,
    [snapshotId],
  );
}

/** One snapshot. */
export function snapshotById(q: PgQueryable, id: string): Promise<SnapshotRow | undefined> {
  return readOptionalRow(
    q,
    SNAPSHOT,
    `SELECT ${SNAPSHOT.columns} FROM docs_snapshots WHERE snapshot_id = $1`,
    [id],
  );
}

/** Snapshots, newest first. */
export function listSnapshots(q: PgQueryable, limit: number): Promise<SnapshotRow[]> {
  return readRows(
    q,
    SNAPSHOT,
    `SELECT ${SNAPSHOT.columns} FROM docs_snapshots
     ORDER BY created_at DESC, snapshot_id DESC LIMIT $1`,
    [limit],
  );
}

/** How many snapshots there are. */
export async function snapshotCount(q: PgQueryable): Promise<number> {
  return (await readRow(q, COUNT, "SELECT count(*) AS n FROM docs_snapshots")).n;
}

/** The document ids of a snapshot, ascending. */
export async function snapshotMemberIds(q: PgQueryable, snapshotId: string): Promise<number[]> {
  return numberColumn(
    await q.query(`${MEMBER_IDS} ORDER BY document_id`, [snapshotId]),
    "document_id",
  );
}

/** Some snapshots by id, in the order asked (unknown ones left out, one asked twice twice). */
export async function snapshotsByIds(
  q: PgQueryable,
  ids: readonly string[],
): Promise<SnapshotRow[]> {
  if (ids.length === 0) return [];
  return await readRows(
    q,
    SNAPSHOT,
    `SELECT ${SNAPSHOT.columnsOf("s")} FROM unnest($1::text[]) WITH ORDINALITY AS i (id, n)
     JOIN docs_snapshots s ON s.snapshot_id = i.id ORDER BY i.n`,
    [ids],
  );
}

/** Deletes snapshots left without documents; answers how many. */
export async function deleteEmptySnapshots(q: PgQueryable): Promise<number> {
  return (await q.query(
    `DELETE FROM docs_snapshots s WHERE files_count > 0
       AND NOT EXISTS (SELECT 1 FROM docs_snapshot_members m WHERE m.snapshot_id = s.snapshot_id)
       AND NOT EXISTS (SELECT 1 FROM docs_documents d WHERE d.snapshot_id = s.snapshot_id)
     RETURNING snapshot_id`,
  )).length;
}

// ---------------------------------------------------------------------------------------------
// Document sessions

const SESSION_SELECT = `SELECT ${DOC_SESSION.columns} FROM docs_sessions`;

/** The current document session. */
export function currentSession(q: PgQueryable): Promise<DocSessionRow | undefined> {
  return readOptionalRow(q, DOC_SESSION, `${SESSION_SELECT} WHERE is_current = 1`);
}

/** A document session by name. */
export function sessionById(q: PgQueryable, id: string): Promise<DocSessionRow | undefined> {
  return readOptionalRow(q, DOC_SESSION, `${SESSION_SELECT} WHERE session_id = $1`, [id]);
}

/** Makes a document session current (creating or reopening it), clearing any other. */
export function startSession(
  q: PgQueryable,
  id: string,
  label: string | null,
  description: string | null,
  now: number,
): Promise<void> {
  return q.write(async (w) => {
    await w.query(
      "UPDATE docs_sessions SET is_current = 0 WHERE is_current = 1 AND session_id <> $1",
      [id],
    );
    await w.query(
      `INSERT INTO docs_sessions AS s (session_id, label, description, started_at, stopped_at,
         is_current) VALUES ($1, $2, $3, $4, NULL, 1)
       ON CONFLICT (session_id) DO UPDATE SET is_current = 1, stopped_at = NULL,
         label = coalesce(excluded.label, s.label),
         description = coalesce(excluded.description, s.description)`,
      [id, label, description, now],
    );
  });
}

/** Closes a document session; it stops being current. */
export async function stopSession(q: PgQueryable, id: string, now: number): Promise<void> {
  await q.query("UPDATE docs_sessions SET is_current = 0, stopped_at = $1 WHERE session_id = $2", [
    now,
    id,
  ]);
}

/** Document sessions, newest first. */
export function listSessions(q: PgQueryable, limit: number): Promise<DocSessionRow[]> {
  return readRows(q, DOC_SESSION, `${SESSION_SELECT} ORDER BY started_at DESC LIMIT $1`, [
    limit,
  ]);
}

/** How many latest documents were added in a session. */
export async function sessionDocumentCount(q: PgQueryable, id: string): Promise<number> {
  return (await readRow(
    q,
    COUNT,
    "SELECT count(*) AS n FROM docs_documents WHERE session_id = $1 AND is_latest = 1",
    [id],
  )).n;
}

/** Pins documents to a session; answers how many were new. */
export async function pinDocuments(
  q: PgQueryable,
  sessionId: string,
  ids: readonly number[],
  now: number,
): Promise<number> {
  if (ids.length === 0) return 0;
  return (await q.query(
    `INSERT INTO docs_session_pins (session_id, document_id, pinned_at)
     SELECT $1, id, $3 FROM unnest($2::bigint[]) AS p (id)
     ON CONFLICT DO NOTHING RETURNING document_id`,
    [sessionId, ids, now],
  )).length;
}

/** Unpins documents; answers how many were pinned. */
export async function unpinDocuments(
  q: PgQueryable,
  sessionId: string,
  ids: readonly number[],
): Promise<number> {
  return (await q.query(
    `DELETE FROM docs_session_pins WHERE session_id = $1 AND document_id = ANY($2::bigint[])
     RETURNING document_id`,
    [sessionId, ids],
  )).length;
}

/** How many documents are pinned to a session. */
export async function pinCount(q: PgQueryable, sessionId: string): Promise<number> {
  return (await readRow(
    q,
    COUNT,
    "SELECT count(*) AS n FROM docs_session_pins WHERE session_id = $1",
    [sessionId],
  )).n;
}

/** The last suggestion set served for a session and query. */
export async function lastServedSuggestions(
  q: PgQueryable,
  sessionId: string,
  queryKey: string,
): Promise<string | undefined> {
  return (await readOptionalRow(
    q,
    SERVED,
    `SELECT served FROM docs_suggestions_served WHERE session_id = $1 AND query_key = $2
     ORDER BY id DESC LIMIT 1`,
    [sessionId, queryKey],
  ))?.served;
}

/** Records a served suggestion set, keeping only the newest 25 per session. */
export function recordServedSuggestions(
  q: PgQueryable,
  sessionId: string,
  queryKey: string,
  served: string,
  now: number,
): Promise<void> {
  return q.write(async (w) => {
    await w.query(
      `INSERT INTO docs_suggestions_served (session_id, query_key, served, ts)
       VALUES ($1, $2, $3, $4)`,
      [sessionId, queryKey, served, now],
    );
    await w.query(
      `DELETE FROM docs_suggestions_served WHERE session_id = $1 AND id NOT IN
         (SELECT id FROM docs_suggestions_served WHERE session_id = $1 ORDER BY id DESC LIMIT 25)`,
      [sessionId],
    );
  });
}
