/**
 * What the sensors record, on PostgreSQL: build and test runs, file changes, git moves, each
 * project's sensed state and the context last injected into each session — SQLite's
 * statements (../../perception/build_runs.ts, file_changes.ts, git_moves.ts,
 * project_state.ts) in PostgreSQL's dialect.
 *
 * @module
 */
import type {
  BuildOutcomeRow,
  BuildRunInput,
  BuildRunRow,
  NewBuildRow,
} from "../../perception/build_runs.ts";
import type { FileChangeRow, SessionFileChangeRow } from "../../perception/file_changes.ts";
import type { GitMoveRow } from "../../perception/git_moves.ts";
import { RowReader, type RowShape, textColumn } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";

const BUILD_RUN = new RowReader<BuildRunRow>("build run", {
  id: "number",
  tag: "text",
  command: "text",
  cwd: "text?",
  project: "text?",
  started_at: "number",
  duration_ms: "number",
  exit_code: "number",
  errors: "text",
  output_tail: "text",
});

/** Records a build run; returns its id. */
export async function insertBuildRun(q: PgQueryable, run: BuildRunInput): Promise<number> {
  const rows = await q.query(
    `INSERT INTO build_runs (tag, command, cwd, project, started_at, duration_ms, exit_code,
       errors, output_tail)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [
      run.tag,
      run.command,
      run.cwd,
      run.project,
      run.started_at,
      run.duration_ms,
      run.exit_code,
      run.errors,
      run.output_tail,
    ],
  );
  return Number(rows[0].id);
}

/** The latest build runs, of one tag or of any, newest first. */
export async function latestBuildRuns(
  q: PgQueryable,
  tag: string | undefined,
  limit: number,
): Promise<BuildRunRow[]> {
  return BUILD_RUN.all(
    tag === undefined
      ? await q.query(
        `SELECT ${BUILD_RUN.columns} FROM build_runs ORDER BY started_at DESC, id DESC LIMIT $1`,
        [limit],
      )
      : await q.query(
        `SELECT ${BUILD_RUN.columns} FROM build_runs WHERE tag = $1
         ORDER BY started_at DESC, id DESC LIMIT $2`,
        [tag, limit],
      ),
  );
}

/** Build runs started since a time, oldest first (at most the newest 200). */
export async function buildRunsSince(q: PgQueryable, since: number): Promise<BuildRunRow[]> {
  return BUILD_RUN.all(
    await q.query(
      `SELECT ${BUILD_RUN.columns} FROM build_runs WHERE started_at >= $1
       ORDER BY started_at DESC, id DESC LIMIT 200`,
      [since],
    ),
  ).reverse();
}

const BUILD_OUTCOME_SHAPE: RowShape<BuildOutcomeRow> = {
  tag: "text",
  command: "text",
  started_at: "number",
  duration_ms: "number",
  exit_code: "number",
  errors: "text",
};

const BUILD_OUTCOME = new RowReader<BuildOutcomeRow>("build outcome", BUILD_OUTCOME_SHAPE);

const PROJECT_BUILD = new RowReader<BuildOutcomeRow & { project: string }>("project build", {
  project: "text",
  ...BUILD_OUTCOME_SHAPE,
});

/** The latest build run of each project and tag among the most recent runs. */
export async function latestBuildPerProject(
  q: PgQueryable,
  recentRuns: number,
): Promise<Array<BuildOutcomeRow & { project: string }>> {
  return PROJECT_BUILD.all(
    await q.query(
      `SELECT project, tag, command, started_at, duration_ms, exit_code, errors FROM (
         SELECT coalesce(project, cwd, '') AS project, tag, command, started_at, duration_ms,
           exit_code, errors, id,
           row_number() OVER (PARTITION BY coalesce(project, cwd, ''), tag
             ORDER BY started_at DESC, id DESC) AS rank
         FROM (SELECT * FROM build_runs ORDER BY started_at DESC, id DESC LIMIT $1) recent
       ) ranked WHERE rank = 1 ORDER BY started_at DESC, id DESC`,
      [recentRuns],
    ),
  );
}

/** Build runs of a project within a time window, oldest first. */
export async function buildRunsBetween(
  q: PgQueryable,
  project: string | null,
  since: number,
  until: number,
  limit: number,
): Promise<BuildOutcomeRow[]> {
  return BUILD_OUTCOME.all(
    project === null
      ? await q.query(
        `SELECT ${BUILD_OUTCOME.columns} FROM build_runs
         WHERE started_at >= $1 AND started_at <= $2 ORDER BY started_at, id LIMIT $3`,
        [since, until, limit],
      )
      : await q.query(
        `SELECT ${BUILD_OUTCOME.columns} FROM build_runs
         WHERE started_at >= $1 AND started_at <= $2
           AND (project = $3 OR cwd = $3 OR project IS NULL)
         ORDER BY started_at, id LIMIT $4`,
        [since, until, project, limit],
      ),
  );
}

const NEW_BUILD = new RowReader<NewBuildRow>("new build run", {
  id: "number",
  tag: "text",
  project: "text?",
  exit_code: "number",
  started_at: "number",
});

/** Build runs recorded after an id, oldest first. */
export async function buildRunsAfter(
  q: PgQueryable,
  id: number,
  limit: number,
): Promise<NewBuildRow[]> {
  return NEW_BUILD.all(
    await q.query(
      `SELECT id, tag, coalesce(project, cwd) AS project, exit_code, started_at FROM build_runs
       WHERE id > $1 ORDER BY id LIMIT $2`,
      [id, limit],
    ),
  );
}

const FILE_CHANGE = new RowReader<FileChangeRow>("file change", {
  project: "text",
  path: "text",
  kind: "text",
  ts: "number",
  source: "text",
  session_id: "text?",
  agent: "text?",
});

/** Records a file change. */
export async function insertFileChange(q: PgQueryable, change: FileChangeRow): Promise<void> {
  await q.query(
    `INSERT INTO file_changes (project, path, kind, ts, source, session_id, agent)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      change.project,
      change.path,
      change.kind,
      change.ts,
      change.source,
      change.session_id,
      change.agent,
    ],
  );
}

