/**
 * Anomaly rules about files: editing from a stale view (`stale_file_view`), files the session
 * worked on changed by someone else (`external_modified_during_session`), and editing the same
 * lines back and forth (`edit_churn`).
 *
 * @module
 */

import type { AnomalyConfig, AnomalyFinding, SessionActivity } from "./anomaly_types.ts";
import { fingerprint, formatDuration, listNames, sessionStart } from "./anomaly_support.ts";
import { baseNameOf, type EditPair, editPairs, type ToolCall, toolCalls } from "./tool_calls.ts";

function sessionCalls(activity: SessionActivity): ToolCall[] {
  return toolCalls(activity.events.filter((e) => e.session_id === activity.session_id));
}

// An edit the agent did not report as failed.
function isEdit(call: ToolCall): boolean {
  return call.kind === "edit" && call.success !== false;
}

/**
 * `stale_file_view`: the agent edited a file that changed on disk (not by an agent) after the
 * agent last read or wrote it, and has not re-read it since that edit. Its edit was made
 * against content that no longer existed.
 */
export function staleFileView(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const calls = sessionCalls(activity);
  const since = activity.now - config.staleLookbackMs;
  const external = (activity.file_changes ?? []).filter((c) => c.attribution === "unknown");
  const findings: AnomalyFinding[] = [];
  const reported = new Set<string>();
  for (let i = calls.length - 1; i >= 0; i--) {
    const edit = calls[i];
    if (!isEdit(edit) || edit.ts < since) continue;
    for (const file of edit.files) {
      if (reported.has(file)) continue;
      // The agent's view: its last read of the file, or its own last write (which it knows).
      let viewAt: number | undefined;
      for (let j = i - 1; j >= 0; j--) {
        const prior = calls[j];
        if ((prior.kind === "read" || isEdit(prior)) && prior.files.includes(file)) {
          viewAt = prior.end_ts ?? prior.ts;
          break;
        }
      }
      if (viewAt === undefined) continue;
      const change = external.find((c) => c.path === file && c.ts > viewAt! && c.ts < edit.ts);
      if (change === undefined) continue;
      const reread = calls.some((c) =>
        c.kind === "read" && c.ts > edit.ts && c.files.includes(file)
      );
      if (reread) continue;
      reported.add(file);
      const name = baseNameOf(file);
      findings.push({
        kind: "stale_file_view",
        severity: "critical",
        channel: "post_tool",
        evidence:
          `${name} changed on disk ${
            formatDuration(edit.ts - change.ts)
          } before your ${edit.tool_name}, ` +
          `not by you, and after you last read it (${
            formatDuration(edit.ts - viewAt)
          } before the edit).`,
        suggestion:
          `Re-read ${name} before the next edit — your copy is older than what is on disk, and the ` +
          `edit may have overwritten someone else's change.`,
        related_files: [file],
        fingerprint: fingerprint("stale_file_view", file),
        observed_at: edit.ts,
      });
    }
  }
  return findings;
}

/**
 * `external_modified_during_session`: files this session read or edited were changed (or
 * deleted) afterwards by someone other than an agent, and the session has not looked at them
 * since.
 */
export function externalModifiedDuringSession(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const calls = sessionCalls(activity);
  const since = Math.max(sessionStart(activity), activity.now - config.externalWindowMs);
  const firstTouch = new Map<string, number>();
  for (const call of calls) {
    if (call.kind !== "read" && call.kind !== "edit") continue;
    for (const file of call.files) if (!firstTouch.has(file)) firstTouch.set(file, call.ts);
  }
  const latest = new Map<string, { ts: number; removed: boolean }>();
  for (const change of activity.file_changes ?? []) {
    if (change.attribution !== "unknown" || change.ts < since) continue;
    const touched = firstTouch.get(change.path);
    if (touched === undefined || touched > change.ts) continue;
    // Looked at (or rewritten) since the change: the session's copy is current again.
    const seen = calls.some((c) =>
      (c.kind === "read" || c.kind === "edit") && c.ts > change.ts &&
      c.files.includes(change.path)
    );
    if (seen) continue;
    const prior = latest.get(change.path);
    if (prior === undefined || change.ts > prior.ts) {
      latest.set(change.path, { ts: change.ts, removed: change.kind === "remove" });
    }
  }
  if (latest.size === 0) return [];
  const files = [...latest.keys()].sort();
  const newest = Math.max(...[...latest.values()].map((v) => v.ts));
  // Most recent first: that is the one most likely to matter for the next step.
  const described = [...files]
    .sort((a, b) => latest.get(b)!.ts - latest.get(a)!.ts || (a < b ? -1 : 1))
    .map((f) => {
      const info = latest.get(f)!;
      return `${baseNameOf(f)} (${info.removed ? "deleted" : "changed"} ${
        formatDuration(activity.now - info.ts)
      } ago)`;
    });
  return [{
    kind: "external_modified_during_session",
    severity: "warning",
    channel: "next_prompt",
    evidence:
      `${files.length} file${files.length === 1 ? "" : "s"} you worked on changed outside your ` +
      `session: ${listNames(described, 3)}.`,
    suggestion: "Re-read the listed files before relying on what you remember of them.",
    related_files: files,
    fingerprint: fingerprint("external_modified_during_session", activity.session_id, ...files),
    observed_at: newest,
  }];
}

