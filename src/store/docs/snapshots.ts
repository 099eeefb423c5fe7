/**
 * Snapshots: one per `add`, naming the set of documents that add covered
 * (with the folder, label and git position for a directory add), so a tree
 * can be restored exactly as it was at that moment.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { numberColumn, RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** One snapshot. */
export interface SnapshotRow {
  /** Id (ISO timestamp with a unique suffix, or as given). */
  snapshot_id: string;
  /** Human label. */
  label: string | null;
  /** When it was taken, ms. */
  created_at: number;
  /** Folder added, for directory adds. */
  directory_path: string | null;
  /** Collection the add targeted. */
  collection: string | null;
  /** Session the add happened in. */
  session_id: string | null;
  /** Git commit of the folder. */
  git_commit: string | null;
  /** Git branch of the folder. */
  git_branch: string | null;
  /** Git remote URL of the folder. */
  git_remote: string | null;
  /** Documents in it. */
  files_count: number;
}

/** Reads a snapshot. (Both backends read it with this reader.) */
export const SNAPSHOT: RowReader<SnapshotRow> = new RowReader<SnapshotRow>("snapshot", {
  snapshot_id: "text",
  label: "text?",
  created_at: "number",
  directory_path: "text?",
  collection: "text?",
  session_id: "text?",
  git_commit: "text?",
  git_branch: "text?",
  git_remote: "text?",
  files_count: "number",
});

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** Whether a snapshot id is taken. */
export function snapshotExists(db: DatabaseSync, id: string): boolean {
  return prepared(db, "SELECT 1 AS x FROM docs_snapshots WHERE snapshot_id = ?").get(id) !==
    undefined;
}

/** Creates a snapshot, or refreshes its label and git fields when the id exists. */
export function upsertSnapshot(db: DatabaseSync, row: SnapshotRow): void {
  prepared(
    db,
    `INSERT INTO docs_snapshots (snapshot_id, label, created_at, directory_path, collection,
       session_id, git_commit, git_branch, git_remote, files_count)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (snapshot_id) DO UPDATE SET label = coalesce(excluded.label, label),
       directory_path = coalesce(excluded.directory_path, directory_path),
       git_commit = coalesce(excluded.git_commit, git_commit),
       git_branch = coalesce(excluded.git_branch, git_branch),
       git_remote = coalesce(excluded.git_remote, git_remote)`,
  ).run(
    row.snapshot_id,
    row.label,
    row.created_at,
    row.directory_path,
    row.collection,
    row.session_id,
    row.git_commit,
    row.git_branch,
    row.git_remote,
    row.files_count,
  );
}

/**
 * Records that a document belongs to a snapshot besides the one it was first
 * stored in (which its own row names).
 */
export function addSnapshotMember(db: DatabaseSync, snapshotId: string, documentId: number): void {
  prepared(
    db,
    "INSERT OR IGNORE INTO docs_snapshot_members (snapshot_id, document_id) VALUES (?, ?)",
  ).run(snapshotId, documentId);
}

/** Recounts the documents of a snapshot. */
export function refreshSnapshotCount(db: DatabaseSync, snapshotId: string): void {
  prepared(
    db,
    `UPDATE docs_snapshots SET files_count = (SELECT count(*) FROM (
       SELECT id FROM docs_documents WHERE snapshot_id = ?1
       UNION SELECT document_id FROM docs_snapshot_members WHERE snapshot_id = ?1))
     WHERE snapshot_id = ?1`,
  ).run(snapshotId);
}

/** One snapshot by id. */
export function snapshotById(db: DatabaseSync, id: string): SnapshotRow | undefined {
  return SNAPSHOT.optional(
    prepared(db, `SELECT ${SNAPSHOT.columns} FROM docs_snapshots WHERE snapshot_id = ?`).get(id),
  );
}

/** Snapshots, newest first. */
export function listSnapshots(db: DatabaseSync, limit: number): SnapshotRow[] {
  return SNAPSHOT.all(
    prepared(
      db,
      `SELECT ${SNAPSHOT.columns} FROM docs_snapshots ORDER BY created_at DESC, snapshot_id DESC LIMIT ?`,
    ).all(limit),
  );
}

/** Counts snapshots. */
export function snapshotCount(db: DatabaseSync): number {
  return COUNT.one(prepared(db, "SELECT count(*) AS n FROM docs_snapshots").get()).n;
}

/** Ids of the documents in a snapshot. */
export function snapshotMemberIds(db: DatabaseSync, snapshotId: string): number[] {
  return numberColumn(
    prepared(
      db,
      `SELECT id AS document_id FROM docs_documents WHERE snapshot_id = ?1
     UNION SELECT document_id FROM docs_snapshot_members WHERE snapshot_id = ?1
     ORDER BY document_id`,
    ).all(snapshotId),
    "document_id",
  );
}

/** Snapshot details for a set of snapshot ids. */
export function snapshotsByIds(db: DatabaseSync, ids: readonly string[]): SnapshotRow[] {
  const statement = prepared(
    db,
    `SELECT ${SNAPSHOT.columns} FROM docs_snapshots WHERE snapshot_id = ?`,
  );
  const out: SnapshotRow[] = [];
  for (const id of ids) {
    const row = SNAPSHOT.optional(statement.get(id));
    if (row !== undefined) out.push(row);
  }
  return out;
}

/** Deletes snapshots left without documents; returns how many. */
export function deleteEmptySnapshots(db: DatabaseSync): number {
  return Number(
    prepared(
      db,
      `DELETE FROM docs_snapshots WHERE files_count > 0
         AND snapshot_id NOT IN (SELECT DISTINCT snapshot_id FROM docs_snapshot_members)
         AND snapshot_id NOT IN (SELECT DISTINCT snapshot_id FROM docs_documents
                                 WHERE snapshot_id IS NOT NULL)`,
    ).run().changes,
  );
}
