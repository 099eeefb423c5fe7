/**
 * The pieces of an agent's situation — session state, anomalies, build,
 * outside changes, project — built once and shared by the single-purpose
 * operations and by `get_context_bundle`.
 *
 * @module
 */
import { z } from "zod";
import type { SessionRow } from "../../store/agent/sessions.ts";
import { type AgentContext, ago, cutText, durationMin, iso, isoOrNull } from "./common.ts";

/** Minutes after which a build failure is reported as stale. */
export const BUILD_IDLE_THRESHOLD_MIN = 30;

/** Schema of a session's token use. */
export const tokensSchema = z.object({
  input: z.number().int(),
  output: z.number().int(),
  cache_read: z.number().int(),
  cache_write: z.number().int(),
  reasoning: z.number().int(),
  total: z.number().int(),
  cost_usd: z.number().describe("Cost of the priced model calls, USD"),
  unpriced_calls: z.number().int().describe(
    "Model calls whose model has no price (not in cost_usd)",
  ),
  context_tokens: z.number().int().optional(),
  context_window: z.number().int().optional(),
  context_used_pct: z.number().optional(),
});

/** Schema of one action (verbose session state). */
export const actionSchema = z.object({
  ts: z.string(),
  event_type: z.string(),
  tool_name: z.string().optional(),
  file_path: z.string().optional(),
  command_prefix: z.string().optional(),
  success: z.boolean().optional(),
  error: z.string().optional(),
});

/** Schema of a session's state. */
export const sessionStateSchema = z.object({
  session_id: z.string(),
  agent_source: z.string(),
  cwd: z.string(),
  project: z.string(),
  model: z.string().optional(),
  title: z.string().optional(),
  started_at: z.string().nullable().describe("null when no record of the session had a time"),
  last_activity_at: z.string().nullable(),
  last_activity_ago: z.string(),
  duration_min: z.number().nullable(),
  tool_calls: z.number().int(),
  tool_failures: z.number().int(),
  tools: z.array(
    z.object({ tool_name: z.string(), calls: z.number().int(), failures: z.number().int() }),
  ),
  tokens: tokensSchema,
  current_focus: z.string().optional(),
  last_prompt: z.string().optional(),
  recent_files: z.array(
    z.object({ path: z.string(), tool_name: z.string().optional(), ts: z.string() }),
  ),
  last_build_error: z.object({ tag: z.string(), message: z.string(), at: z.string() }).optional(),
  external_changes: z.array(z.string()),
  actions: z.array(actionSchema).optional(),
});

/** A session's state. */
export type SessionState = z.infer<typeof sessionStateSchema>;

/**
 * Where a session's own history begins for "since the session started" questions: its start,
 * or its last activity when no record had a time (never the epoch, which would mean "ever").
 */
export function sessionSince(session: SessionRow): number {
  return session.started_at > 0 ? session.started_at : session.last_activity_at;
}

