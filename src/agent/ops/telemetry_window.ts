/**
 * What the telemetry operations share: their window and bucket arguments,
 * and the note an answer carries when no telemetry arrived, so an empty
 * table reads as "nothing was sent" rather than "nothing happened".
 *
 * @module
 */
import { z } from "zod";
import type { TelemetryWindow } from "../../store/telemetry/window.ts";
import { type AgentContext, agentSourceSchema, READ_ONLY, resolveAgentFilter } from "./common.ts";
import {
  resolveWindow,
  sinceMinSchema,
  type TimeWindow,
  untilMinSchema,
} from "./dashboard_window.ts";
import { chooseBucketMin } from "./usage_timeseries.ts";

/** Schema of `bucket_min`. */
export const bucketMinSchema: z.ZodOptional<z.ZodNumber> = z.number().int().optional().describe(
  "Bucket minutes (default: ~100 buckets)",
);

/**
 * The arguments every windowed telemetry operation takes: the window (the last day unless
 * given) and the agents whose telemetry counts.
 */
export const telemetryWindowInput = {
  since_min: sinceMinSchema(1440),
  until_min: untilMinSchema,
  agent_source: agentSourceSchema,
};

/** A resolved window with its agent filter and bucket size. */
export interface TelemetryScope {
  /** The window. */
  window: TimeWindow;
  /** Its end, ms (now when open). */
  end: number;
  /** Agents to include (undefined: all). */
  agents?: string[];
  /** Bucket size, minutes. */
  bucketMin: number;
  /** The window and agents as the telemetry store reads them. */
  telemetry: TelemetryWindow;
}

/** Resolves the window, agent filter and bucket size of a telemetry operation. */
export function telemetryScope(
  ctx: AgentContext,
  input: { since_min?: number; until_min?: number; bucket_min?: number; agent_source?: string },
  defaultMin: number,
): TelemetryScope {
  const filter = resolveAgentFilter(input.agent_source, ctx.caller, false);
  const window = resolveWindow(ctx.now, input.since_min, input.until_min, defaultMin);
  const end = Math.min(window.until, ctx.now);
  const telemetry: TelemetryWindow = { since: window.since, until: window.until };
  const scope: TelemetryScope = {
    window,
    end,
    bucketMin: chooseBucketMin((end - window.since) / 60_000, input.bucket_min),
    telemetry,
  };
  if (filter.agents !== undefined) scope.agents = telemetry.agents = filter.agents;
  return scope;
}

/** What every telemetry operation is: a read, granted by `agent:read`. */
export const TELEMETRY_READER = { scopes: ["agent:read"], annotations: READ_ONLY } as const;

/** The window every telemetry answer states, as ISO times. */
export const telemetryAnswerFields = { since: z.string(), until: z.string() };

/** The fields every listed telemetry record starts with: when, which agent, which session. */
export const telemetryRecordFields = {
  at: z.string(),
  agent: z.string(),
  session_id: z.string(),
};

/** The note of an answer built from no telemetry at all. */
export const NO_TELEMETRY_NOTE =
  "No OpenTelemetry arrived in this window: point the agents' OTLP exporters at this server " +
  "(e.g. CLAUDE_CODE_ENABLE_TELEMETRY=1 with OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:14300)";

/** Rounds a duration to 0.1 ms (null stays null). */
export function ms(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : Math.round(value * 10) / 10;
}
