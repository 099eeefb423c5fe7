/**
 * What the rest of Vantage asks of the perception store: the interface
 * every backend implements (SQLite here; PostgreSQL for team mode), and its
 * SQLite implementation, the functions of this folder bound to a
 * connection.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { type Answer, bindConnection, type StoreMode } from "../repository.ts";
import {
  activeAnomalies,
  anomaliesEmittedAfter,
  type AnomalyEmission,
  anomalyFacets,
  anomalyFeed,
  type AnomalyFeedFilter,
  type AnomalyFeedRow,
  anomalyHistory,
  type AnomalyHistoryRow,
  type AnomalyRow,
  type EmittedAnomalyRow,
  type FacetCount,
  openAnomalyCounts,
  recordEmission,
  resolveAnomaly,
} from "./anomalies.ts";
import {
  type BuildOutcomeRow,
  type BuildRunInput,
  type BuildRunRow,
  buildRunsAfter,
  buildRunsBetween,
  buildRunsSince,
  insertBuildRun,
  latestBuildPerProject,
  latestBuildRuns,
  type NewBuildRow,
} from "./build_runs.ts";
import {
  type FileChangeRow,
  fileChangesSince,
  insertFileChange,
  type SessionFileChangeRow,
  sessionFileChanges,
} from "./file_changes.ts";
import { type GitMoveRow, gitMovesSince, insertGitMove } from "./git_moves.ts";
import {
  type PerceptionBundle,
  type PerceptionQuery,
  readPerceptionBundle,
} from "./perception_bundle.ts";
import {
  getInjection,
  getProjectState,
  projectRootFor,
  saveInjection,
  saveProjectState,
} from "./project_state.ts";

/**
 * The perception store: build runs, file changes, git moves, anomalies,
 * project state and the context last injected into each session. Each
 * method is the function of the same name in this folder.
 */
export interface PerceptionStore<M extends StoreMode = "sync"> {
  // Builds ------------------------------------------------------------------------------------

  /** Records a build run; answers its id. */
  insertBuildRun(run: BuildRunInput): Answer<number, M>;
  /** The latest build runs, of one tag or of any, newest first. */
  latestBuildRuns(tag: string | undefined, limit: number): Answer<BuildRunRow[], M>;
  /** Build runs started since a time, oldest first. */
  buildRunsSince(since: number): Answer<BuildRunRow[], M>;
  /** The latest run of each project and tag among the most recent runs. */
  latestBuildPerProject(
    recentRuns: number,
  ): Answer<Array<BuildOutcomeRow & { project: string }>, M>;
  /** Build runs of a project (or any, when null) within a window, oldest first. */
  buildRunsBetween(
    project: string | null,
    since: number,
    until: number,
    limit: number,
  ): Answer<BuildOutcomeRow[], M>;
  /** Build runs recorded after an id (the change feed), oldest first. */
  buildRunsAfter(id: number, limit: number): Answer<NewBuildRow[], M>;

  // Files and git -----------------------------------------------------------------------------

  /** Records a file change. */
  insertFileChange(change: FileChangeRow): Answer<void, M>;
  /** File changes in a project (or every project) since a time, newest first. */
  fileChangesSince(
    project: string | null,
    since: number,
    limit: number,
  ): Answer<FileChangeRow[], M>;
  /** Files a session changed, as the watcher attributed them, oldest first. */
  sessionFileChanges(
    project: string,
    sessionId: string,
    since: number,
    limit: number,
  ): Answer<SessionFileChangeRow[], M>;
  /** Records a git move. */
  insertGitMove(move: GitMoveRow): Answer<void, M>;
  /** Git moves in a project (or all) since a time, newest first. */
  gitMovesSince(project: string | null, since: number, limit: number): Answer<GitMoveRow[], M>;

  // Anomalies ---------------------------------------------------------------------------------

  /** A session's unresolved anomalies, newest first. */
  activeAnomalies(sessionId: string, limit?: number): Answer<AnomalyRow[], M>;
  /** A session's anomaly history, one row per fingerprint. */
  anomalyHistory(sessionId: string): Answer<AnomalyHistoryRow[], M>;
  /** Records one emission and marks the anomaly active. */
  recordEmission(emission: AnomalyEmission, now: number): Answer<void, M>;
  /** Marks an anomaly resolved. */
  resolveAnomaly(sessionId: string, fingerprint: string, now: number): Answer<void, M>;
  /** Unresolved anomalies emitted since a time, per severity. */
  openAnomalyCounts(since: number): Answer<Array<{ severity: string; count: number }>, M>;
  /** Anomalies matching the feed's filter, most recently emitted first. */
  anomalyFeed(filter: AnomalyFeedFilter): Answer<AnomalyFeedRow[], M>;
  /** Counts per kind and per project of what the feed's filter selects. */
  anomalyFacets(
    filter: AnomalyFeedFilter,
  ): Answer<{ kinds: FacetCount[]; projects: FacetCount[] }, M>;
  /** Anomalies emitted after a time (the change feed), oldest first. */
  anomaliesEmittedAfter(ts: number, limit: number): Answer<EmittedAnomalyRow[], M>;

  // Project state and injections --------------------------------------------------------------

  /** The stored state of a project root, if indexed. */
  getProjectState(root: string): Answer<{ state: string; refreshed_at: number } | undefined, M>;
  /** The indexed root that contains a path most closely. */
  projectRootFor(path: string): Answer<string | undefined, M>;
  /** Saves a project's state. */
  saveProjectState(root: string, state: string, refreshedAt: number): Answer<void, M>;
  /** The snapshot last injected into a session. */
  getInjection(sessionId: string): Answer<{ snapshot: string; ts: number } | undefined, M>;
  /** Saves what was just injected into a session. */
  saveInjection(sessionId: string, snapshot: string, now: number): Answer<void, M>;

  // One read per hook event -------------------------------------------------------------------

  /**
   * Everything perception reads about a session for one hook event (the session, its stored
   * events, file changes, builds, usage, anomaly history, what a context answer shows), each
   * table once.
   */
  readPerceptionBundle(query: PerceptionQuery): Answer<PerceptionBundle, M>;
}

const SQLITE_PERCEPTION_FUNCTIONS = {
  insertBuildRun,
  latestBuildRuns,
  buildRunsSince,
  latestBuildPerProject,
  buildRunsBetween,
  buildRunsAfter,
  insertFileChange,
  fileChangesSince,
  sessionFileChanges,
  insertGitMove,
  gitMovesSince,
  activeAnomalies,
  anomalyHistory,
  recordEmission,
  resolveAnomaly,
  openAnomalyCounts,
  anomalyFeed,
  anomalyFacets,
  anomaliesEmittedAfter,
  getProjectState,
  projectRootFor,
  saveProjectState,
  getInjection,
  saveInjection,
  readPerceptionBundle,
};

/**
 * The SQLite perception store on one connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "../database.ts";
 * import { sqlitePerceptionStore } from "./perception_store.ts";
 * const perception = sqlitePerceptionStore(openDatabase(":memory:"));
 * perception.latestBuildRuns(undefined, 5); // []
 * ```
 */
export function sqlitePerceptionStore(db: DatabaseSync): PerceptionStore<"sync"> {
  return bindConnection(db, SQLITE_PERCEPTION_FUNCTIONS);
}