/** Builds a session's state; `actionLimit` adds the verbose action list. */
export async function buildSessionState(
  ctx: AgentContext,
  session: SessionRow,
  actionLimit?: number,
): Promise<SessionState> {
  const fromEvents = await ctx.store.agent.toolCountsFromEvents(session.session_id);
  const tools = fromEvents.length > 0
    ? fromEvents
    : await ctx.store.agent.toolCountsFromMessages(session.session_id);
  const files = await ctx.store.agent.recentFiles(session.session_id, 10);
  const prompt = await ctx.store.agent.lastPrompt(session.session_id);
  const total = session.input_tokens + session.output_tokens + session.cache_read_tokens +
    session.cache_write_tokens;
  const tokens: z.infer<typeof tokensSchema> = {
    input: session.input_tokens,
    output: session.output_tokens,
    cache_read: session.cache_read_tokens,
    cache_write: session.cache_write_tokens,
    reasoning: session.reasoning_tokens,
    total,
    cost_usd: Math.round(session.cost_usd * 1e6) / 1e6,
    unpriced_calls: session.unpriced_calls,
  };
  if (session.context_tokens !== null) tokens.context_tokens = session.context_tokens;
  if (session.context_window !== null) {
    tokens.context_window = session.context_window;
    if (session.context_tokens !== null) {
      tokens.context_used_pct =
        Math.round((session.context_tokens / session.context_window) * 1000) / 10;
    }
  }
  const project = session.project ?? session.cwd ?? "";
  const state: SessionState = {
    session_id: session.session_id,
    agent_source: session.agent,
    cwd: session.cwd ?? project,
    project,
    started_at: isoOrNull(session.started_at),
    last_activity_at: isoOrNull(session.last_activity_at),
    last_activity_ago: ago(session.last_activity_at, ctx.now),
    duration_min: durationMin(session.started_at, session.last_activity_at),
    tool_calls: tools.reduce((sum, t) => sum + t.calls, 0),
    tool_failures: tools.reduce((sum, t) => sum + (t.failures ?? 0), 0),
    tools: tools.map((t) => ({
      tool_name: t.tool_name,
      calls: t.calls,
      failures: t.failures ?? 0,
    })),
    tokens,
    recent_files: files.map((f) => ({
      path: f.path,
      ...(f.tool_name !== null ? { tool_name: f.tool_name } : {}),
      ts: iso(f.ts),
    })),
    external_changes: (await ctx.store.perception.fileChangesSince(
      project || null,
      sessionSince(session),
      20,
    ))
      .filter((c) => c.source !== "agent")
      .map((c) => c.path),
  };
  if (session.model !== null) state.model = session.model;
  if (session.title !== null) state.title = session.title;
  if (files.length > 0) state.current_focus = files[0].path;
  if (prompt !== undefined) state.last_prompt = cutText(prompt.text, 300).text;
  const build = (await ctx.store.perception.latestBuildRuns(undefined, 1))[0];
  if (build !== undefined && build.exit_code !== 0 && build.started_at >= sessionSince(session)) {
    const errors = JSON.parse(build.errors) as Array<{ message?: string }>;
    state.last_build_error = {
      tag: build.tag,
      message: errors[0]?.message ?? `exit code ${build.exit_code}`,
      at: iso(build.started_at),
    };
  }
  if (actionLimit !== undefined) {
    state.actions = (await ctx.store.agent.recentToolEvents(session.session_id, actionLimit))
      .reverse().map((e) => {
        const action: z.infer<typeof actionSchema> = { ts: iso(e.ts), event_type: e.event_type };
        if (e.tool_name !== null) action.tool_name = e.tool_name;
        if (e.file_path !== null) action.file_path = e.file_path;
        if (e.command_prefix !== null) action.command_prefix = e.command_prefix;
        if (e.event_type === "PostToolUse") action.success = e.success !== 0;
        if (e.event_type === "PostToolUseFailure") action.success = false;
        if (e.error !== null) action.error = cutText(e.error, 300).text;
        return action;
      });
  }
  return state;
}

/** Schema of one anomaly. */
export const anomalySchema = z.object({
  kind: z.string(),
  severity: z.string(),
  channel: z.string(),
  evidence: z.string(),
  suggestion: z.string(),
  related_files: z.array(z.string()),
  first_emitted_at: z.string(),
  last_emitted_at: z.string(),
  emit_count: z.number().int(),
});

/** A session's active anomalies, optionally of one channel. */
export async function buildAnomalies(
  ctx: AgentContext,
  sessionId: string,
  channel?: string,
): Promise<z.infer<typeof anomalySchema>[]> {
  return (await ctx.store.perception.activeAnomalies(sessionId))
    .filter((a) => channel === undefined || a.channel === channel)
    .map((a) => ({
      kind: a.kind,
      severity: a.severity,
      channel: a.channel,
      evidence: a.evidence,
      suggestion: a.suggestion,
      related_files: JSON.parse(a.related_files) as string[],
      first_emitted_at: iso(a.first_emitted_at),
      last_emitted_at: iso(a.last_emitted_at),
      emit_count: a.emit_count,
    }));
}

/** Schema of the build status. */
export const buildStatusSchema = z.object({
  tag: z.string().optional(),
  status: z.enum(["passing", "failing", "unknown"]),
  command: z.string().optional(),
  last_run_at: z.string().optional(),
  last_run_ago: z.string().optional(),
  exit_code: z.number().int().optional(),
  duration_ms: z.number().int().optional(),
  last_error: z.object({
    message: z.string(),
    file: z.string().optional(),
    line: z.number().int().optional(),
    at: z.string(),
  }).optional(),
  error_count: z.number().int(),
  errors: z.array(
    z.object({
      message: z.string(),
      file: z.string().optional(),
      line: z.number().int().optional(),
    }),
  ),
  stale: z.boolean(),
  idle_threshold_min: z.number().int(),
  note: z.string().optional(),
});

