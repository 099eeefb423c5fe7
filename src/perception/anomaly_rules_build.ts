/**
 * Anomaly rules about builds and tests: a build broken by the agent's own edit
 * (`build_broken_after_my_edit`), a build retried without fixing it (`repeated_failed_build`),
 * tests failing the same way run after run (`test_stuck`), and one error surviving several fix
 * attempts (`error_repeat`).
 *
 * Build and test attempts come from both shell tool calls (`npm test` run by the agent) and
 * build sensor runs (`vantage build -- …` in a terminal).
 *
 * @module
 */

import type { AnomalyConfig, AnomalyFinding, SessionActivity } from "./anomaly_types.ts";
import {
  type Attempt,
  clip,
  collectAttempts,
  errorNamesFile,
  fingerprint,
  formatDuration,
  isDocFile,
  listNames,
  normalizeError,
  quoteAttempt,
} from "./anomaly_support.ts";
import { baseNameOf, type ToolCall, toolCalls } from "./tool_calls.ts";

function sessionCalls(activity: SessionActivity): ToolCall[] {
  return toolCalls(activity.events.filter((e) => e.session_id === activity.session_id));
}

// The attempts of each command key since its last success, within the window.
function failureStreaks(attempts: readonly Attempt[], since: number): Map<string, Attempt[]> {
  const streaks = new Map<string, Attempt[]>();
  for (const attempt of attempts) {
    if (attempt.ts < since) continue;
    if (attempt.ok) streaks.set(attempt.key, []);
    else streaks.set(attempt.key, [...(streaks.get(attempt.key) ?? []), attempt]);
  }
  for (const [key, list] of streaks) if (list.length === 0) streaks.delete(key);
  return streaks;
}

/**
 * `build_broken_after_my_edit`: the latest run of a build or test command failed after the
 * agent edited files, and either its errors name an edited file (critical: the stop hook should
 * not let the agent finish) or the same command passed before those edits and failed right
 * after them (warning).
 */
