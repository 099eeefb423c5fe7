/**
 * Everything perception reads about one session for one hook event, in one
 * call: the session, its recent stored events (when a cache is rebuilt),
 * what its rules look at (file changes, build runs, usage, the anomaly
 * history) and what a context answer shows (project state, recent files,
 * git moves, the last injection). Each table is read once: the rules and
 * the context answer take their own windows out of the same rows.
 *
 * The session's active anomalies are not in it: the rules write them, so
 * the context answer reads them after the rules ran.
 *
 * @module
 */
import { type StoredEventRow, storedEventsSince } from "../agent/events.ts";
import { recentFiles } from "../agent/session_activity.ts";
import { getSession, type SessionRow } from "../agent/sessions.ts";
import { type CallUsageRow, usageSince } from "../agent/usage.ts";
import type { DatabaseSync } from "../database.ts";
import { anomalyHistory, type AnomalyHistoryRow } from "./anomalies.ts";
import { type BuildRunRow, buildRunsSince, latestBuildRuns } from "./build_runs.ts";
import { type FileChangeRow, fileChangesSince } from "./file_changes.ts";
import { type GitMoveRow, gitMovesSince } from "./git_moves.ts";
import { getInjection, getProjectState } from "./project_state.ts";

/** What to read. */
export interface PerceptionQuery {
  /** The session. */
  session_id: string;
  /** Start of the activity window, ms: build runs, usage and the rules' file changes. */
  since: number;
  /**
   * The project the activity is in; when absent, the last one the session's stored events
   * name (read only with `events`).
   */
  project?: string;
  /** Also read the session's latest stored events, at most this many, oldest first. */
  events?: number;
  /** Most file changes read (newest first). */
  fileChanges: number;
  /** Read what the rules need beside file changes and builds: usage and the anomaly history. */
  rules: boolean;
  /** Read what a context answer shows, about this project (`session`: the session's own). */
  context?: ContextQuery;
}

/** What a context answer reads. */
export interface ContextQuery {
  /** The project it describes: a root, or `session` for the session's own (else the activity's). */
  project: string | "session" | undefined;
  /** Most recent files. */
  recentFiles: number;
  /** Most git moves. */
  gitMoves: number;
  /** Also the snapshot last injected into the session. */
  injection: boolean;
}

/** What perception needs for one event. */
export interface PerceptionBundle {
  /** The session, when stored. */
  session?: SessionRow;
  /** The project of the activity (given, or named by the stored events). */
  project?: string;
  /** The session's latest stored events, oldest first (when asked for). */
  events?: StoredEventRow[];
  /**
   * File changes in the project, newest first, since the earlier of the window's start and
   * the session's start (so both the rules and the context answer find theirs).
   */
  file_changes: FileChangeRow[];
  /** Build runs since the window's start, oldest first (the newest 200). */
  build_runs: BuildRunRow[];
  /** The session's usage since the window's start, oldest first (with `rules`). */
  usage: CallUsageRow[];
  /** The session's anomaly history (with `rules`). */
  anomaly_history: AnomalyHistoryRow[];
  /** What a context answer shows (with `context`). */
  context?: ContextBundle;
}

/** What a context answer shows. */
export interface ContextBundle {
  /** The project described. */
  project?: string;
  /** File changes in it, newest first, from the same window as the rules' when it is theirs. */
  file_changes: FileChangeRow[];
  /** Its stored state (JSON), when indexed. */
  project_state?: { state: string; refreshed_at: number };
  /** Files the session touched, newest first. */
  recent_files: string[];
  /** The newest build run of any project, when there is one. */
  latest_build?: BuildRunRow;
  /** Git moves in the project, newest first, since the earlier of the window and session starts. */
  git_moves: GitMoveRow[];
  /** The snapshot last injected into the session (JSON). */
  injection?: { snapshot: string; ts: number };
}

/**
 * Reads what perception needs for one event of a session, each table once.
 *
 * @example
 * ```ts ignore
 * const bundle = readPerceptionBundle(db, {
 *   session_id: "s1", since: now - 7_200_000, project: "/work/app", fileChanges: 500, rules: true,
 * });
 * bundle.session?.started_at;
 * ```
 */
export function readPerceptionBundle(db: DatabaseSync, query: PerceptionQuery): PerceptionBundle {
  const session = getSession(db, query.session_id);
  const events = query.events === undefined
    ? undefined
    : storedEventsSince(db, query.session_id, query.since, query.events);
  const project = query.project ?? events?.findLast((e) => e.project)?.project ?? undefined;
  // The context answer looks back to the session's start, which may be before the window.
  const startedAt = session !== undefined && session.started_at > 0
    ? session.started_at
    : undefined;
  const since = Math.min(query.since, startedAt ?? query.since);
  const changesOf = (root: string | undefined) =>
    root === undefined ? [] : fileChangesSince(db, root, since, query.fileChanges);
  const fileChanges = changesOf(project);
  const builds = buildRunsSince(db, query.since);
  const bundle: PerceptionBundle = {
    session,
    project,
    events,
    file_changes: fileChanges,
    build_runs: builds,
    usage: query.rules ? usageSince(db, query.session_id, query.since) : [],
    anomaly_history: query.rules ? anomalyHistory(db, query.session_id) : [],
  };
  const context = query.context;
  if (context !== undefined) {
    const root = context.project === "session"
      ? session?.project ?? session?.cwd ?? project
      : context.project;
    bundle.context = {
      project: root,
      file_changes: root === project ? fileChanges : changesOf(root),
      recent_files: recentFiles(db, query.session_id, context.recentFiles).map((f) => f.path),
      git_moves: root === undefined ? [] : gitMovesSince(db, root, since, context.gitMoves),
      latest_build: newestOf(builds) ?? latestBuildRuns(db, undefined, 1)[0],
    };
    if (root !== undefined) {
      const state = getProjectState(db, root);
      if (state !== undefined) bundle.context.project_state = state;
    }
    if (context.injection) {
      const injection = getInjection(db, query.session_id);
      if (injection !== undefined) bundle.context.injection = injection;
    }
  }
  return bundle;
}

/**
 * The newest run by start, the highest id among equal starts (as `latestBuildRuns` orders;
 * both backends).
 */
export function newestOf(runs: readonly BuildRunRow[]): BuildRunRow | undefined {
  let newest: BuildRunRow | undefined;
  for (const run of runs) {
    if (
      newest === undefined || run.started_at > newest.started_at ||
      (run.started_at === newest.started_at && run.id > newest.id)
    ) {
      newest = run;
    }
  }
  return newest;
}
