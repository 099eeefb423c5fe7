/**
 * `agent.api_errors`: how often model API requests fail — errors against
 * successful calls per time bucket, errors per HTTP status, and the latest
 * errors with their message — from the agents' OpenTelemetry (Claude Code's
 * `api_error` events, Codex's failed `api_request`s, GenAI spans with an
 * error status).
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, clamp, iso } from "./common.ts";
import { windowEnd } from "./dashboard_window.ts";
import {
  bucketMinSchema,
  ms,
  NO_TELEMETRY_NOTE,
  TELEMETRY_READER,
  telemetryAnswerFields,
  telemetryRecordFields,
  telemetryScope,
  telemetryWindowInput,
} from "./telemetry_window.ts";

function rate(errors: number, calls: number): number | null {
  return errors + calls === 0 ? null : Math.round((errors / (errors + calls)) * 10_000) / 10_000;
}

/** The `agent.api_errors` operation. */
export const apiErrorsOperation: Operation = defineOperation({
  id: "agent.api_errors",
  title: "API errors",
  description: "Model API error rate over time, errors per HTTP status, latest errors.",
  input: z.object({
    ...telemetryWindowInput,
    bucket_min: bucketMinSchema,
    limit: clampedInt(0, 100).default(20).describe("Recent errors listed"),
  }),
  output: z.object({
    ...telemetryAnswerFields,
    bucket_min: z.number().int(),
    errors: z.number().int(),
    calls: z.number().int().describe("Successful model calls in the window"),
    error_rate: z.number().nullable(),
    series: z.array(z.object({
      bucket: z.number(),
      errors: z.number().int(),
      calls: z.number().int(),
      error_rate: z.number().nullable(),
    })),
    by_status: z.array(z.object({ status_code: z.number().nullable(), errors: z.number().int() })),
    recent: z.array(z.object({
      ...telemetryRecordFields,
      model: z.string().nullable(),
      status_code: z.number().nullable(),
      error: z.string().nullable(),
      attempt: z.number().nullable(),
      request_id: z.string().nullable(),
      duration_ms: z.number().nullable(),
    })),
    note: z.string().optional(),
  }),
  ...TELEMETRY_READER,
  async run(context, input) {
    const ctx = agentContext(context);
    const scope = telemetryScope(ctx, input, 1440);
    const summary = await ctx.store.telemetry.apiErrorSummary(
      scope.telemetry,
      scope.bucketMin * 60_000,
      clamp(input.limit, 0, 100, 20),
    );
    const errors = summary.buckets.reduce((sum, b) => sum + b.errors, 0);
    const calls = summary.buckets.reduce((sum, b) => sum + b.calls, 0);
    return {
      since: iso(scope.window.since),
      until: windowEnd(scope.window, ctx.now),
      bucket_min: scope.bucketMin,
      errors,
      calls,
      error_rate: rate(errors, calls),
      series: summary.buckets.map((b) => ({ ...b, error_rate: rate(b.errors, b.calls) })),
      by_status: summary.byStatus,
      recent: summary.recent.map((e) => ({
        at: iso(e.ts),
        agent: e.agent,
        session_id: e.session_id,
        model: e.model,
        status_code: e.status_code,
        error: e.error,
        attempt: e.attempt,
        request_id: e.request_id,
        duration_ms: ms(e.duration_ms),
      })),
      ...(errors + calls === 0 ? { note: NO_TELEMETRY_NOTE } : {}),
    };
  },
});
