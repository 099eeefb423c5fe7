/**
 * Git moves in a project: commits, branch switches, resets, pulls, as the
 * git sensor saw them.
 *
 * @module
 */
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A commit or branch move. */
export interface GitMoveRow {
  /** Project root. */
  project: string;
  /** Time, ms. */
  ts: number;
  /** commit, branch_switch, reset, … */
  kind: string;
  /** Branch after the move. */
  branch: string | null;
  /** Ref before. */
  from_ref: string | null;
  /** Ref after. */
  to_ref: string | null;
  /** Commit subject or description. */
  summary: string | null;
}

/** Reads {@linkcode GitMoveRow} rows, and gives one's values for its insert (on either backend). */
export const GIT_MOVE = new RowReader<GitMoveRow>("git move", {
  project: "text",
  ts: "number",
  kind: "text",
  branch: "text?",
  from_ref: "text?",
  to_ref: "text?",
  summary: "text?",
});

/** Records a git move. */
export function insertGitMove(db: DatabaseSync, move: GitMoveRow): void {
  return writing(db, () => {
    prepared(db, GIT_MOVE.insertSql("git_moves")).run(...GIT_MOVE.valuesOf(move));
  });
}

/** Git moves in a project (or all when null) since a time, newest first. */
export function gitMovesSince(
  db: DatabaseSync,
  project: string | null,
  since: number,
  limit: number,
): GitMoveRow[] {
  const sql = `SELECT ${GIT_MOVE.columns} FROM git_moves WHERE ${
    project === null ? "" : "project = ? AND"
  } ts >= ? ORDER BY ts DESC LIMIT ?`;
  const statement = prepared(db, sql);
  return GIT_MOVE.all(
    project === null ? statement.all(since, limit) : statement.all(project, since, limit),
  );
}
