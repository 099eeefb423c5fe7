/**
 * `agent.cost_burn`: how fast money goes — cost in the last hour and day,
 * the hourly and daily rate, the week projected from the daily rate, cost
 * per hour and per day, and the most expensive model calls. Read from the
 * usage rows, where every call counts once whether a transcript or telemetry
 * reported it, priced by Vantage's table (calls no price fits are counted
 * apart, never as $0).
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, agentSourceSchema, clamp, iso, resolveAgentFilter } from "./common.ts";
import { resolveWindow, sinceMinSchema, windowEnd } from "./dashboard_window.ts";
import {
  ms,
  TELEMETRY_READER,
  telemetryAnswerFields,
  telemetryRecordFields,
} from "./telemetry_window.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function usd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** The `agent.cost_burn` operation. */
export const costBurnOperation: Operation = defineOperation({
  id: "agent.cost_burn",
  title: "Cost burn rate",
  description:
    "Spend rate: last hour and day, hourly and daily rates, projected week, priciest calls.",
  input: z.object({
    since_min: sinceMinSchema(7 * 1440),
    agent_source: agentSourceSchema,
    top: clampedInt(0, 100).default(10).describe("Most expensive calls listed"),
  }),
  output: z.object({
    ...telemetryAnswerFields,
    last_hour_usd: z.number(),
    last_24h_usd: z.number(),
    window_usd: z.number(),
    hourly_rate_usd: z.number(),
    daily_rate_usd: z.number(),
    projected_week_usd: z.number(),
    unpriced_calls: z.number().int().describe(
      "Calls in the window no price fits (not in the sums)",
    ),
    side_requests: z.object({
      calls: z.number().int(),
      reported_usd: z.number(),
    }).describe(
      "Calls no transcript holds (titles, classifiers), at the cost reported; not in the sums",
    ),
    per_hour: z.array(
      z.object({ bucket: z.number(), cost_usd: z.number(), calls: z.number().int() }),
    ),
    per_day: z.array(
      z.object({ bucket: z.number(), cost_usd: z.number(), calls: z.number().int() }),
    ),
    most_expensive: z.array(z.object({
      ...telemetryRecordFields,
      model: z.string().nullable(),
      cost_usd: z.number(),
      input_tokens: z.number(),
      output_tokens: z.number(),
      cache_read_tokens: z.number(),
      cache_write_tokens: z.number(),
      request_id: z.string().nullable(),
      prompt_id: z.string().nullable(),
      duration_ms: z.number().nullable(),
    })),
  }),
  ...TELEMETRY_READER,
  async run(context, input) {
    const ctx = agentContext(context);
    const filter = resolveAgentFilter(input.agent_source, ctx.caller, false);
    const window = resolveWindow(ctx.now, input.since_min, undefined, 7 * 1440);
    const agents = filter.agents;
    const span = (since: number) => ({ since, until: ctx.now + 1, agents });
    const lastHour = await ctx.store.telemetry.costBetween(span(ctx.now - HOUR));
    const lastDay = await ctx.store.telemetry.costBetween(span(ctx.now - DAY));
    const whole = await ctx.store.telemetry.costBetween(span(window.since));
    const days = Math.max(1, (ctx.now - window.since) / DAY);
    const daily = whole.cost_usd / days;
    const side = await ctx.store.telemetry.outsideTranscriptCost(span(window.since));
    const round = (rows: Array<{ bucket: number; cost_usd: number; calls: number }>) =>
      rows.map((r) => ({ ...r, cost_usd: usd(r.cost_usd) }));
    return {
      since: iso(window.since),
      until: windowEnd(window, ctx.now),
      last_hour_usd: usd(lastHour.cost_usd),
      last_24h_usd: usd(lastDay.cost_usd),
      window_usd: usd(whole.cost_usd),
      hourly_rate_usd: usd(lastDay.cost_usd / 24),
      daily_rate_usd: usd(daily),
      projected_week_usd: usd(daily * 7),
      unpriced_calls: whole.unpriced_calls,
      side_requests: { calls: side.calls, reported_usd: usd(side.cost_usd) },
      per_hour: round(await ctx.store.telemetry.costBuckets(span(ctx.now - DAY), HOUR)),
      per_day: round(await ctx.store.telemetry.costBuckets(span(window.since), DAY)),
      most_expensive: (await ctx.store.telemetry.mostExpensiveCalls(
        span(window.since),
        clamp(input.top, 0, 100, 10),
      ))
        .map((c) => ({
          at: iso(c.ts),
          agent: c.agent,
          session_id: c.session_id,
          model: c.model,
          cost_usd: usd(c.cost_usd),
          input_tokens: c.input_tokens,
          output_tokens: c.output_tokens,
          cache_read_tokens: c.cache_read_tokens,
          cache_write_tokens: c.cache_write_tokens,
          request_id: c.request_id,
          prompt_id: c.prompt_id,
          duration_ms: ms(c.duration_ms),
        })),
    };
  },
});
