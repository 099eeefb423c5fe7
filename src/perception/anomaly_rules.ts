/**
 * The anomaly engine: runs every rule over one session's recent activity and returns the
 * findings, most severe first. Pure — no store, no clock, no I/O — so the same call serves the
 * hook path (then passed through `applySuppression`) and side-effect-free previews.
 *
 * Rules live in four families: files (`anomaly_rules_files.ts`), builds and tests
 * (`anomaly_rules_build.ts`), the session as a whole (`anomaly_rules_session.ts`), and the
 * agents' telemetry (`anomaly_rules_telemetry.ts`: API errors, costly calls, slow tools).
 *
 * @module
 */

import {
  type AnomalyConfig,
  type AnomalyFinding,
  type AnomalyKind,
  type AnomalyRule,
  DEFAULT_ANOMALY_CONFIG,
  type SessionActivity,
} from "./anomaly_types.ts";
import { editChurn, externalModifiedDuringSession, staleFileView } from "./anomaly_rules_files.ts";
import {
  buildBrokenAfterMyEdit,
  errorRepeat,
  repeatedFailedBuild,
  testStuck,
} from "./anomaly_rules_build.ts";
import { contextPressure, noProgress, tokenBurn, toolLoop } from "./anomaly_rules_session.ts";
import { apiErrorBurst, costlyRequest, toolSlowdown } from "./anomaly_rules_telemetry.ts";

/** Every rule, by the kind it reports. */
export const ANOMALY_RULES: Readonly<Record<AnomalyKind, AnomalyRule>> = {
  stale_file_view: staleFileView,
  build_broken_after_my_edit: buildBrokenAfterMyEdit,
  repeated_failed_build: repeatedFailedBuild,
  test_stuck: testStuck,
  external_modified_during_session: externalModifiedDuringSession,
  context_pressure: contextPressure,
  tool_loop: toolLoop,
  edit_churn: editChurn,
  error_repeat: errorRepeat,
  no_progress: noProgress,
  token_burn: tokenBurn,
  api_error_burst: apiErrorBurst,
  costly_request: costlyRequest,
  tool_slowdown: toolSlowdown,
};

/** Options for {@linkcode detectAnomalies}. */
export interface DetectAnomaliesOptions {
  /** Threshold overrides. */
  config?: Partial<AnomalyConfig>;
  /** Run only these kinds. Default all. */
  kinds?: readonly AnomalyKind[];
}

const SEVERITY_ORDER: Readonly<Record<AnomalyFinding["severity"], number>> = {
  critical: 0,
  warning: 1,
  info: 2,
};

/**
 * Runs the rules over a session's activity. A rule that throws is skipped (one broken rule
 * must not silence the others). Output is sorted by severity, kind, then fingerprint, so equal
 * input gives equal output.
 *
 * @example
 * ```ts
 * const findings = detectAnomalies({
 *   session_id: "s1", now: Date.now(), events, file_changes, build_runs, usage,
 * });
 * findings[0]; // { kind: "build_broken_after_my_edit", severity: "critical", channel: "stop", … }
 * ```
 */
export function detectAnomalies(
  activity: SessionActivity,
  options: DetectAnomaliesOptions = {},
): AnomalyFinding[] {
  const config: AnomalyConfig = { ...DEFAULT_ANOMALY_CONFIG, ...options.config };
  const kinds = options.kinds ?? (Object.keys(ANOMALY_RULES) as AnomalyKind[]);
  const findings: AnomalyFinding[] = [];
  for (const kind of kinds) {
    const rule = ANOMALY_RULES[kind];
    if (rule === undefined) continue;
    try {
      findings.push(...rule(activity, config));
    } catch {
      // Skipped: the remaining rules still run.
    }
  }
  return findings.sort((a, b) =>
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) ||
    (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0)
  );
}

/**
 * Keeps the findings meant for one delivery channel.
 *
 * @example
 * ```ts
 * findingsFor(findings, "stop"); // what the Stop hook should block on
 * ```
 */
export function findingsFor(
  findings: readonly AnomalyFinding[],
  channel: AnomalyFinding["channel"],
): AnomalyFinding[] {
  return findings.filter((f) => f.channel === channel);
}
