/**
 * Build and test runs the build sensor observed: recorded as they finish,
 * and read back newest first (the build status), in a window (a session's
 * timeline), as the latest per project (the overview) and after a position
 * (the change feed).
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { type DatabaseSync, writing } from "../database.ts";
import { pickColumns, RowReader, type RowShape } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A recorded build or test run. */
export interface BuildRunRow {
  /** Row id. */
  id: number;
  /** Watcher tag. */
  tag: string;
  /** Command line. */
  command: string;
  /** Working directory. */
  cwd: string | null;
  /** Project root. */
  project: string | null;
  /** Start, ms. */
  started_at: number;
  /** Duration, ms. */
  duration_ms: number;
  /** Exit code. */
  exit_code: number;
  /** Parsed errors (JSON array). */
  errors: string;
  /** Last lines of output. */
  output_tail: string;
}

/** A build run to record. */
export type BuildRunInput = Omit<BuildRunRow, "id">;

const BUILD_RUN_SHAPE: RowShape<BuildRunRow> = {
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
};

/** Reads {@linkcode BuildRunRow} rows (on either backend). */
export const BUILD_RUN = new RowReader<BuildRunRow>("build run", BUILD_RUN_SHAPE);

const { id: _id, ...BUILD_RUN_INPUT_SHAPE } = BUILD_RUN_SHAPE;

/** Gives a {@linkcode BuildRunInput}'s columns and values, for its insert (either backend). */
export const BUILD_RUN_INPUT = new RowReader<BuildRunInput>("build run", BUILD_RUN_INPUT_SHAPE);

/** Records a build run; returns its id. */
export function insertBuildRun(db: DatabaseSync, run: BuildRunInput): number {
  return writing(db, () => {
    const insert = prepared(db, BUILD_RUN_INPUT.insertSql("build_runs"));
    return Number(insert.run(...BUILD_RUN_INPUT.valuesOf(run)).lastInsertRowid);
  });
}

/** The latest build runs, of one tag or of any, newest first. */
export function latestBuildRuns(
  db: DatabaseSync,
  tag: string | undefined,
  limit: number,
): BuildRunRow[] {
  if (tag === undefined) {
    return BUILD_RUN.all(
      prepared(
        db,
        `SELECT ${BUILD_RUN.columns} FROM build_runs ORDER BY started_at DESC, id DESC LIMIT ?`,
      ).all(limit),
    );
  }
  return BUILD_RUN.all(
    prepared(
      db,
      `SELECT ${BUILD_RUN.columns} FROM build_runs WHERE tag = ? ORDER BY started_at DESC, id DESC LIMIT ?`,
    ).all(tag, limit),
  );
}

/** Build runs started since a time, oldest first (at most the newest 200). */
export function buildRunsSince(db: DatabaseSync, since: number): BuildRunRow[] {
  return BUILD_RUN.all(
    prepared(
      db,
      `SELECT ${BUILD_RUN.columns}
     FROM build_runs WHERE started_at >= ? ORDER BY started_at DESC LIMIT 200`,
    ).all(since),
  ).reverse();
}

/** A run's outcome, as the overview and a session's timeline show it. */
export interface BuildOutcomeRow {
  /** Watcher tag. */
  tag: string;
  /** Command line. */
  command: string;
  /** Start, ms. */
  started_at: number;
  /** Duration, ms. */
  duration_ms: number;
  /** Exit code. */
  exit_code: number;
  /** Parsed errors (JSON array). */
  errors: string;
}

const BUILD_OUTCOME_SHAPE: RowShape<BuildOutcomeRow> = {
  tag: "text",
  command: "text",
  started_at: "number",
  duration_ms: "number",
  exit_code: "number",
  errors: "text",
};

/** Reads {@linkcode BuildOutcomeRow} rows (on either backend). */
export const BUILD_OUTCOME = new RowReader<BuildOutcomeRow>("build outcome", BUILD_OUTCOME_SHAPE);

/** Reads each project's latest {@linkcode BuildOutcomeRow} (on either backend). */
export const PROJECT_BUILD = new RowReader<BuildOutcomeRow & { project: string }>("project build", {
  project: "text",
  ...BUILD_OUTCOME_SHAPE,
});

/** The latest build run of each project and tag among the most recent runs. */
export function latestBuildPerProject(
  db: DatabaseSync,
  recentRuns: number,
): Array<BuildOutcomeRow & { project: string }> {
  return PROJECT_BUILD.all(
    prepared(
      db,
      `SELECT project, tag, command, started_at, duration_ms, exit_code, errors FROM (
       SELECT coalesce(project, cwd, '') AS project, tag, command, started_at, duration_ms,
         exit_code, errors,
         row_number() OVER (PARTITION BY coalesce(project, cwd, ''), tag ORDER BY started_at DESC, id DESC) AS rank
       FROM (SELECT * FROM build_runs ORDER BY started_at DESC, id DESC LIMIT ?)
     ) WHERE rank = 1 ORDER BY started_at DESC`,
    ).all(recentRuns),
  );
}

/** Build runs of a project within a time window, oldest first. */
export function buildRunsBetween(
  db: DatabaseSync,
  project: string | null,
  since: number,
  until: number,
  limit: number,
): BuildOutcomeRow[] {
  const scope = project === null ? "" : "AND (project = ? OR cwd = ? OR project IS NULL)";
  const params: SQLInputValue[] = [since, until];
  if (project !== null) params.push(project, project);
  params.push(limit);
  return BUILD_OUTCOME.all(
    prepared(
      db,
      `SELECT ${BUILD_OUTCOME.columns} FROM build_runs
     WHERE started_at >= ? AND started_at <= ? ${scope} ORDER BY started_at LIMIT ?`,
    ).all(...params),
  );
}

const NEW_BUILD_COLUMNS = ["id", "tag", "project", "exit_code", "started_at"] as const;

/**
 * A build run as the change feed announces it, its project the working
 * directory when it names none (a type, not an interface: the feed passes it
 * on as a plain record).
 */
export type NewBuildRow = Pick<BuildRunRow, typeof NEW_BUILD_COLUMNS[number]>;

/** Reads {@linkcode NewBuildRow} rows (on either backend). */
export const NEW_BUILD = new RowReader<NewBuildRow>(
  "new build run",
  pickColumns(BUILD_RUN_SHAPE, NEW_BUILD_COLUMNS),
);

/** Build runs recorded after an id, oldest first. */
export function buildRunsAfter(db: DatabaseSync, id: number, limit: number): NewBuildRow[] {
  return NEW_BUILD.all(
    prepared(
      db,
      `SELECT id, tag, coalesce(project, cwd) AS project, exit_code, started_at FROM build_runs
     WHERE id > ? ORDER BY id LIMIT ?`,
    ).all(id, limit),
  );
}
