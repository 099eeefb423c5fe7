/**
 * What the sensors record, on PostgreSQL: build and test runs, file changes, git moves, each
 * project's sensed state and the context last injected into each session — SQLite's
 * statements (../../perception/build_runs.ts, file_changes.ts, git_moves.ts,
 * project_state.ts, whose readers and writes are used as they are) in PostgreSQL's dialect.
 *
 * @module
 */
import {
  BUILD_OUTCOME,
  BUILD_RUN,
  BUILD_RUN_INPUT,
  type BuildOutcomeRow,
  type BuildRunInput,
  type BuildRunRow,
  NEW_BUILD,
  type NewBuildRow,
  PROJECT_BUILD,
} from "../../perception/build_runs.ts";
import {
  FILE_CHANGE,
  type FileChangeRow,
  SESSION_FILE_CHANGE,
  type SessionFileChangeRow,
} from "../../perception/file_changes.ts";
import { GIT_MOVE, type GitMoveRow } from "../../perception/git_moves.ts";
import { INJECTION, PROJECT_STATE, saveKeyedSql } from "../../perception/project_state.ts";
import { type RowReader, textColumn } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { pgPlaceholder } from "../binding.ts";
import { insertRow, readOptionalRow, readRows } from "../reads.ts";

/** Records a build run; returns its id. */
export async function insertBuildRun(q: PgQueryable, run: BuildRunInput): Promise<number> {
  const sql = `${BUILD_RUN_INPUT.insertSql("build_runs", pgPlaceholder)} RETURNING id`;
  return Number((await q.query(sql, BUILD_RUN_INPUT.valuesOf(run)))[0].id);
}

