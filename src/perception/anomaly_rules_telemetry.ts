/**
 * Anomaly rules read from the agents' OpenTelemetry: model API errors coming
 * in a burst (`api_error_burst`), one model call costing far more than the
 * session's others (`costly_request`), and a tool suddenly slower than its
 * own usual (`tool_slowdown`). Each says what was seen, with the numbers, and
 * what to do about it.
 *
 * The bars are set so ordinary noise stays quiet: one slow call is nothing
 * (a p95 is exceeded by one call in twenty by definition), so a tool is slow
 * when the median of its latest three calls is over its p95 — by chance
 * about one time in 140; a call is costly against the average of the
 * session's *other* calls, so one outlier does not hide itself by raising
 * the average it is compared with.
 *
 * @module
 */

import type {
  AnomalyConfig,
  AnomalyFinding,
  ObservedApiError,
  ObservedModelCall,
  SessionActivity,
} from "./anomaly_types.ts";
import { clip, fingerprint, formatDuration, formatTokens } from "./anomaly_support.ts";

/** `850 ms`, `4.2 s`, `2 min`. */
function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return formatDuration(ms);
}

/** `$0.0042`, `$0.42`, `$12.50`. */
function formatUsd(usd: number): string {
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** `12:03:09 UTC`: a time a person can find in their logs. */
function clockOf(ts: number): string {
  return `${new Date(ts).toISOString().slice(11, 19)} UTC`;
}

/** What a burst of errors mostly is, by status: its advice differs. */
function errorClass(errors: readonly ObservedApiError[]): string {
  const counts = new Map<string, number>();
  for (const error of errors) {
    const status = error.status_code;
    const text = (error.error ?? "").toLowerCase();
    const cls = status === 429 || text.includes("rate")
      ? "rate_limit"
      : status === 529 || status === 503 || text.includes("overload")
      ? "overloaded"
      : status === 401 || status === 403 || text.includes("auth")
      ? "auth"
      : status === 400 || status === 413 || text.includes("too long") || text.includes("too large")
      ? "request"
      : status !== undefined && status >= 500
      ? "server"
      : "other";
    counts.set(cls, (counts.get(cls) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
}

const BURST_ADVICE: Readonly<Record<string, string>> = {
  rate_limit:
    "You are being rate limited: slow down — fewer parallel sub-agents or tool loops, and wait before retrying; check the plan's limits if it keeps happening.",
  overloaded:
    "The provider is overloaded: retries back off on their own; keep requests small and check the provider's status page before starting long work.",
  auth:
    "Requests are refused as unauthorized: the API key or login may have expired or lost access; fix the credentials before retrying.",
  request:
    "Requests are refused as too large or malformed: the context may be too big — compact, or trim large tool output before the next call.",
  server:
    "The provider is failing: retry later, and check its status page before starting long work.",
  other: "Look at the latest error before retrying the same request.",
};

/**
 * `api_error_burst`: `apiErrorBurstCount` model API errors within `apiErrorBurstWindowMs`
 * (critical from `apiErrorBurstCritical`).
 */
export function apiErrorBurst(activity: SessionActivity, config: AnomalyConfig): AnomalyFinding[] {
  const errors = (activity.telemetry?.api_errors ?? [])
    .filter((e) => e.ts <= activity.now && e.ts > activity.now - config.apiErrorBurstWindowMs)
    .sort((a, b) => a.ts - b.ts);
  if (errors.length < config.apiErrorBurstCount) return [];
  const statuses = new Map<string, number>();
  for (const error of errors) {
    const key = error.status_code !== undefined ? String(error.status_code) : "no status";
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }
  const mix = [...statuses.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([status, n]) => `${status} ×${n}`).join(", ");
  const latest = errors[errors.length - 1];
  const cls = errorClass(errors);
  const said = latest.error !== undefined ? `"${clip(latest.error, 120)}"` : "no message";
  return [{
    kind: "api_error_burst",
    severity: errors.length >= config.apiErrorBurstCritical ? "critical" : "warning",
    channel: "next_prompt",
    evidence: `${errors.length} model API errors in ${
      formatDuration(latest.ts - errors[0].ts)
    } (${mix}); the latest at ${clockOf(latest.ts)}${
      latest.model !== undefined ? ` from ${latest.model}` : ""
    }: ${said}.`,
    suggestion: BURST_ADVICE[cls],
    related_files: [],
    fingerprint: fingerprint("api_error_burst", activity.session_id, cls),
    observed_at: latest.ts,
  }];
}

/** Most costly calls reported at once. */
const COSTLY_LISTED = 3;

/**
 * `costly_request`: a recent model call (within `costlyRequestWindowMs`) costing at least
 * `costlyRequestMinUsd` and more than `costlyRequestFactor` times the average of the session's
 * other priced calls (at least `costlyRequestMinCalls` of them). One finding per call, the
 * latest few.
 */
export function costlyRequest(activity: SessionActivity, config: AnomalyConfig): AnomalyFinding[] {
  const telemetry = activity.telemetry;
  if (telemetry === undefined) return [];
  const totals = telemetry.session_cost;
  const costly: Array<{ call: ObservedModelCall; average: number; others: number }> = [];
  for (const call of telemetry.model_calls) {
    if (call.ts > activity.now || call.ts < activity.now - config.costlyRequestWindowMs) continue;
    if (call.cost_usd < config.costlyRequestMinUsd) continue;
    const others = call.in_totals ? totals.calls - 1 : totals.calls;
    const othersCost = call.in_totals ? totals.cost_usd - call.cost_usd : totals.cost_usd;
    if (others < config.costlyRequestMinCalls || othersCost <= 0) continue;
    const average = othersCost / others;
    if (call.cost_usd > config.costlyRequestFactor * average) {
      costly.push({ call, average, others });
    }
  }
  return costly.sort((a, b) => b.call.ts - a.call.ts).slice(0, COSTLY_LISTED).map(
    ({ call, average, others }) => {
      const factor = call.cost_usd / average;
      const id = call.request_id !== undefined ? `, request ${call.request_id}` : "";
      // Output costs about five times input per token: say which side made it expensive.
      const outputHeavy = call.output_tokens * 5 > call.context_tokens;
      return {
        kind: "costly_request" as const,
        severity: factor >= 10 ? "warning" as const : "info" as const,
        channel: "next_prompt" as const,
        evidence: `A ${call.model ?? "model"} call at ${clockOf(call.ts)} cost ${
          formatUsd(call.cost_usd)
        } — ${factor.toFixed(1)}× this session's average of ${
          formatUsd(average)
        } over ${others} other calls (${formatTokens(call.context_tokens)} tokens in, ${
          formatTokens(call.output_tokens)
        } out${id}).`,
        suggestion: outputHeavy
          ? "Most of it was output: ask for shorter answers, diffs instead of whole files, or split the work."
          : `It sent ${
            formatTokens(call.context_tokens)
          } tokens of context: large reads or long tool output went into the conversation. Read files in ranges, cap command output, or compact before continuing.`,
        related_files: [],
        fingerprint: fingerprint("costly_request", call.key),
        observed_at: call.ts,
      };
    },
  );
}

/**
 * The median of values (the mean of the middle two for an even count).
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * `tool_slowdown`: the median of a tool's latest `toolSlowCalls` calls in the session (all
 * within `toolSlowWindowMs`) is over the tool's own p95 from at least `toolSlowMinBaseline`
 * earlier calls, and at least `toolSlowMinMs`.
 */
export function toolSlowdown(activity: SessionActivity, config: AnomalyConfig): AnomalyFinding[] {
  const telemetry = activity.telemetry;
  if (telemetry === undefined) return [];
  const byTool = new Map<string, number[]>();
  const lastAt = new Map<string, number>();
  const recent = telemetry.tool_calls
    .filter((c) => c.ts <= activity.now && c.ts > activity.now - config.toolSlowWindowMs)
    .sort((a, b) => a.ts - b.ts);
  for (const call of recent) {
    byTool.set(call.tool_name, [...(byTool.get(call.tool_name) ?? []), call.duration_ms]);
    lastAt.set(call.tool_name, call.ts);
  }
  const findings: AnomalyFinding[] = [];
  for (const [tool, durations] of [...byTool.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (durations.length < config.toolSlowCalls) continue;
    const baseline = telemetry.tool_baselines[tool];
    if (baseline === undefined || baseline.calls < config.toolSlowMinBaseline) continue;
    const latest = durations.slice(-config.toolSlowCalls);
    const typical = median(latest);
    if (typical < config.toolSlowMinMs || typical <= baseline.p95_ms) continue;
    findings.push({
      kind: "tool_slowdown",
      severity: typical >= 2 * baseline.p95_ms ? "warning" : "info",
      channel: "next_prompt",
      evidence: `${tool} took ${formatMs(typical)} (median of its last ${latest.length} calls: ${
        latest.map(formatMs).join(", ")
      }), over its own p95 of ${formatMs(baseline.p95_ms)} from ${baseline.calls} earlier calls.`,
      suggestion:
        `Something ${tool} depends on got slow (a hung or heavy process, the network, a large folder): check what its latest calls ran before repeating them, and narrow the work or add a timeout.`,
      related_files: [],
      fingerprint: fingerprint("tool_slowdown", activity.session_id, tool),
      observed_at: lastAt.get(tool) ?? activity.now,
    });
  }
  return findings;
}

/**
 * The p95 (nearest rank) of durations, or undefined for none.
 *
 * @example
 * ```ts
 * p95([100, 200, 300]); // 300
 * ```
 */
export function p95(durations: readonly number[]): number | undefined {
  if (durations.length === 0) return undefined;
  const sorted = [...durations].sort((a, b) => a - b);
  return sorted[Math.ceil(0.95 * sorted.length) - 1];
}
