/**
 * Shapes shared by the anomaly rules: what a rule looks at (a session's recent activity), what
 * it reports (a finding), and the thresholds it uses.
 *
 * @module
 */

import type { HookEvent, UsageRecord } from "../model/agent_records.ts";
import type { Attribution } from "./attribution.ts";
import type { BuildRunRecord } from "./build_runner.ts";
import type { FileChangeKind } from "./file_watcher.ts";

/** Every anomaly kind. */
export type AnomalyKind =
  | "stale_file_view"
  | "build_broken_after_my_edit"
  | "repeated_failed_build"
  | "test_stuck"
  | "external_modified_during_session"
  | "context_pressure"
  | "tool_loop"
  | "edit_churn"
  | "error_repeat"
  | "no_progress"
  | "token_burn"
  | "api_error_burst"
  | "costly_request"
  | "tool_slowdown";

/** The kinds read from telemetry: they run when telemetry arrives, not on hook events. */
export const TELEMETRY_KINDS: readonly AnomalyKind[] = [
  "api_error_burst",
  "costly_request",
  "tool_slowdown",
];

/** How urgent a finding is. */
export type AnomalySeverity = "info" | "warning" | "critical";

/**
 * Where a finding is delivered: in the context block before the next prompt, right after the
 * tool call that caused it, or by refusing to let the agent stop.
 */
export type AnomalyChannel = "next_prompt" | "post_tool" | "stop";

/** One thing a rule noticed. JSON-safe. */
export interface AnomalyFinding {
  /** Which rule found it. */
  kind: AnomalyKind;
  /** How urgent it is. */
  severity: AnomalySeverity;
  /** Where it should be delivered. */
  channel: AnomalyChannel;
  /** What was observed, with numbers and names. */
  evidence: string;
  /** What the agent should do about it. */
  suggestion: string;
  /** Files the finding is about (absolute when the events had them absolute). */
  related_files: string[];
  /** Stable identity of "the same problem" across detection runs, for suppression. */
  fingerprint: string;
  /** Time of the latest observation supporting the finding, ms since the epoch. */
  observed_at: number;
}

/** A file change as the rules need it: attributed. */
export interface ObservedFileChange {
  /** Absolute path of the file. */
  path: string;
  /** What happened to it. */
  kind: FileChangeKind;
  /** When, ms since the epoch. */
  ts: number;
  /** `agent` when an agent event explains the change, else `unknown`. */
  attribution: Attribution;
  /** Session whose event explained an `agent` change. */
  session_id?: string;
}

/** The part of a build sensor run the rules read. */
export type ObservedBuildRun =
  & Pick<BuildRunRecord, "command_line" | "exit_code" | "started_at" | "duration_ms" | "errors">
  & Partial<Pick<BuildRunRecord, "tool" | "tag" | "output_tail" | "cwd">>;

/** A model API error the agent's telemetry reported. */
export interface ObservedApiError {
  /** When, ms since the epoch. */
  ts: number;
  /** HTTP status, when reported. */
  status_code?: number;
  /** Error text. */
  error?: string;
  /** Model. */
  model?: string;
}

/** A model call the agent's telemetry reported, with what it cost. */
export interface ObservedModelCall {
  /** When, ms since the epoch. */
  ts: number;
  /** Stable identity of the call. */
  key: string;
  /** Model. */
  model?: string;
  /** The provider's request id. */
  request_id?: string;
  /** Cost, USD: Vantage's price, else what the agent reported. */
  cost_usd: number;
  /** Whether the session's cost totals already include it. */
  in_totals: boolean;
  /** Everything it sent: uncached input, cache reads and writes. */
  context_tokens: number;
  /** Output tokens. */
  output_tokens: number;
}

/** A tool call the agent's telemetry timed. */
export interface ObservedToolCall {
  /** When it ended, ms since the epoch. */
  ts: number;
  /** Tool. */
  tool_name: string;
  /** How long it took, ms. */
  duration_ms: number;
}

/** A tool's usual duration: its p95 over its calls before the recent window. */
export interface ToolBaseline {
  /** p95, ms (nearest rank). */
  p95_ms: number;
  /** Calls it was taken over. */
  calls: number;
}

/** What telemetry says about a session, for the rules in `anomaly_rules_telemetry.ts`. */
export interface TelemetryActivity {
  /** The session's recent API errors. */
  api_errors: readonly ObservedApiError[];
  /**
   * The session's recent model calls (not side requests): at least every call the costly-call
   * rule could report (a reader may leave out the rest).
   */
  model_calls: readonly ObservedModelCall[];
  /** Every priced call of the session: how many, and their cost. */
  session_cost: { calls: number; cost_usd: number };
  /** The session's recent timed tool calls (at least each tool's latest few). */
  tool_calls: readonly ObservedToolCall[];
  /** Recent tools' baselines, by tool name (a tool too fast to be slow may have none). */
  tool_baselines: Readonly<Record<string, ToolBaseline>>;
}

