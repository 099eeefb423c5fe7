/**
 * Gathers what the telemetry anomaly rules look at for one session: its
 * recent API errors, model calls and timed tool calls, its priced totals,
 * and for each tool it used lately that tool's p95 over the calls before
 * them (any session of the same agent), so "slower than usual" means
 * slower than that tool usually is.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import {
  sessionApiErrors,
  sessionModelCalls,
  sessionPricedTotals,
  sessionToolCalls,
  toolDurationsBefore,
} from "../store/telemetry_activity_reads.ts";
import { p95 } from "./anomaly_rules_telemetry.ts";
import type { AnomalyConfig, TelemetryActivity, ToolBaseline } from "./anomaly_types.ts";

/** A tool's baseline is taken over at most this many of its latest earlier calls. */
const BASELINE_CALLS = 500;

/** The longest window any telemetry rule looks back over. */
function lookback(config: AnomalyConfig): number {
  return Math.max(
    config.apiErrorBurstWindowMs,
    config.costlyRequestWindowMs,
    config.toolSlowWindowMs,
  );
}

/** Reads the session's telemetry as of `now`. */
export function readTelemetryActivity(
  db: DatabaseSync,
  sessionId: string,
  now: number,
  config: AnomalyConfig,
): TelemetryActivity {
  const since = now - lookback(config);
  const tools = sessionToolCalls(db, sessionId, now - config.toolSlowWindowMs);
  const baselines: Record<string, ToolBaseline> = {};
  const firstRecent = new Map<string, { agent: string; ts: number }>();
  for (const call of tools) {
    if (!firstRecent.has(call.tool_name)) {
      firstRecent.set(call.tool_name, { agent: call.agent, ts: call.ts });
    }
  }
  for (const [tool, { agent, ts }] of firstRecent) {
    const durations = toolDurationsBefore(db, agent, tool, ts, BASELINE_CALLS);
    const value = p95(durations);
    if (value !== undefined) baselines[tool] = { p95_ms: value, calls: durations.length };
  }
  return {
    api_errors: sessionApiErrors(db, sessionId, since).map((e) => ({
      ts: e.ts,
      ...(e.status_code !== null ? { status_code: e.status_code } : {}),
      ...(e.error !== null ? { error: e.error } : {}),
      ...(e.model !== null ? { model: e.model } : {}),
    })),
    model_calls: sessionModelCalls(db, sessionId, since)
      .filter((c) => c.cost_usd !== null)
      .map((c) => ({
        ts: c.ts,
        key: c.call_key,
        ...(c.model !== null ? { model: c.model } : {}),
        ...(c.request_id !== null ? { request_id: c.request_id } : {}),
        cost_usd: c.cost_usd!,
        in_totals: c.in_totals === 1,
        context_tokens: c.context_tokens,
        output_tokens: c.output_tokens,
      })),
    session_cost: sessionPricedTotals(db, sessionId),
    tool_calls: tools.map((c) => ({
      ts: c.ts,
      tool_name: c.tool_name,
      duration_ms: c.duration_ms,
    })),
    tool_baselines: baselines,
  };
}