/** The latest build status of a tag (or of any build). */
export async function buildStatus(
  ctx: AgentContext,
  tag?: string,
): Promise<z.infer<typeof buildStatusSchema>> {
  const run = (await ctx.store.perception.latestBuildRuns(tag, 1))[0];
  if (run === undefined) {
    return {
      ...(tag !== undefined ? { tag } : {}),
      status: "unknown",
      error_count: 0,
      errors: [],
      stale: false,
      idle_threshold_min: BUILD_IDLE_THRESHOLD_MIN,
      note: tag === undefined
        ? "no build recorded yet; run your build through `vantage build -- <command>`"
        : `no build recorded with tag '${tag}'`,
    };
  }
  const errors =
    (JSON.parse(run.errors) as Array<{ message?: string; file?: string; line?: number }>)
      .map((e) => ({
        message: e.message ?? "",
        ...(e.file !== undefined ? { file: e.file } : {}),
        ...(typeof e.line === "number" ? { line: e.line } : {}),
      }));
  const failing = run.exit_code !== 0;
  const ageMin = (ctx.now - (run.started_at + run.duration_ms)) / 60_000;
  const status: z.infer<typeof buildStatusSchema> = {
    tag: run.tag,
    status: failing ? "failing" : "passing",
    command: run.command,
    last_run_at: iso(run.started_at),
    last_run_ago: ago(run.started_at, ctx.now),
    exit_code: run.exit_code,
    duration_ms: run.duration_ms,
    error_count: errors.length,
    errors: errors.slice(0, 20),
    stale: failing && ageMin > BUILD_IDLE_THRESHOLD_MIN,
    idle_threshold_min: BUILD_IDLE_THRESHOLD_MIN,
  };
  if (failing) {
    const first = errors[0];
    status.last_error = {
      message: first?.message || `exit code ${run.exit_code}`,
      ...(first?.file !== undefined ? { file: first.file } : {}),
      ...(first?.line !== undefined ? { line: first.line } : {}),
      at: iso(run.started_at),
    };
  }
  return status;
}

/** Schema of the outside changes. */
export const externalChangesSchema = z.object({
  project: z.string(),
  since_min: z.number().int(),
  count: z.number().int(),
  changes: z.array(z.object({
    path: z.string(),
    kind: z.string(),
    source: z.string(),
    at: z.string(),
    agent: z.string().optional(),
    session_id: z.string().optional(),
  })),
  git: z.array(z.object({
    kind: z.string(),
    branch: z.string().optional(),
    from: z.string().optional(),
    to: z.string().optional(),
    summary: z.string().optional(),
    at: z.string(),
  })),
  note: z.string().optional(),
});

/** File changes (attributed) and git moves in a project since `sinceMin` minutes. */
export async function externalChanges(
  ctx: AgentContext,
  project: string,
  sinceMin: number,
): Promise<z.infer<typeof externalChangesSchema>> {
  const since = ctx.now - sinceMin * 60_000;
  const changes = (await ctx.store.perception.fileChangesSince(project, since, 200)).map((c) => ({
    path: c.path,
    kind: c.kind,
    source: c.source,
    at: iso(c.ts),
    ...(c.agent !== null ? { agent: c.agent } : {}),
    ...(c.session_id !== null ? { session_id: c.session_id } : {}),
  }));
  const git = (await ctx.store.perception.gitMovesSince(project, since, 50)).map((g) => ({
    kind: g.kind,
    ...(g.branch !== null ? { branch: g.branch } : {}),
    ...(g.from_ref !== null ? { from: g.from_ref } : {}),
    ...(g.to_ref !== null ? { to: g.to_ref } : {}),
    ...(g.summary !== null ? { summary: g.summary } : {}),
    at: iso(g.ts),
  }));
  const result: z.infer<typeof externalChangesSchema> = {
    project,
    since_min: sinceMin,
    count: changes.length + git.length,
    changes,
    git,
  };
  if (result.count === 0) {
    result.note = `no file changes or git moves recorded in the last ${sinceMin} minutes`;
  }
  return result;
}

/** The indexed project state for a folder, if the project sensor indexed it. */
export async function projectState(
  ctx: AgentContext,
  cwd: string,
): Promise<Record<string, unknown>> {
  const root = await ctx.store.perception.projectRootFor(cwd);
  if (root === undefined) {
    return {
      root: cwd,
      indexed: false,
      note:
        "this project is not indexed yet; `vantage project refresh` (or a running `vantage serve`) indexes it",
    };
  }
  const stored = (await ctx.store.perception.getProjectState(root))!;
  return {
    ...JSON.parse(stored.state),
    root,
    indexed: true,
    refreshed_at: iso(stored.refreshed_at),
  };
}