export function buildBrokenAfterMyEdit(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const calls = sessionCalls(activity);
  const attempts = collectAttempts(activity, calls);
  const since = activity.now - config.buildWindowMs;
  const edits = calls.filter((c) => c.kind === "edit" && c.success !== false && c.files.length > 0);
  const latestByKey = new Map<string, Attempt>();
  for (const attempt of attempts) if (attempt.ts >= since) latestByKey.set(attempt.key, attempt);
  const findings: AnomalyFinding[] = [];
  for (const [key, failed] of [...latestByKey.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (failed.ok) continue;
    const recentEdits = edits.filter((e) =>
      e.ts <= failed.ts && e.ts >= failed.ts - config.editBeforeBuildMs
    );
    if (recentEdits.length === 0) continue;
    const editedFiles = [...new Set(recentEdits.flatMap((e) => e.files))];

    // Files the errors name, matched against the edited ones.
    const named = new Map<string, { line?: number; message: string }>();
    for (const error of failed.errors) {
      if (error.file === undefined) continue;
      for (const file of editedFiles) {
        if (!named.has(file) && errorNamesFile(error.file, file)) {
          named.set(file, { line: error.line, message: error.message });
        }
      }
    }
    if (named.size === 0 && failed.errors.every((e) => e.file === undefined)) {
      // Unparsed output: a base name mentioned in the error text still points at the file.
      for (const file of editedFiles) {
        const base = baseNameOf(file);
        if (base.length >= 4 && failed.text.includes(base)) {
          named.set(file, { message: quoteAttempt(failed) });
        }
      }
    }
    if (named.size > 0) {
      const files = [...named.keys()].sort();
      const [file, info] = [files[0], named.get(files[0])!];
      const lastEdit = Math.max(
        ...recentEdits.filter((e) => e.files.some((f) => named.has(f))).map((e) => e.ts),
      );
      const where = `${baseNameOf(file)}${
        info.line !== undefined ? ` near line ${info.line}` : ""
      }`;
      findings.push({
        kind: "build_broken_after_my_edit",
        severity: "critical",
        channel: "stop",
        evidence:
          `\`${clip(failed.command, 80)}\` failed ${
            formatDuration(failed.ts - lastEdit)
          } after your edit ` +
          `of ${listNames(files.map(baseNameOf))}; it reports ${clip(info.message, 160)}`,
        suggestion:
          `Fix ${where} — your edit broke the build — and re-run \`${key}\` before moving on.`,
        related_files: files,
        fingerprint: fingerprint("build_broken_after_my_edit", key),
        observed_at: failed.ts,
      });
      continue;
    }
    // No error names an edited file: only say something when the edits are the one thing
    // that changed between a pass and a fail.
    const codeEdits = recentEdits.filter((e) => e.files.some((f) => !isDocFile(f)));
    if (codeEdits.length === 0) continue;
    const firstEdit = Math.min(...codeEdits.map((e) => e.ts));
    const lastEdit = Math.max(...codeEdits.map((e) => e.ts));
    if (failed.ts - lastEdit > config.rightAfterEditMs) continue;
    const before = [...attempts].reverse().find((a) => a.key === key && a.ts < firstEdit);
    if (before === undefined || !before.ok) continue;
    const files = [...new Set(codeEdits.flatMap((e) => e.files))].sort();
    findings.push({
      kind: "build_broken_after_my_edit",
      severity: "warning",
      channel: "next_prompt",
      evidence: `\`${clip(failed.command, 80)}\` passed before your edits to ${
        listNames(files.map(baseNameOf))
      } and fails since: ${quoteAttempt(failed)}`,
      suggestion:
        `Look at what your last edits changed; re-run \`${key}\` once the cause is fixed.`,
      related_files: files,
      fingerprint: fingerprint("build_broken_after_my_edit", key),
      observed_at: failed.ts,
    });
  }
  return findings;
}

/**
 * `repeated_failed_build`: the same build or lint command (not a test run; see `test_stuck`)
 * failed `repeatedFailures` times since it last passed, within the window.
 */
export function repeatedFailedBuild(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const attempts = collectAttempts(activity).filter((a) => !a.test);
  const findings: AnomalyFinding[] = [];
  const streaks = failureStreaks(attempts, activity.now - config.buildWindowMs);
  for (const [key, failures] of [...streaks.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (failures.length < config.repeatedFailures) continue;
    const last = failures[failures.length - 1];
    const files = [
      ...new Set(last.errors.map((e) => e.file).filter((f): f is string => f !== undefined)),
    ]
      .slice(0, 5);
    findings.push({
      kind: "repeated_failed_build",
      severity: "critical",
      channel: "stop",
      evidence: `\`${key}\` failed ${failures.length} times in the last ${
        formatDuration(activity.now - failures[0].ts)
      }; latest: ${quoteAttempt(last)}`,
      suggestion: `Stop retrying \`${key}\` and address this error first: ${quoteAttempt(last)}`,
      related_files: files,
      fingerprint: fingerprint("repeated_failed_build", key),
      observed_at: last.ts,
    });
  }
  return findings;
}

// What identifies "the same failure" of a test run: failing test names when the output named
// them, else the error locations, else the normalised first error.
function failureSignature(attempt: Attempt): string[] {
  const tests = [
    ...new Set(attempt.errors.map((e) => e.test).filter((t): t is string => t !== undefined)),
  ];
  if (tests.length > 0) return tests.sort();
  const places = [
    ...new Set(
      attempt.errors.filter((e) => e.file !== undefined).map((e) =>
        `${e.file}:${e.line ?? ""} ${e.message}`
      ),
    ),
  ];
  if (places.length > 0) return places.sort();
  const normalized = normalizeError(attempt.text);
  return normalized === "" ? [] : [normalized];
}

/**
 * `test_stuck`: a test command failed `testStuckFailures` times in a row since it last passed,
 * with the same failing tests (or the same errors) each time.
 */
export function testStuck(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const attempts = collectAttempts(activity).filter((a) => a.test);
  const findings: AnomalyFinding[] = [];
  const streaks = failureStreaks(attempts, activity.now - config.buildWindowMs);
  for (const [key, failures] of [...streaks.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (failures.length < config.testStuckFailures) continue;
    const recent = failures.slice(-config.testStuckFailures);
    const signature = failureSignature(recent[recent.length - 1]);
    if (signature.length === 0) continue;
    const same = recent.every((a) =>
      failureSignature(a).join("\u0000") === signature.join("\u0000")
    );
    if (!same) continue;
    const last = recent[recent.length - 1];
    const tests = [
      ...new Set(last.errors.map((e) => e.test).filter((t): t is string => t !== undefined)),
    ];
    const what = tests.length > 0
      ? `the same failing tests: ${listNames(tests, 3)}`
      : `the same error: ${quoteAttempt(last)}`;
    const files = [
      ...new Set(last.errors.map((e) => e.file).filter((f): f is string => f !== undefined)),
    ]
      .slice(0, 5);
    findings.push({
      kind: "test_stuck",
      severity: "warning",
      channel: "next_prompt",
      evidence: `\`${key}\` failed ${recent.length} times in a row with ${what}`,
      suggestion:
        `Your changes are not affecting these failures. Read the first failure's assertion and ` +
        `check expected against actual (${quoteAttempt(last)}) before changing code again.`,
      related_files: files,
      fingerprint: fingerprint("test_stuck", key, ...signature),
      observed_at: last.ts,
    });
  }
  return findings;
}

/**
 * `error_repeat`: the same error (numbers, paths and ids normalised away) came back at least
 * `errorRepeatReturns` times after the agent edited something in between — its fixes are not
 * reaching the cause. Counts failures of any tool and build sensor runs.
 */
export function errorRepeat(
  activity: SessionActivity,
  config: AnomalyConfig,
): AnomalyFinding[] {
  const since = activity.now - config.errorRepeatWindowMs;
  const calls = sessionCalls(activity);
  const edits = calls.filter((c) => c.kind === "edit" && c.success !== false).map((c) => c.ts);
  interface Failure {
    ts: number;
    key: string;
    text: string;
    command?: string;
  }
  const failures: Failure[] = [];
  const successes: Array<{ ts: number; command: string }> = [];
  for (const call of calls) {
    if (call.success === undefined || (call.end_ts ?? call.ts) < since) continue;
    if (call.success) {
      if (call.command !== undefined) {
        successes.push({ ts: call.end_ts ?? call.ts, command: call.command });
      }
      continue;
    }
    const text = [call.error ?? "", call.output ?? ""].filter((t) => t !== "").join("\n");
    const key = normalizeError(text);
    if (key !== "") failures.push({ ts: call.end_ts ?? call.ts, key, text, command: call.command });
  }
  for (const run of activity.build_runs ?? []) {
    const ts = run.started_at + run.duration_ms;
    if (ts < since) continue;
    if (run.exit_code === 0) {
      successes.push({ ts, command: run.command_line });
      continue;
    }
    const first = run.errors.find((e) => e.severity === "error");
    const text = first !== undefined
      ? `${first.code ?? ""} ${first.message}`
      : run.output_tail ?? "";
    const key = normalizeError(text);
    if (key !== "") failures.push({ ts, key, text, command: run.command_line });
  }
  failures.sort((a, b) => a.ts - b.ts);
  const byKey = new Map<string, Failure[]>();
  for (const failure of failures) {
    byKey.set(failure.key, [...(byKey.get(failure.key) ?? []), failure]);
  }
  const findings: AnomalyFinding[] = [];
  for (const [key, list] of [...byKey.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const last = list[list.length - 1];
    // Fixed since: the command that produced it has passed after its last occurrence.
    if (
      last.command !== undefined &&
      successes.some((s) => s.command === last.command && s.ts > last.ts)
    ) continue;
    let returns = 0;
    let attempts = 0;
    for (let i = 1; i < list.length; i++) {
      const between = edits.filter((t) => t > list[i - 1].ts && t < list[i].ts).length;
      if (between > 0) {
        returns++;
        attempts += between;
      }
    }
    if (returns < config.errorRepeatReturns) continue;
    findings.push({
      kind: "error_repeat",
      severity: "warning",
      channel: "next_prompt",
      evidence:
        `The same error came back ${returns} times after ${attempts} edit${
          attempts === 1 ? "" : "s"
        } ` +
        `meant to fix it: ${clip(last.text.split("\n").find((l) => l.trim() !== "") ?? key, 160)}`,
      suggestion:
        "Your fixes are not reaching the cause. Re-read the whole error and the code path it " +
        "names, and confirm your assumption (print or log the actual values) before the next edit.",
      related_files: [],
      fingerprint: fingerprint("error_repeat", key),
      observed_at: last.ts,
    });
  }
  return findings;
}
