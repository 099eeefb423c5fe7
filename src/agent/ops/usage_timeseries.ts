/**
 * `usage_timeseries`: tokens and cost per time bucket, one series per agent
 * or per model, with every series aligned on the same buckets so a chart can
 * draw them directly.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, agentSourceSchema, READ_ONLY, resolveAgentFilter } from "./common.ts";
import { resolveWindow, sinceMinSchema, untilMinSchema, windowEnd } from "./dashboard_window.ts";

/** Bucket sizes offered, minutes; the smallest that keeps the series under the cap is chosen. */
const BUCKET_STEPS = [1, 5, 15, 30, 60, 180, 360, 720, 1440, 10_080];
/** Most buckets in one answer. */
const MAX_BUCKETS = 400;

const seriesSchema = z.object({
  key: z.string(),
  input_tokens: z.array(z.number()),
  output_tokens: z.array(z.number()),
  cache_read_tokens: z.array(z.number()),
  cache_write_tokens: z.array(z.number()),
  cost_usd: z.array(z.number()).describe("Cost of the priced calls, USD"),
  calls: z.array(z.number()),
  unpriced_calls: z.array(z.number()).describe(
    "Calls whose model has no price (not in cost_usd)",
  ),
});

/** Picks the bucket size: the asked one when it fits under the cap, else the next step up. */
export function chooseBucketMin(windowMin: number, asked: number | undefined): number {
  const floor = windowMin / MAX_BUCKETS;
  if (asked !== undefined && asked >= 1 && asked >= floor) return Math.trunc(asked);
  const target = Math.max(floor, windowMin / 96);
  return BUCKET_STEPS.find((step) => step >= target) ?? Math.ceil(floor);
}

/** The `agent.usage_timeseries` operation. */
export const usageTimeseriesOperation: Operation = defineOperation({
  id: "agent.usage_timeseries",
  title: "Token and cost time series",
  description:
    "Tokens and cost over time, per agent or model (bucket_min 1440: per day); unpriced calls apart, never $0.",
  input: z.object({
    since_min: sinceMinSchema(1440),
    until_min: untilMinSchema,
    bucket_min: z.number().int().optional().describe(
      "Bucket minutes (default, or too fine: ~100 buckets)",
    ),
    group_by: z.enum(["agent", "model"]).default("agent").describe("One series per agent or model"),
    agent_source: agentSourceSchema,
  }),
  output: z.object({
    since: z.string(),
    until: z.string(),
    bucket_min: z.number().int(),
    group_by: z.enum(["agent", "model"]),
    buckets: z.array(z.number()),
    series: z.array(seriesSchema),
    totals: z.object({
      input_tokens: z.number(),
      output_tokens: z.number(),
      cache_read_tokens: z.number(),
      cache_write_tokens: z.number(),
      cost_usd: z.number(),
      calls: z.number(),
      unpriced_calls: z.number(),
    }),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const filter = resolveAgentFilter(input.agent_source, ctx.caller, false);
    const window = resolveWindow(ctx.now, input.since_min, input.until_min, 1440);
    const end = Math.min(window.until, ctx.now);
    const bucketMin = chooseBucketMin((end - window.since) / 60_000, input.bucket_min);
    const bucketMs = bucketMin * 60_000;
    const groupBy = input.group_by ?? "agent";
    const rows = await ctx.store.agent.usageBuckets({
      since: window.since,
      until: window.until,
      bucketMs,
      groupBy,
      agents: filter.agents,
    });
    // Every bucket of the window, so gaps draw as zero instead of joining distant points.
    const first = Math.floor(window.since / bucketMs) * bucketMs;
    const buckets: number[] = [];
    for (let t = first; t <= end && buckets.length < MAX_BUCKETS + 1; t += bucketMs) {
      buckets.push(t);
    }
    const index = new Map(buckets.map((t, i) => [t, i]));
    const series = new Map<string, z.infer<typeof seriesSchema>>();
    const totals = {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0,
      calls: 0,
      unpriced_calls: 0,
    };
    const zeros = () => buckets.map(() => 0);
    for (const row of rows) {
      const at = index.get(row.bucket);
      if (at === undefined) continue;
      let entry = series.get(row.series_key);
      if (entry === undefined) {
        entry = {
          key: row.series_key,
          input_tokens: zeros(),
          output_tokens: zeros(),
          cache_read_tokens: zeros(),
          cache_write_tokens: zeros(),
          cost_usd: zeros(),
          calls: zeros(),
          unpriced_calls: zeros(),
        };
        series.set(row.series_key, entry);
      }
      entry.input_tokens[at] += row.input_tokens;
      entry.output_tokens[at] += row.output_tokens;
      entry.cache_read_tokens[at] += row.cache_read_tokens;
      entry.cache_write_tokens[at] += row.cache_write_tokens;
      entry.cost_usd[at] = Math.round((entry.cost_usd[at] + row.cost_usd) * 1e6) / 1e6;
      entry.calls[at] += row.calls;
      entry.unpriced_calls[at] += row.unpriced_calls;
      totals.input_tokens += row.input_tokens;
      totals.output_tokens += row.output_tokens;
      totals.cache_read_tokens += row.cache_read_tokens;
      totals.cache_write_tokens += row.cache_write_tokens;
      totals.cost_usd += row.cost_usd;
      totals.calls += row.calls;
      totals.unpriced_calls += row.unpriced_calls;
    }
    totals.cost_usd = Math.round(totals.cost_usd * 1e6) / 1e6;
    return {
      since: new Date(window.since).toISOString(),
      until: windowEnd(window, ctx.now),
      bucket_min: bucketMin,
      group_by: groupBy,
      buckets,
      series: [...series.values()].sort((a, b) =>
        sum(b.cost_usd) - sum(a.cost_usd) || a.key.localeCompare(b.key)
      ),
      totals,
    };
  },
});

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
