/**
 * Anomaly rules about the session as a whole: a context window filling up
 * (`context_pressure`), the same call repeated with nothing changing (`tool_loop`), many calls
 * without any result (`no_progress`), and spending far faster than usual (`token_burn`).
 *
 * @module
 */

import type { UsageRecord } from "../model/agent_records.ts";
import type { AnomalyConfig, AnomalyFinding, SessionActivity } from "./anomaly_types.ts";
import {
  clip,
  collectAttempts,
  fingerprint,
  formatDuration,
  formatTokens,
  listNames,
} from "./anomaly_support.ts";
import { contextWindowFor } from "./context_windows.ts";
import { stableJson, type ToolCall, toolCalls } from "./tool_calls.ts";

function sessionCalls(activity: SessionActivity): ToolCall[] {
  return toolCalls(activity.events.filter((e) => e.session_id === activity.session_id));
}

function sessionUsage(activity: SessionActivity): UsageRecord[] {
  return (activity.usage ?? []).filter((u) => u.session_id === activity.session_id).sort((a, b) =>
    a.ts - b.ts
  );
}

/** Tokens the model had in context for one call: everything it was sent. */
export function contextTokens(usage: UsageRecord): number {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
}

/**
 * `context_pressure`: the latest main-agent model call filled at least `contextWarnRatio` of the
 * model's real context window (reported by the agent, else from the known-models table).
 */
export function contextPressure(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const usage = sessionUsage(activity).filter((u) => u.subagent_id === undefined);
  const latest = usage[usage.length - 1];
  if (latest === undefined) return [];
  const model = latest.model ?? activity.model;
  const window = latest.context_window !== undefined && latest.context_window > 0
    ? latest.context_window
    : contextWindowFor(model).tokens;
  const used = contextTokens(latest);
  const ratio = used / window;
  if (ratio < config.contextWarnRatio) return [];
  const critical = ratio >= config.contextCriticalRatio;
  const percent = Math.round(ratio * 100);
  return [{
    kind: "context_pressure",
    severity: critical ? "critical" : "warning",
    channel: "next_prompt",
    evidence:
      `Context holds ${formatTokens(used)} of ${formatTokens(window)} tokens (${percent}%)` +
      `${model !== undefined ? ` for ${model}` : ""}.`,
    suggestion: critical
      ? "Compaction is imminent: write down the task state, decisions and next steps now (or compact " +
        "yourself) so nothing important is lost."
      : "Finish the current step, then summarize progress and compact before starting new work; read " +
        "files in ranges rather than whole.",
    related_files: [],
    fingerprint: fingerprint(
      "context_pressure",
      activity.session_id,
      critical ? "critical" : "warning",
    ),
    observed_at: latest.ts,
  }];
}

// Tools whose repetition is expected: polling a background process, waiting.
const POLLING_TOOLS = new Set([
  "bashoutput",
  "taskoutput",
  "killshell",
  "write_stdin",
  "wait",
  "sleep",
  "todowrite",
  "update_plan",
]);

function callSignature(call: ToolCall): string {
  const input = call.input !== undefined
    ? stableJson(call.input)
    : `${call.files.join(",")}|${call.command ?? ""}`;
  return `${call.tool_name}\u0000${input}`;
}

function describeCall(call: ToolCall): string {
  const target = call.command ?? call.files[0] ??
    (call.input !== undefined ? stableJson(call.input) : "");
  return `${call.tool_name}(${clip(target, 60)})`;
}

/**
 * `tool_loop`: the same tool with the same arguments called `toolLoopRepeats` times within
 * `toolLoopWindowMs`, with no edit or file change in between — the result cannot be different.
 */
export function toolLoop(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const calls = sessionCalls(activity);
  const since = activity.now - config.toolLoopWindowMs;
  // Anything that changes the world resets the count: repeating `npm test` after an edit is work.
  let lastChange = -Infinity;
  for (const call of calls) if (call.kind === "edit" && call.ts > lastChange) lastChange = call.ts;
  for (const change of activity.file_changes ?? []) {
    if (change.ts > lastChange && change.ts <= activity.now) lastChange = change.ts;
  }
  const groups = new Map<string, ToolCall[]>();
  for (const call of calls) {
    if (call.ts < since || call.ts <= lastChange || call.kind === "edit") continue;
    if (POLLING_TOOLS.has(call.tool_name.toLowerCase())) continue;
    const signature = callSignature(call);
    groups.set(signature, [...(groups.get(signature) ?? []), call]);
  }
  const findings: AnomalyFinding[] = [];
  for (
    const [signature, group] of [...groups.entries()].sort((a, b) =>
      b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1)
    )
  ) {
    if (group.length < config.toolLoopRepeats) continue;
    const last = group[group.length - 1];
    findings.push({
      kind: "tool_loop",
      severity: "warning",
      channel: "post_tool",
      evidence: `${describeCall(last)} ran ${group.length} times in ${
        formatDuration(last.ts - group[0].ts)
      } with the same arguments and nothing changed in between.`,
      suggestion:
        "Repeating it will give the same result. Use the output you already have, or change " +
        "something (arguments, approach) before calling it again.",
      related_files: [...last.files],
      fingerprint: fingerprint("tool_loop", signature),
      observed_at: last.ts,
    });
  }
  return findings;
}