/** The latest build runs, of one tag or of any, newest first. */
export function latestBuildRuns(
  q: PgQueryable,
  tag: string | undefined,
  limit: number,
): Promise<BuildRunRow[]> {
  const latest = (where: string, params: Array<string | number>) =>
    readRows(
      q,
      BUILD_RUN,
      `SELECT ${BUILD_RUN.columns} FROM build_runs ${where}
       ORDER BY started_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
  return tag === undefined ? latest("", [limit]) : latest("WHERE tag = $1", [tag, limit]);
}

/** Build runs started since a time, oldest first (at most the newest 200). */
export async function buildRunsSince(q: PgQueryable, since: number): Promise<BuildRunRow[]> {
  const newest = await readRows(
    q,
    BUILD_RUN,
    `SELECT ${BUILD_RUN.columns} FROM build_runs WHERE started_at >= $1
     ORDER BY started_at DESC, id DESC LIMIT 200`,
    [since],
  );
  return newest.reverse();
}

/** The latest build run of each project and tag among the most recent runs. */
export function latestBuildPerProject(
  q: PgQueryable,
  recentRuns: number,
): Promise<Array<BuildOutcomeRow & { project: string }>> {
  return readRows(
    q,
    PROJECT_BUILD,
    `SELECT project, tag, command, started_at, duration_ms, exit_code, errors FROM (
       SELECT coalesce(project, cwd, '') AS project, tag, command, started_at, duration_ms,
         exit_code, errors, id,
         row_number() OVER (PARTITION BY coalesce(project, cwd, ''), tag
           ORDER BY started_at DESC, id DESC) AS rank
       FROM (SELECT * FROM build_runs ORDER BY started_at DESC, id DESC LIMIT $1) recent
     ) ranked WHERE rank = 1 ORDER BY started_at DESC, id DESC`,
    [recentRuns],
  );
}

/** Build runs of a project within a time window, oldest first. */
export function buildRunsBetween(
  q: PgQueryable,
  project: string | null,
  since: number,
  until: number,
  limit: number,
): Promise<BuildOutcomeRow[]> {
  const scope = project === null ? "" : "AND (project = $4 OR cwd = $4 OR project IS NULL)";
  return readRows(
    q,
    BUILD_OUTCOME,
    `SELECT ${BUILD_OUTCOME.columns} FROM build_runs
     WHERE started_at >= $1 AND started_at <= $2 ${scope} ORDER BY started_at, id LIMIT $3`,
    project === null ? [since, until, limit] : [since, until, limit, project],
  );
}

/** Build runs recorded after an id, oldest first. */
export function buildRunsAfter(
  q: PgQueryable,
  id: number,
  limit: number,
): Promise<NewBuildRow[]> {
  return readRows(
    q,
    NEW_BUILD,
    `SELECT id, tag, coalesce(project, cwd) AS project, exit_code, started_at FROM build_runs
     WHERE id > $1 ORDER BY id LIMIT $2`,
    [id, limit],
  );
}

/** Records a file change. */
export function insertFileChange(q: PgQueryable, change: FileChangeRow): Promise<void> {
  return insertRow(q, FILE_CHANGE, "file_changes", change);
}

/**
 * The rows of `table` recorded since a time, newest first (at most `limit`), of every
 * project, or those a project's `scope` selects (a condition on `$3`… and its values).
 */
function newestSince<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  table: "file_changes" | "git_moves",
  since: number,
  limit: number,
  scope?: { where: string; values: string[] },
): Promise<T[]> {
  return readRows(
    q,
    reader,
    `SELECT ${reader.columns} FROM ${table} WHERE ts >= $1 ${scope ? `AND ${scope.where}` : ""}
     ORDER BY ts DESC, id DESC LIMIT $2`,
    [since, limit, ...scope?.values ?? []],
  );
}

/** File changes in a project (or every project when null) since a time, newest first. */
export function fileChangesSince(
  q: PgQueryable,
  project: string | null,
  since: number,
  limit: number,
): Promise<FileChangeRow[]> {
  // A project's changes: those recorded under it, and any path below it.
  const scope = project === null ? undefined : {
    where: "(project = $3 OR path >= $4 AND path < $5)",
    values: [project, project + "/", project + "/\uffff"],
  };
  return newestSince(q, FILE_CHANGE, "file_changes", since, limit, scope);
}

/** Files a session changed as the file watcher attributed them, oldest first. */
export function sessionFileChanges(
  q: PgQueryable,
  project: string,
  sessionId: string,
  since: number,
  limit: number,
): Promise<SessionFileChangeRow[]> {
  return readRows(
    q,
    SESSION_FILE_CHANGE,
    `SELECT path, kind, ts FROM file_changes WHERE project = $1 AND ts >= $2 AND session_id = $3
     ORDER BY ts, id LIMIT $4`,
    [project, since, sessionId, limit],
  );
}

/** Records a git move. */
export function insertGitMove(q: PgQueryable, move: GitMoveRow): Promise<void> {
  return insertRow(q, GIT_MOVE, "git_moves", move);
}

/** Git moves in a project (or all when null) since a time, newest first. */
export function gitMovesSince(
  q: PgQueryable,
  project: string | null,
  since: number,
  limit: number,
): Promise<GitMoveRow[]> {
  const scope = project === null ? undefined : { where: "project = $3", values: [project] };
  return newestSince(q, GIT_MOVE, "git_moves", since, limit, scope);
}

/** The stored project state of a root, if indexed. */
export function getProjectState(
  q: PgQueryable,
  root: string,
): Promise<{ state: string; refreshed_at: number } | undefined> {
  const sql = "SELECT state, refreshed_at FROM project_state WHERE root = $1";
  return readOptionalRow(q, PROJECT_STATE, sql, [root]);
}

/** The indexed root that contains `path` most closely, if any. */
export async function projectRootFor(q: PgQueryable, path: string): Promise<string | undefined> {
  // The longest root equal to the path or a folder above it, found by the index.
  const rows = await q.query(
    `SELECT root FROM project_state
     WHERE root = $1 OR starts_with($1, root || '/')
     ORDER BY length(root) DESC LIMIT 1`,
    [path],
  );
  return textColumn(rows, "root")[0];
}

/** Saves a project's indexed state. */
export async function saveProjectState(
  q: PgQueryable,
  root: string,
  state: string,
  refreshedAt: number,
): Promise<void> {
  await q.query(saveKeyedSql("project_state", pgPlaceholder), [root, state, refreshedAt]);
}

/** The snapshot last injected into a session, if any. */
export function getInjection(
  q: PgQueryable,
  sessionId: string,
): Promise<{ snapshot: string; ts: number } | undefined> {
  const sql = "SELECT snapshot, ts FROM injections WHERE session_id = $1";
  return readOptionalRow(q, INJECTION, sql, [sessionId]);
}

/** Saves what was just injected into a session. */
export async function saveInjection(
  q: PgQueryable,
  sessionId: string,
  snapshot: string,
  now: number,
): Promise<void> {
  await q.query(saveKeyedSql("injections", pgPlaceholder), [sessionId, snapshot, now]);
}
