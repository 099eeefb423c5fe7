/**
 * Gathers what the telemetry anomaly rules look at for one session: its
 * recent API errors, the model calls that may cost too much, each tool's
 * latest timed calls, its priced totals, and for a tool whose latest calls
 * took long that tool's p95 over the calls before them (any session of the
 * same agent), so "slower than usual" means slower than that tool usually is.
 *
 * @module
 */
import { andThen, eachInTurn, type Eventually } from "../core/eventually.ts";
import type { StoreMode } from "../store/repository.ts";
import type { TelemetryStore } from "../store/telemetry/telemetry_store.ts";
import { median, p95 } from "./anomaly_rules_telemetry.ts";
import type { AnomalyConfig, TelemetryActivity, ToolBaseline } from "./anomaly_types.ts";

/** A tool's baseline is taken over at most this many of its latest earlier calls. */
const BASELINE_CALLS = 500;

/**
 * Reads the session's telemetry as of `now`: what the rules can report, and no more — the
 * calls that may be costly (not every call), each tool's latest `toolSlowCalls` calls, and a
 * baseline only for a tool whose latest calls took long enough to be slow at all.
 */
export function readTelemetryActivity(
  store: TelemetryStore<StoreMode>,
  sessionId: string,
  now: number,
  config: AnomalyConfig,
): Eventually<TelemetryActivity> {
  const read = {
    totals: store.sessionPricedTotals(sessionId),
    tools: store.sessionToolCalls(sessionId, now - config.toolSlowWindowMs, config.toolSlowCalls),
  };
  return andThen(read.totals, (totals) =>
    andThen(read.tools, (tools) => {
      const byTool = new Map<string, { agent: string; first: number; durations: number[] }>();
      for (const call of tools) {
        const entry = byTool.get(call.tool_name) ??
          { agent: call.agent, first: call.ts, durations: [] };
        entry.durations.push(call.duration_ms);
        byTool.set(call.tool_name, entry);
      }
      // A baseline only for a tool whose latest calls took long enough to be slow at all.
      const slow = [...byTool].filter(([, { durations }]) =>
        durations.length >= config.toolSlowCalls && median(durations) >= config.toolSlowMinMs
      );
      const baselinesRead = eachInTurn(slow, ([tool, { agent, first }]) =>
        andThen(
          store.toolDurationsBefore(agent, tool, first, BASELINE_CALLS),
          (earlier) => [tool, earlier] as const,
        ));
      const errorsRead = store.sessionApiErrors(sessionId, now - config.apiErrorBurstWindowMs);
      const costlyRead = store.sessionCostlyCalls(
        sessionId,
        now - config.costlyRequestWindowMs,
        totals,
        config.costlyRequestMinUsd,
        config.costlyRequestFactor,
      );
      return andThen(baselinesRead, (earlierByTool) =>
        andThen(errorsRead, (errors) =>
          andThen(costlyRead, (costly) => {
            const baselines: Record<string, ToolBaseline> = {};
            for (const [tool, earlier] of earlierByTool) {
              const value = p95(earlier);
              if (value !== undefined) {
                baselines[tool] = { p95_ms: value, calls: earlier.length };
              }
            }
            return {
              api_errors: errors.map((e) => ({
                ts: e.ts,
                ...(e.status_code !== null ? { status_code: e.status_code } : {}),
                ...(e.error !== null ? { error: e.error } : {}),
                ...(e.model !== null ? { model: e.model } : {}),
              })),
              model_calls: costly.map((c) => ({
                ts: c.ts,
                key: c.call_key,
                ...(c.model !== null ? { model: c.model } : {}),
                ...(c.request_id !== null ? { request_id: c.request_id } : {}),
                cost_usd: c.cost_usd,
                in_totals: c.in_totals === 1,
                context_tokens: c.context_tokens,
                output_tokens: c.output_tokens,
              })),
              session_cost: totals,
              tool_calls: tools.map((c) => ({
                ts: c.ts,
                tool_name: c.tool_name,
                duration_ms: c.duration_ms,
              })),
              tool_baselines: baselines,
            };
          })));
    }));
}