/** Everything the rules look at for one session. Pass recent data (the last hour or two). */
export interface SessionActivity {
  /** The session under inspection. */
  session_id: string;
  /** "Now" for the detection run, ms since the epoch. */
  now: number;
  /** Session start; defaults to its first event. */
  started_at?: number;
  /** Model in use, when known (usage records also carry it). */
  model?: string;
  /** This session's hook events (other sessions' events are ignored). */
  events: readonly HookEvent[];
  /** File changes in the session's project, attributed. */
  file_changes?: readonly ObservedFileChange[];
  /** Build sensor runs in the session's project. */
  build_runs?: readonly ObservedBuildRun[];
  /** This session's usage records. */
  usage?: readonly UsageRecord[];
  /** What the session's telemetry says. */
  telemetry?: TelemetryActivity;
}

/** Thresholds of every rule. */
export interface AnomalyConfig {
  /** stale_file_view: how far back edits are checked. */
  staleLookbackMs: number;
  /** Build rules: how far back build and test attempts are considered. */
  buildWindowMs: number;
  /** build_broken_after_my_edit: edits this long before a failing build count. */
  editBeforeBuildMs: number;
  /** build_broken_after_my_edit: "right after edits" when no error names an edited file. */
  rightAfterEditMs: number;
  /** repeated_failed_build: failures of one command since its last success. */
  repeatedFailures: number;
  /** test_stuck: failures with the same failing tests. */
  testStuckFailures: number;
  /** external_modified_during_session: look-back for external changes. */
  externalWindowMs: number;
  /** context_pressure: fraction of the context window that warns. */
  contextWarnRatio: number;
  /** context_pressure: fraction that is critical. */
  contextCriticalRatio: number;
  /** tool_loop: identical calls that make a loop. */
  toolLoopRepeats: number;
  /** tool_loop: window for them. */
  toolLoopWindowMs: number;
  /** edit_churn: look-back for edits of one file. */
  editChurnWindowMs: number;
  /** edit_churn: edits touching overlapping lines. */
  editChurnOverlaps: number;
  /** error_repeat: times an error must come back after a fix attempt. */
  errorRepeatReturns: number;
  /** error_repeat: look-back. */
  errorRepeatWindowMs: number;
  /** no_progress: tool calls without a file change or passing test. */
  noProgressCalls: number;
  /** token_burn: recent window. */
  tokenBurnWindowMs: number;
  /** token_burn: how many times the baseline rate is "far above". */
  tokenBurnFactor: number;
  /** token_burn: baseline needs at least this much history before the window. */
  tokenBurnMinBaselineMs: number;
  /** token_burn: weighted tokens in the window below which nothing is said. */
  tokenBurnMinSpend: number;
  /** api_error_burst: errors within the window that make a burst. */
  apiErrorBurstCount: number;
  /** api_error_burst: the window. */
  apiErrorBurstWindowMs: number;
  /** api_error_burst: errors within the window that make it critical. */
  apiErrorBurstCritical: number;
  /** costly_request: how many times the session's average cost is "far above". */
  costlyRequestFactor: number;
  /** costly_request: a call cheaper than this, USD, is never reported. */
  costlyRequestMinUsd: number;
  /** costly_request: the session's other priced calls the average needs. */
  costlyRequestMinCalls: number;
  /** costly_request: how recent a call must be to be reported. */
  costlyRequestWindowMs: number;
  /** tool_slowdown: how recent the tool's calls must be. */
  toolSlowWindowMs: number;
  /** tool_slowdown: the latest calls whose median is compared. */
  toolSlowCalls: number;
  /** tool_slowdown: earlier calls the tool's p95 needs. */
  toolSlowMinBaseline: number;
  /** tool_slowdown: a median shorter than this, ms, is never slow. */
  toolSlowMinMs: number;
}

/** Defaults tuned to stay quiet in ordinary sessions. */
export const DEFAULT_ANOMALY_CONFIG: Readonly<AnomalyConfig> = {
  staleLookbackMs: 60 * 60_000,
  buildWindowMs: 30 * 60_000,
  editBeforeBuildMs: 10 * 60_000,
  rightAfterEditMs: 2 * 60_000,
  repeatedFailures: 3,
  testStuckFailures: 3,
  externalWindowMs: 30 * 60_000,
  contextWarnRatio: 0.8,
  contextCriticalRatio: 0.95,
  toolLoopRepeats: 3,
  toolLoopWindowMs: 5 * 60_000,
  editChurnWindowMs: 20 * 60_000,
  editChurnOverlaps: 4,
  errorRepeatReturns: 2,
  errorRepeatWindowMs: 30 * 60_000,
  noProgressCalls: 30,
  tokenBurnWindowMs: 5 * 60_000,
  tokenBurnFactor: 3,
  tokenBurnMinBaselineMs: 15 * 60_000,
  tokenBurnMinSpend: 300_000,
  apiErrorBurstCount: 3,
  apiErrorBurstWindowMs: 5 * 60_000,
  apiErrorBurstCritical: 10,
  costlyRequestFactor: 3,
  costlyRequestMinUsd: 0.01,
  costlyRequestMinCalls: 4,
  costlyRequestWindowMs: 30 * 60_000,
  toolSlowWindowMs: 15 * 60_000,
  toolSlowCalls: 3,
  toolSlowMinBaseline: 20,
  toolSlowMinMs: 1000,
};

/** A rule: pure function from activity to findings. */
export type AnomalyRule = (activity: SessionActivity, config: AnomalyConfig) => AnomalyFinding[];
