/**
 * `agent.latency`: how long model calls take, per model: p50 and p95 of the
 * request duration and of the time to first token, overall and per time
 * bucket, with calls and failed calls. Read from the agents' OpenTelemetry
 * (Claude Code's `api_request` events and `llm_request` spans, GenAI spans):
 * transcripts carry no timings.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import type { PercentileRow } from "../../store/telemetry/window.ts";
import { agentContext, iso } from "./common.ts";
import { windowEnd } from "./dashboard_window.ts";
import {
  bucketMinSchema,
  ms,
  NO_TELEMETRY_NOTE,
  TELEMETRY_READER,
  telemetryAnswerFields,
  telemetryScope,
  telemetryWindowInput,
} from "./telemetry_window.ts";

const pointSchema = z.object({
  bucket: z.number().describe("Bucket start, epoch ms"),
  calls: z.number().int(),
  failed: z.number().int(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  ttft_p50_ms: z.number().nullable(),
  ttft_p95_ms: z.number().nullable(),
});

/** The `agent.latency` operation. */
export const latencyOperation: Operation = defineOperation({
  id: "agent.latency",
  title: "Model latency",
  description: "Model call p50/p95 latency and time to first token, per model over time.",
  input: z.object({
    ...telemetryWindowInput,
    bucket_min: bucketMinSchema,
    model: z.string().optional().describe("Only this model"),
  }),
  output: z.object({
    ...telemetryAnswerFields,
    bucket_min: z.number().int(),
    models: z.array(z.object({
      model: z.string(),
      calls: z.number().int(),
      failed: z.number().int(),
      p50_ms: z.number().nullable(),
      p95_ms: z.number().nullable(),
      ttft_p50_ms: z.number().nullable(),
      ttft_p95_ms: z.number().nullable(),
      series: z.array(pointSchema),
    })),
    note: z.string().optional(),
  }),
  ...TELEMETRY_READER,
  async run(context, input) {
    const ctx = agentContext(context);
    const scope = telemetryScope(ctx, input, 1440);
    const rows = await ctx.store.telemetry.modelLatency(scope.telemetry, scope.bucketMin * 60_000);
    const pick = (list: PercentileRow[], key: string, bucket: number) =>
      list.find((r) => r.key === key && r.bucket === bucket);
    const names = [...new Set(rows.calls.map((r) => r.key))]
      .filter((m) => input.model === undefined || m === input.model);
    const models = names.map((model) => {
      const calls = rows.calls.filter((r) => r.key === model);
      const overall = pick(rows.duration, model, 0);
      const ttft = pick(rows.ttft, model, 0);
      return {
        model,
        calls: calls.reduce((sum, r) => sum + r.calls, 0),
        failed: calls.reduce((sum, r) => sum + r.errors, 0),
        p50_ms: ms(overall?.p50),
        p95_ms: ms(overall?.p95),
        ttft_p50_ms: ms(ttft?.p50),
        ttft_p95_ms: ms(ttft?.p95),
        series: calls.map((r) => {
          const d = pick(rows.duration, model, r.bucket);
          const t = pick(rows.ttft, model, r.bucket);
          return {
            bucket: r.bucket,
            calls: r.calls,
            failed: r.errors,
            p50_ms: ms(d?.p50),
            p95_ms: ms(d?.p95),
            ttft_p50_ms: ms(t?.p50),
            ttft_p95_ms: ms(t?.p95),
          };
        }),
      };
    }).sort((a, b) => b.calls - a.calls);
    return {
      since: iso(scope.window.since),
      until: windowEnd(scope.window, ctx.now),
      bucket_min: scope.bucketMin,
      models,
      ...(models.length === 0 ? { note: NO_TELEMETRY_NOTE } : {}),
    };
  },
});
