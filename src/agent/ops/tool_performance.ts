/**
 * `agent.tool_performance`: per tool, calls, success rate, p50 and p95
 * duration and the trend against the window before, and the latest failed
 * calls with their error type — from the agents' OpenTelemetry (Claude
 * Code's `tool_result` events and tool spans, Codex's `tool_result`, GenAI
 * `execute_tool` spans).
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import type { TelemetryWindow } from "../../store/telemetry/window.ts";
import { agentContext, clamp, iso } from "./common.ts";
import { windowEnd } from "./dashboard_window.ts";
import {
  ms,
  NO_TELEMETRY_NOTE,
  TELEMETRY_READER,
  telemetryAnswerFields,
  telemetryRecordFields,
  telemetryScope,
  telemetryWindowInput,
} from "./telemetry_window.ts";

/** The `agent.tool_performance` operation. */
export const toolPerformanceOperation: Operation = defineOperation({
  id: "agent.tool_performance",
  title: "Tool performance",
  description: "Per tool: calls, success rate, p50/p95 duration, trend; latest failures.",
  input: z.object({
    ...telemetryWindowInput,
    failures: clampedInt(0, 100).default(20).describe("Recent failures listed"),
  }),
  output: z.object({
    ...telemetryAnswerFields,
    tools: z.array(z.object({
      tool: z.string(),
      calls: z.number().int(),
      failed: z.number().int(),
      success_rate: z.number().min(0).max(1).nullable().describe(
        "Succeeded / calls with a known outcome",
      ),
      p50_ms: z.number().nullable(),
      p95_ms: z.number().nullable(),
      avg_ms: z.number().nullable(),
      trend: z.object({
        previous_calls: z.number().int(),
        previous_p95_ms: z.number().nullable(),
        p95_change_pct: z.number().nullable(),
      }),
    })),
    recent_failures: z.array(z.object({
      ...telemetryRecordFields,
      tool: z.string().nullable(),
      error_type: z.string().nullable(),
      error: z.string().nullable(),
      duration_ms: z.number().nullable(),
      tool_use_id: z.string().nullable(),
    })),
    note: z.string().optional(),
  }),
  ...TELEMETRY_READER,
  async run(context, input) {
    const ctx = agentContext(context);
    const scope = telemetryScope(ctx, input, 1440);
    const window = scope.telemetry;
    const length = scope.end - scope.window.since;
    const previous: TelemetryWindow = {
      ...window,
      since: scope.window.since - length,
      until: scope.window.since,
    };
    const stats = await ctx.store.telemetry.toolStats(window);
    const durations = new Map(
      (await ctx.store.telemetry.toolDurations(window)).map((r) => [r.key, r]),
    );
    const before = new Map(
      (await ctx.store.telemetry.toolStats(previous)).map((r) => [r.tool_name, r]),
    );
    const beforeDurations = new Map(
      (await ctx.store.telemetry.toolDurations(previous)).map((r) => [r.key, r]),
    );
    const tools = stats.map((row) => {
      const d = durations.get(row.tool_name);
      const p95 = ms(d?.p95);
      const previousP95 = ms(beforeDurations.get(row.tool_name)?.p95);
      const known = row.succeeded + row.failed;
      return {
        tool: row.tool_name,
        calls: row.calls,
        failed: row.failed,
        success_rate: known === 0 ? null : Math.round((row.succeeded / known) * 1000) / 1000,
        p50_ms: ms(d?.p50),
        p95_ms: p95,
        avg_ms: ms(row.avg_ms),
        trend: {
          previous_calls: before.get(row.tool_name)?.calls ?? 0,
          previous_p95_ms: previousP95,
          p95_change_pct: p95 === null || previousP95 === null || previousP95 === 0
            ? null
            : Math.round(((p95 - previousP95) / previousP95) * 1000) / 10,
        },
      };
    });
    const failures = await ctx.store.telemetry.recentToolFailures(
      window,
      clamp(input.failures, 0, 100, 20),
    );
    return {
      since: iso(scope.window.since),
      until: windowEnd(scope.window, ctx.now),
      tools,
      recent_failures: failures.map((f) => ({
        at: iso(f.ts),
        agent: f.agent,
        session_id: f.session_id,
        tool: f.tool_name,
        error_type: f.error_type,
        error: f.error,
        duration_ms: ms(f.duration_ms),
        tool_use_id: f.tool_use_id,
      })),
      ...(tools.length === 0 ? { note: NO_TELEMETRY_NOTE } : {}),
    };
  },
});
