/**
 * Everything perception reads about one session for one hook event, on PostgreSQL: the same
 * bundle as SQLite's (../../perception/perception_bundle.ts, which says what each part is
 * for), read from the same tables with the same windows. The reads that do not depend on one
 * another run at once, each on a connection of the pool, so the bundle costs about the
 * slowest read, not their sum.
 *
 * @module
 */
import {
  newestOf,
  type PerceptionBundle,
  type PerceptionQuery,
} from "../../perception/perception_bundle.ts";
import type { PgQueryable } from "../connection.ts";
import { storedEventsSince } from "../agent/events.ts";
import { recentFiles } from "../agent/session_activity.ts";
import { getSession } from "../agent/sessions.ts";
import { usageSince } from "../agent/usage.ts";
import { anomalyHistory } from "./anomalies.ts";
import {
  buildRunsSince,
  fileChangesSince,
  getInjection,
  getProjectState,
  gitMovesSince,
  latestBuildRuns,
} from "./sensed.ts";

/** Reads what perception needs for one event of a session. */
export async function readPerceptionBundle(
  q: PgQueryable,
  query: PerceptionQuery,
): Promise<PerceptionBundle> {
  const [session, events, builds, usage, history] = await Promise.all([
    getSession(q, query.session_id),
    query.events === undefined
      ? undefined
      : storedEventsSince(q, query.session_id, query.since, query.events),
    buildRunsSince(q, query.since),
    query.rules ? usageSince(q, query.session_id, query.since) : [],
    query.rules ? anomalyHistory(q, query.session_id) : [],
  ]);
  const project = query.project ?? events?.findLast((e) => e.project)?.project ?? undefined;
  const startedAt = session !== undefined && session.started_at > 0
    ? session.started_at
    : undefined;
  const since = Math.min(query.since, startedAt ?? query.since);
  const changesOf = (root: string | undefined) =>
    root === undefined ? Promise.resolve([]) : fileChangesSince(q, root, since, query.fileChanges);
  const fileChanges = await changesOf(project);
  const bundle: PerceptionBundle = {
    session,
    project,
    events,
    file_changes: fileChanges,
    build_runs: builds,
    usage,
    anomaly_history: history,
  };
  const context = query.context;
  if (context !== undefined) {
    const root = context.project === "session"
      ? session?.project ?? session?.cwd ?? project
      : context.project;
    const newest = newestOf(builds);
    const [rootChanges, files, moves, latest, state, injection] = await Promise.all([
      root === project ? fileChanges : changesOf(root),
      recentFiles(q, query.session_id, context.recentFiles),
      root === undefined ? [] : gitMovesSince(q, root, since, context.gitMoves),
      newest === undefined ? latestBuildRuns(q, undefined, 1) : [newest],
      root === undefined ? undefined : getProjectState(q, root),
      context.injection ? getInjection(q, query.session_id) : undefined,
    ]);
    bundle.context = {
      project: root,
      file_changes: rootChanges,
      recent_files: files.map((f) => f.path),
      git_moves: moves,
      latest_build: latest[0],
    };
    if (state !== undefined) bundle.context.project_state = state;
    if (injection !== undefined) bundle.context.injection = injection;
  }
  return bundle;
}
