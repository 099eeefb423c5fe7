/**
 * The context snapshot a hook answer or `get_context_bundle` shows, composed from what the
 * perception engine read (one bundle per hook event) and the session's active anomalies: the
 * project and its stack, the session's time and tokens, recent files, the latest build, what
 * changed outside the agent, and the anomalies. Pure: it reads nothing itself.
 *
 * @module
 */
import type { HookEvent } from "../model/agent_records.ts";
import type { AnomalyRow } from "../store/perception/anomalies.ts";
import type { ContextBundle, PerceptionBundle } from "../store/perception/perception_bundle.ts";
import type { BuildError } from "./build_errors.ts";
import type { ContextSnapshot } from "./context_renderer.ts";
import { describeStack, type ProjectState } from "./project_detect.ts";

/** How far back a context answer looks when the session's start is not known, and for builds. */
export const CONTEXT_WINDOW_MS = 30 * 60_000;
/** Outside changes a context answer shows at most. */
export const CONTEXT_FILE_CHANGES = 50;

/**
 * The snapshot from what was read: each part takes its own window out of the bundle's rows.
 * The active anomalies are read here, after the rules that write them.
 */
export function composeSnapshot(
  sessionId: string,
  bundle: PerceptionBundle,
  context: ContextBundle,
  anomalies: readonly AnomalyRow[],
  now: number,
  events: readonly HookEvent[],
): ContextSnapshot {
  const snapshot: ContextSnapshot = {};
  const session = bundle.session;
  const project = context.project;
  if (project !== undefined) {
    const stored = context.project_state;
    const state = stored === undefined ? undefined : JSON.parse(stored.state) as ProjectState;
    snapshot.project = {
      name: state?.name ?? project.split(/[\\/]/).filter(Boolean).pop() ?? project,
      root: project,
      ...(state !== undefined ? { stack: describeStack(state) } : {}),
    };
  }
  const toolCalls =
    events.filter((e) => e.event_type === "PostToolUse" || e.event_type === "PostToolUseFailure")
      .length;
  snapshot.session = {
    id: sessionId,
    ...(session !== undefined && session.started_at > 0
      ? { duration_ms: Math.max(0, now - session.started_at) }
      : {}),
    tool_calls: toolCalls > 0 ? toolCalls : session?.tool_calls ?? 0,
    ...(session !== undefined
      ? {
        tokens_in: session.input_tokens + session.cache_read_tokens + session.cache_write_tokens,
        tokens_out: session.output_tokens,
      }
      : {}),
  };
  const files = context.recent_files;
  if (files.length > 0) {
    snapshot.focus = files[0];
    snapshot.recent_files = files;
  }
  const build = context.latest_build;
  if (build !== undefined) {
    const recent = now - CONTEXT_WINDOW_MS;
    const failures = bundle.build_runs.filter((r) =>
      r.started_at >= recent && r.exit_code !== 0
    ).length;
    const errors = JSON.parse(build.errors) as BuildError[];
    snapshot.build = {
      status: build.exit_code === 0 ? "ok" : "failed",
      command: build.command,
      tag: build.tag,
      exit_code: build.exit_code,
      errors_30m: failures,
      ...(build.exit_code !== 0 && errors[0] !== undefined
        ? {
          last_error: `${errors[0].file ?? ""}${
            errors[0].line !== undefined ? `:${errors[0].line}` : ""
          } ${errors[0].message}`.trim(),
        }
        : {}),
      age_ms: now - build.started_at,
    };
  }
  if (project !== undefined) {
    const since = session !== undefined && session.started_at > 0
      ? session.started_at
      : now - CONTEXT_WINDOW_MS;
    // Newest first: the newest few since the session began, as a read of their own would be.
    const external = context.file_changes.filter((c) => c.ts >= since)
      .slice(0, CONTEXT_FILE_CHANGES)
      .filter((c) => c.source !== "agent")
      .map((c) => c.path);
    const git = context.git_moves.filter((g) => g.ts >= since).map((g) =>
      g.kind === "commit"
        ? `commit ${(g.to_ref ?? "").slice(0, 7)} "${g.summary ?? ""}"${
          g.branch !== null ? ` on ${g.branch}` : ""
        }`
        : `${g.kind.replace("_", " ")} ${g.from_ref ?? "?"} → ${g.to_ref ?? "?"}`
    );
    if (external.length > 0 || git.length > 0) {
      snapshot.external_changes = {
        files: [...new Set(external)],
        ...(git.length > 0 ? { git } : {}),
      };
    }
  }
  if (anomalies.length > 0) {
    snapshot.anomalies = anomalies.map((a) => ({
      kind: a.kind,
      severity: a.severity as "info" | "warning" | "critical",
      evidence: a.evidence,
      suggestion: a.suggestion,
      related_files: JSON.parse(a.related_files) as string[],
      fingerprint: a.fingerprint,
    }));
  }
  return snapshot;
}
