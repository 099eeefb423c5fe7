/**
 * The perception store on PostgreSQL: this folder's functions bound to a pool (or one write's
 * connection), checked by the compiler to be exactly {@linkcode PerceptionStore}`<"async">`.
 *
 * @module
 */
import type { PerceptionStore } from "../../perception/perception_store.ts";
import { bindQueryable } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import {
  activeAnomalies,
  anomaliesEmittedAfter,
  anomalyFacets,
  anomalyFeed,
  anomalyHistory,
  openAnomalyCounts,
  recordEmission,
  resolveAnomaly,
} from "./anomalies.ts";
import { readPerceptionBundle } from "./perception_bundle.ts";
import {
  buildRunsAfter,
  buildRunsBetween,
  buildRunsSince,
  fileChangesSince,
  getInjection,
  getProjectState,
  gitMovesSince,
  insertBuildRun,
  insertFileChange,
  insertGitMove,
  latestBuildPerProject,
  latestBuildRuns,
  projectRootFor,
  saveInjection,
  saveProjectState,
  sessionFileChanges,
} from "./sensed.ts";

const PG_PERCEPTION_FUNCTIONS = {
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
 * The PostgreSQL perception store on a pool or a write's connection.
 *
 * @example
 * ```ts ignore
 * import { pgPerceptionStore } from "./perception_store.ts";
 * const perception = pgPerceptionStore(pool);
 * await perception.latestBuildRuns(undefined, 5); // []
 * ```
 */
export function pgPerceptionStore(q: PgQueryable): PerceptionStore<"async"> {
  return bindQueryable(q, PG_PERCEPTION_FUNCTIONS);
}
