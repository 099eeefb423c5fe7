/**
 * Stores a build run from `vantage build` so `get_build_status`, the
 * anomaly rules and the context block see it.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { insertBuildRun } from "../store/perception/build_runs.ts";
import type { BuildRunRecord } from "./build_runner.ts";

/** Records one run; `project` is the folder it ran in. */
export function recordBuildRun(db: DatabaseSync, run: BuildRunRecord, project: string): number {
  return insertBuildRun(db, {
    tag: run.tag ?? "default",
    command: run.command_line,
    cwd: run.cwd ?? project,
    project,
    started_at: run.started_at,
    duration_ms: Math.round(run.duration_ms),
    exit_code: run.exit_code,
    errors: JSON.stringify(run.errors.slice(0, 200)),
    output_tail: run.output_tail,
  });
}
