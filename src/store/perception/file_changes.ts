/**
 * Files changed in a project, as the file watcher saw them, with the agent
 * session that made each change when it could be attributed.
 *
 * @module
 */
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A file change seen by the watcher. */
export interface FileChangeRow {
  /** Project root. */
  project: string;
  /** Path. */
  path: string;
  /** create, modify or remove. */
  kind: string;
  /** Time, ms. */
  ts: number;
  /** agent or unknown. */
  source: string;
  /** Session that made it, when attributed. */
  session_id: string | null;
  /** Agent that made it, when attributed. */
  agent: string | null;
}

/** Reads {@linkcode FileChangeRow} rows, and gives one's values for its insert (on either backend). */
export const FILE_CHANGE = new RowReader<FileChangeRow>("file change", {
  project: "text",
  path: "text",
  kind: "text",
  ts: "number",
  source: "text",
  session_id: "text?",
  agent: "text?",
});

/** Records a file change. */
export function insertFileChange(db: DatabaseSync, change: FileChangeRow): void {
  return writing(db, () => {
    prepared(db, FILE_CHANGE.insertSql("file_changes")).run(...FILE_CHANGE.valuesOf(change));
  });
}

/** File changes in a project (or every project when null) since a time, newest first. */
export function fileChangesSince(
  db: DatabaseSync,
  project: string | null,
  since: number,
  limit: number,
): FileChangeRow[] {
  // A project's changes: those recorded under it, and any path below it.
  const where = project === null ? "" : "(project = ? OR path >= ? AND path < ?) AND";
  const scope = project === null ? [] : [project, project + "/", project + "/\uffff"];
  return FILE_CHANGE.all(
    prepared(
      db,
      `SELECT ${FILE_CHANGE.columns} FROM file_changes WHERE ${where} ts >= ? ORDER BY ts DESC LIMIT ?`,
    ).all(...scope, since, limit),
  );
}

/** A file a session changed. */
export interface SessionFileChangeRow {
  /** Path. */
  path: string;
  /** create, modify or remove. */
  kind: string;
  /** Time, ms. */
  ts: number;
}

/** Reads {@linkcode SessionFileChangeRow} rows (on either backend). */
export const SESSION_FILE_CHANGE = new RowReader<SessionFileChangeRow>("session file change", {
  path: "text",
  kind: "text",
  ts: "number",
});

/** Files a session changed as the file watcher attributed them, oldest first. */
export function sessionFileChanges(
  db: DatabaseSync,
  project: string,
  sessionId: string,
  since: number,
  limit: number,
): SessionFileChangeRow[] {
  return SESSION_FILE_CHANGE.all(
    prepared(
      db,
      `SELECT path, kind, ts FROM file_changes WHERE project = ? AND ts >= ? AND session_id = ?
     ORDER BY ts LIMIT ?`,
    ).all(project, since, sessionId, limit),
  );
}