function normalizeText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

// Lines that identify a region: trimmed, not blank, not just punctuation like `}` or `);`.
function significantLines(text: string): Set<string> {
  const lines = new Set<string>();
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.length >= 4 && /[A-Za-z0-9]/.test(trimmed)) lines.add(trimmed);
  }
  return lines;
}

function overlaps(a: Set<string>, b: Set<string>): boolean {
  for (const line of a) if (b.has(line)) return true;
  return false;
}

interface TimedPair extends EditPair {
  ts: number;
}

/**
 * `edit_churn`: the same region of a file edited back and forth — an edit that exactly undoes
 * an earlier one, or at least `editChurnOverlaps` edits each rewriting lines an earlier edit
 * wrote — within `editChurnWindowMs`.
 */
export function editChurn(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const since = activity.now - config.editChurnWindowMs;
  const byFile = new Map<string, TimedPair[]>();
  for (const call of sessionCalls(activity)) {
    if (!isEdit(call) || call.ts < since) continue;
    for (const pair of editPairs(call)) {
      const file = pair.file ?? call.files[0];
      if (file === undefined) continue;
      const list = byFile.get(file) ?? [];
      list.push({ ...pair, file, ts: call.ts });
      byFile.set(file, list);
    }
  }
  const findings: AnomalyFinding[] = [];
  for (const [file, pairs] of [...byFile.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const name = baseNameOf(file);
    // 1. An exact revert: new → old of an earlier replacement.
    let revert: { earlier: TimedPair; later: TimedPair } | undefined;
    for (let j = 1; j < pairs.length && revert === undefined; j++) {
      const later = pairs[j];
      if (later.old_text === "" || later.new_text === later.old_text) continue;
      for (let i = j - 1; i >= 0; i--) {
        const earlier = pairs[i];
        if (
          normalizeText(later.old_text) === normalizeText(earlier.new_text) &&
          normalizeText(later.new_text) === normalizeText(earlier.old_text)
        ) {
          revert = { earlier, later };
          break;
        }
      }
    }
    if (revert !== undefined) {
      findings.push({
        kind: "edit_churn",
        severity: "warning",
        channel: "post_tool",
        evidence: `Your edit of ${name} undid an edit you made ${
          formatDuration(revert.later.ts - revert.earlier.ts)
        } earlier (${pairs.length} edits to it in ${formatDuration(activity.now - pairs[0].ts)}).`,
        suggestion:
          `Stop alternating between two versions of ${name}: re-read it as it is now, state which ` +
          "approach you are taking and why, then make one change.",
        related_files: [file],
        fingerprint: fingerprint("edit_churn", file),
        observed_at: revert.later.ts,
      });
      continue;
    }
    // 2. Chains of edits that rewrite what an earlier edit wrote (union-find over pairs).
    const parent = pairs.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
    const oldLines = pairs.map((p) => significantLines(p.old_text));
    const newLines = pairs.map((p) => significantLines(p.new_text));
    for (let j = 1; j < pairs.length; j++) {
      for (let i = 0; i < j; i++) {
        if (overlaps(oldLines[j], newLines[i])) parent[find(j)] = find(i);
      }
    }
    const sizes = new Map<number, number[]>();
    pairs.forEach((_, i) => {
      const root = find(i);
      sizes.set(root, [...(sizes.get(root) ?? []), i]);
    });
    const cluster = [...sizes.values()].sort((a, b) => b.length - a.length)[0] ?? [];
    if (cluster.length >= config.editChurnOverlaps) {
      const first = pairs[cluster[0]];
      const last = pairs[cluster[cluster.length - 1]];
      findings.push({
        kind: "edit_churn",
        severity: "warning",
        channel: "post_tool",
        evidence: `${cluster.length} edits in ${
          formatDuration(last.ts - first.ts)
        } rewrote the same lines of ${name}, each changing what the previous one wrote.`,
        suggestion:
          `Step back from ${name}: re-read the region as it is now and work out why the previous ` +
          "versions failed before editing it again.",
        related_files: [file],
        fingerprint: fingerprint("edit_churn", file),
        observed_at: last.ts,
      });
    }
  }
  return findings;
}
