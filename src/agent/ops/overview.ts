/**
 * `overview`: the numbers a person glances at first — agents active now,
 * sessions today, tokens and cost, tool calls and their failure rate, open
 * anomalies, and the latest build of each project.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, ago, clamp, iso, READ_ONLY } from "./common.ts";
import { resolveWindow, sinceMinSchema } from "./dashboard_window.ts";

/** Build runs examined for the per-project build state. */
const RECENT_BUILD_RUNS = 500;

/** The start of the local day containing `now`, for a zone `offsetMin` minutes east of UTC. */
export function localDayStart(now: number, offsetMin: number): number {
  const shifted = now + offsetMin * 60_000;
  return shifted - (((shifted % 86_400_000) + 86_400_000) % 86_400_000) - offsetMin * 60_000;
}

/** The `agent.overview` operation. */
export const overviewOperation: Operation = defineOperation({
  id: "agent.overview",
  title: "Overview",
  description:
    "All agents at a glance: active now, sessions today, tokens, cost, tool failure rate, open anomalies, latest builds.",
  input: z.object({
    since_min: sinceMinSchema(1440),
    active_min: clampedInt(1, 120).default(5).describe(
      "Active = did something in the last N minutes",
    ),
    tz_offset_min: z.number().int().min(-840).max(840).default(0).describe(
      "Your time zone for 'today', minutes east of UTC",
    ),
  }),
  output: z.object({
    now: z.string(),
    active_now: z.object({
      sessions: z.number().int(),
      agents: z.array(z.object({
        agent: z.string(),
        sessions: z.number().int(),
        last_activity_at: z.string(),
        last_activity_ago: z.string(),
      })),
    }),
    sessions_today: z.number().int(),
    window: z.object({
      since: z.string(),
      since_min: z.number().int(),
      sessions_active: z.number().int(),
      model_calls: z.number().int(),
      tokens: z.object({
        input: z.number(),
        output: z.number(),
        cache_read: z.number(),
        cache_write: z.number(),
        total: z.number(),
      }),
      cache_hit_pct: z.number().optional(),
      cost_usd: z.number().describe("Cost of the priced model calls, USD"),
      unpriced_calls: z.number().int().describe(
        "Model calls whose model has no price (their cost is not in cost_usd)",
      ),
      unpriced_models: z.array(z.object({ model: z.string(), calls: z.number().int() })),
      tool_calls: z.number().int(),
      tool_failures: z.number().int(),
      failure_rate: z.number(),
    }),
    open_anomalies: z.object({
      total: z.number().int(),
      by_severity: z.record(z.string(), z.number().int()),
    }),
    builds: z.array(z.object({
      project: z.string(),
      tag: z.string(),
      status: z.enum(["passing", "failing"]),
      command: z.string(),
      last_run_at: z.string(),
      last_run_ago: z.string(),
      exit_code: z.number().int(),
      duration_ms: z.number().int(),
      error_count: z.number().int(),
      first_error: z.string().optional(),
    })),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const window = resolveWindow(ctx.now, input.since_min, undefined, 1440);
    const activeMin = clamp(input.active_min, 1, 120, 5);
    const active = await ctx.store.agent.activeSessionsByAgent(ctx.now - activeMin * 60_000);
    const today = localDayStart(ctx.now, input.tz_offset_min ?? 0);
    const usage = await ctx.store.agent.usageTotals(window.since, window.until);
    const tools = await ctx.store.agent.toolCallTotals(window.since, window.until);
    const severities = await ctx.store.perception.openAnomalyCounts(window.since);
    const inputSide = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
    const result = {
      now: iso(ctx.now),
      active_now: {
        sessions: active.reduce((sum, row) => sum + row.sessions, 0),
        agents: active.map((row) => ({
          agent: row.agent,
          sessions: row.sessions,
          last_activity_at: iso(row.last_activity_at),
          last_activity_ago: ago(row.last_activity_at, ctx.now),
        })),
      },
      sessions_today: await ctx.store.agent.sessionsStartedSince(today),
      window: {
        since: iso(window.since),
        since_min: window.since_min,
        sessions_active: tools.sessions,
        model_calls: usage.calls,
        tokens: {
          input: usage.input_tokens,
          output: usage.output_tokens,
          cache_read: usage.cache_read_tokens,
          cache_write: usage.cache_write_tokens,
          total: inputSide + usage.output_tokens,
        },
        cost_usd: Math.round(usage.cost_usd * 1e6) / 1e6,
        unpriced_calls: usage.unpriced_calls,
        unpriced_models: usage.unpriced_calls > 0
          ? await ctx.store.agent.unpricedModels(window.since, window.until, 10)
          : [],
        tool_calls: tools.calls,
        tool_failures: tools.failures,
        failure_rate: tools.calls === 0
          ? 0
          : Math.round((tools.failures / tools.calls) * 1e4) / 1e4,
      } as Record<string, unknown>,
      open_anomalies: {
        total: severities.reduce((sum, row) => sum + row.count, 0),
        by_severity: Object.fromEntries(severities.map((row) => [row.severity, row.count])),
      },
      builds: (await ctx.store.perception.latestBuildPerProject(RECENT_BUILD_RUNS)).map((run) => {
        const errors = parseErrors(run.errors);
        const build: Record<string, unknown> = {
          project: run.project,
          tag: run.tag,
          status: run.exit_code === 0 ? "passing" : "failing",
          command: run.command,
          last_run_at: iso(run.started_at),
          last_run_ago: ago(run.started_at, ctx.now),
          exit_code: run.exit_code,
          duration_ms: run.duration_ms,
          error_count: errors.length,
        };
        if (run.exit_code !== 0 && errors[0] !== undefined) build.first_error = errors[0];
        return build;
      }),
    };
    if (inputSide > 0) {
      result.window.cache_hit_pct = Math.round((usage.cache_read_tokens / inputSide) * 1000) / 10;
    }
    return result as never;
  },
});

function parseErrors(text: string): string[] {
  try {
    const list = JSON.parse(text) as Array<{ message?: string; file?: string; line?: number }>;
    return list.map((e) =>
      `${e.file !== undefined ? `${e.file}${e.line !== undefined ? `:${e.line}` : ""}: ` : ""}${
        e.message ?? ""
      }`
    );
  } catch {
    return [];
  }
}
