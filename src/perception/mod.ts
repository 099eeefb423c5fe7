/**
 * The perception feature's public face: what Vantage senses around an
 * agent and tells it. Sensors (project structure, builds, file changes, git),
 * the build-error parsers, the anomaly rules, and the engine that turns a
 * hook into a `<vantage-context>` answer. Code outside `src/perception/`
 * imports the feature from here; the CLI's `build` and `project` commands
 * import only the module they run, so they start without the engine.
 *
 * @module
 */

export { ANOMALY_RULES, detectAnomalies, findingsFor } from "./anomaly_rules.ts";
export type { DetectAnomaliesOptions } from "./anomaly_rules.ts";
export { parseBuildErrors } from "./build_errors.ts";
export type {
  BuildError,
  BuildErrorSeverity,
  BuildTool,
  ParseBuildErrorsOptions,
} from "./build_errors.ts";
export { recordBuildRun } from "./build_recorder.ts";
export { runBuild, watchBuild } from "./build_runner.ts";
export type {
  BuildRunRecord,
  ByteSink,
  RunBuildOptions,
  WatchBuildOptions,
} from "./build_runner.ts";
export { changedSections, estimateTokens, renderContext } from "./context_renderer.ts";
export type {
  ContextSection,
  ContextSnapshot,
  RenderContextOptions,
  RenderedContext,
} from "./context_renderer.ts";
export { buildSnapshot, PerceptionEngine } from "./engine.ts";
export type { HookAnswer, PerceptionOptions } from "./engine.ts";
export { watchProject } from "./file_watcher.ts";
export type { FileChangeEvent, ProjectWatcher, WatchProjectOptions } from "./file_watcher.ts";
export { readGitState } from "./git_state.ts";
export type { GitState } from "./git_state.ts";
export { describeStack, detectProject } from "./project_detect.ts";
export type { DetectProjectOptions, ProjectState } from "./project_detect.ts";
export { ProjectSensors } from "./sensors.ts";
export type { SensorOptions } from "./sensors.ts";