/** File changes in a project (or every project when null) since a time, newest first. */
export async function fileChangesSince(
  q: PgQueryable,
  project: string | null,
  since: number,
  limit: number,
): Promise<FileChangeRow[]> {
  return FILE_CHANGE.all(
    project === null
      ? await q.query(
        `SELECT ${FILE_CHANGE.columns} FROM file_changes WHERE ts >= $1
         ORDER BY ts DESC, id DESC LIMIT $2`,
        [since, limit],
      )
      : await q.query(
        `SELECT ${FILE_CHANGE.columns} FROM file_changes
         WHERE (project = $1 OR path >= $2 AND path < $3) AND ts >= $4
         ORDER BY ts DESC, id DESC LIMIT $5`,
        [project, project + "/", project + "/\uffff", since, limit],
      ),
  );
}

const SESSION_FILE_CHANGE = new RowReader<SessionFileChangeRow>("session file change", {
  path: "text",
  kind: "text",
  ts: "number",
});

/** Files a session changed as the file watcher attributed them, oldest first. */
export async function sessionFileChanges(
  q: PgQueryable,
  project: string,
  sessionId: string,
  since: number,
  limit: number,
): Promise<SessionFileChangeRow[]> {
  return SESSION_FILE_CHANGE.all(
    await q.query(
      `SELECT path, kind, ts FROM file_changes WHERE project = $1 AND ts >= $2 AND session_id = $3
       ORDER BY ts, id LIMIT $4`,
      [project, since, sessionId, limit],
    ),
  );
}

const GIT_MOVE = new RowReader<GitMoveRow>("git move", {
  project: "text",
  ts: "number",
  kind: "text",
  branch: "text?",
  from_ref: "text?",
  to_ref: "text?",
  summary: "text?",
});

/** Records a git move. */
export async function insertGitMove(q: PgQueryable, move: GitMoveRow): Promise<void> {
  await q.query(
    `INSERT INTO git_moves (project, ts, kind, branch, from_ref, to_ref, summary)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [move.project, move.ts, move.kind, move.branch, move.from_ref, move.to_ref, move.summary],
  );
}

/** Git moves in a project (or all when null) since a time, newest first. */
export async function gitMovesSince(
  q: PgQueryable,
  project: string | null,
  since: number,
  limit: number,
): Promise<GitMoveRow[]> {
  return GIT_MOVE.all(
    project === null
      ? await q.query(
        `SELECT ${GIT_MOVE.columns} FROM git_moves WHERE ts >= $1 ORDER BY ts DESC, id DESC LIMIT $2`,
        [since, limit],
      )
      : await q.query(
        `SELECT ${GIT_MOVE.columns} FROM git_moves WHERE project = $1 AND ts >= $2
         ORDER BY ts DESC, id DESC LIMIT $3`,
        [project, since, limit],
      ),
  );
}

const PROJECT_STATE = new RowReader<{ state: string; refreshed_at: number }>("project state", {
  state: "text",
  refreshed_at: "number",
});

/** The stored project state of a root, if indexed. */
export async function getProjectState(
  q: PgQueryable,
  root: string,
): Promise<{ state: string; refreshed_at: number } | undefined> {
  return PROJECT_STATE.optional(
    (await q.query("SELECT state, refreshed_at FROM project_state WHERE root = $1", [root]))[0],
  );
}

/** The indexed root that contains `path` most closely, if any. */
export async function projectRootFor(q: PgQueryable, path: string): Promise<string | undefined> {
  // The longest root equal to the path or a folder above it, found by the index.
  const roots = textColumn(
    await q.query(
      `SELECT root FROM project_state
       WHERE root = $1 OR starts_with($1, root || '/')
       ORDER BY length(root) DESC LIMIT 1`,
      [path],
    ),
    "root",
  );
  return roots[0];
}

/** Saves a project's indexed state. */
export async function saveProjectState(
  q: PgQueryable,
  root: string,
  state: string,
  refreshedAt: number,
): Promise<void> {
  await q.query(
    `INSERT INTO project_state (root, state, refreshed_at) VALUES ($1, $2, $3)
     ON CONFLICT (root) DO UPDATE SET state = excluded.state, refreshed_at = excluded.refreshed_at`,
    [root, state, refreshedAt],
  );
}

const INJECTION = new RowReader<{ snapshot: string; ts: number }>("injection", {
  snapshot: "text",
  ts: "number",
});

/** The snapshot last injected into a session, if any. */
export async function getInjection(
  q: PgQueryable,
  sessionId: string,
): Promise<{ snapshot: string; ts: number } | undefined> {
  return INJECTION.optional(
    (await q.query("SELECT snapshot, ts FROM injections WHERE session_id = $1", [sessionId]))[0],
  );
}

/** Saves what was just injected into a session. */
export async function saveInjection(
  q: PgQueryable,
  sessionId: string,
  snapshot: string,
  now: number,
): Promise<void> {
  await q.query(
    `INSERT INTO injections (session_id, snapshot, ts) VALUES ($1, $2, $3)
     ON CONFLICT (session_id) DO UPDATE SET snapshot = excluded.snapshot, ts = excluded.ts`,
    [sessionId, snapshot, now],
  );
}