/**
 * `no_progress`: `noProgressCalls` tool calls since the last file edit, agent file change or
 * passing test (or since the session started).
 */
export function noProgress(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const calls = sessionCalls(activity);
  let lastProgress = -Infinity;
  for (const call of calls) {
    if (call.kind === "edit" && call.success !== false) {
      lastProgress = Math.max(lastProgress, call.ts);
    }
  }
  for (const change of activity.file_changes ?? []) {
    if (change.attribution === "agent" && change.session_id === activity.session_id) {
      lastProgress = Math.max(lastProgress, change.ts);
    }
  }
  for (const attempt of collectAttempts(activity, calls)) {
    if (attempt.ok && attempt.test) lastProgress = Math.max(lastProgress, attempt.ts);
  }
  const stalled = calls.filter((c) => c.ts > lastProgress);
  if (stalled.length < config.noProgressCalls) return [];
  const counts = new Map<string, number>();
  for (const call of stalled) counts.set(call.tool_name, (counts.get(call.tool_name) ?? 0) + 1);
  const mix = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([tool, n]) => `${tool}×${n}`);
  const first = stalled[0];
  const last = stalled[stalled.length - 1];
  const since = Number.isFinite(lastProgress)
    ? "since the last file change or passing test"
    : "without changing a file";
  return [{
    kind: "no_progress",
    severity: "info",
    channel: "next_prompt",
    evidence: `${stalled.length} tool calls over ${formatDuration(last.ts - first.ts)} ${since} (${
      listNames(mix, 4)
    }).`,
    suggestion:
      "Summarize what you have learned so far and commit to one concrete next change, or ask the " +
      "user for direction.",
    related_files: [],
    fingerprint: fingerprint("no_progress", activity.session_id),
    observed_at: last.ts,
  }];
}

/**
 * Weighted spend of one usage record: cache reads cost about a tenth of fresh input, so they
 * count a tenth; everything else counts fully.
 */
export function weightedTokens(usage: UsageRecord): number {
  return usage.input_tokens + usage.output_tokens + usage.cache_write_tokens +
    usage.cache_read_tokens * 0.1;
}

/**
 * `token_burn`: weighted tokens per minute over the last `tokenBurnWindowMs` are at least
 * `tokenBurnFactor` times the session's own rate before that (per active minute), once the
 * session has `tokenBurnMinBaselineMs` of history.
 */
export function tokenBurn(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const usage = sessionUsage(activity);
  if (usage.length === 0) return [];
  const windowStart = activity.now - config.tokenBurnWindowMs;
  const baseline = usage.filter((u) => u.ts < windowStart);
  const recent = usage.filter((u) => u.ts >= windowStart && u.ts <= activity.now);
  if (baseline.length === 0 || recent.length === 0) return [];
  if (windowStart - baseline[0].ts < config.tokenBurnMinBaselineMs) return [];
  const recentSpend = recent.reduce((sum, u) => sum + weightedTokens(u), 0);
  if (recentSpend < config.tokenBurnMinSpend) return [];
  const baselineSpend = baseline.reduce((sum, u) => sum + weightedTokens(u), 0);
  // Per *active* minute: idle stretches (the user away) must not make the baseline look cheap.
  const activeMinutes = new Set(baseline.map((u) => Math.floor(u.ts / 60_000))).size;
  const baselineRate = baselineSpend / Math.max(1, activeMinutes);
  const recentRate = recentSpend / (config.tokenBurnWindowMs / 60_000);
  if (baselineRate <= 0 || recentRate < config.tokenBurnFactor * baselineRate) return [];
  const factor = recentRate / baselineRate;
  return [{
    kind: "token_burn",
    severity: "warning",
    channel: "next_prompt",
    evidence:
      `${formatTokens(recentSpend)} weighted tokens in the last ${
        formatDuration(config.tokenBurnWindowMs)
      } — ` +
      `${factor.toFixed(1)}× this session's usual rate (${formatTokens(baselineRate)}/min).`,
    suggestion:
      "Check for oversized reads (whole files, long logs, big command output) or a loop; read " +
      "ranges, grep, and cap command output.",
    related_files: [],
    fingerprint: fingerprint("token_burn", activity.session_id),
    observed_at: recent[recent.length - 1].ts,
  }];
}
