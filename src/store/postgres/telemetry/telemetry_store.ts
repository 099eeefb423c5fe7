/**
 * The telemetry store on PostgreSQL: this folder's functions bound to a pool (or one write's
 * connection), checked by the compiler to be {@linkcode PgTelemetryStore}: the part of
 * {@linkcode TelemetryStore}`<"async">` ported so far. Not yet ported: what main added since
 * (traces and conversations, the per-session reads of the telemetry anomaly rules, the
 * security scan's tool texts, and the in-memory merge of an export part's calls), so the
 * telemetry area is listed as pending on PostgreSQL.
 *
 * @module
 */
import type { TelemetryStore } from "../../telemetry/telemetry_store.ts";
import { bindQueryable } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import {
  apiErrorSummary,
  costBetween,
  costBuckets,
  mostExpensiveCalls,
  outsideTranscriptCost,
} from "./cost_and_errors.ts";
import { modelLatency } from "./model_calls.ts";
import { settleTelemetryCounts } from "./settle.ts";
import { storeTelemetryBatch } from "./telemetry_batch.ts";
import { recentToolFailures, toolDurations, toolStats } from "./tool_calls.ts";

/** The telemetry reads and writes that run on PostgreSQL so far. */
export type PgTelemetryStore = Pick<
  TelemetryStore<"async">,
  | "storeTelemetryBatch"
  | "settleTelemetryCounts"
  | "modelLatency"
  | "toolStats"
  | "toolDurations"
  | "recentToolFailures"
  | "apiErrorSummary"
  | "costBetween"
  | "outsideTranscriptCost"
  | "costBuckets"
  | "mostExpensiveCalls"
>;

const PG_TELEMETRY_FUNCTIONS = {
  storeTelemetryBatch,
  settleTelemetryCounts,
  modelLatency,
  toolStats,
  toolDurations,
  recentToolFailures,
  apiErrorSummary,
  costBetween,
  outsideTranscriptCost,
  costBuckets,
  mostExpensiveCalls,
};

/**
 * The PostgreSQL telemetry store on a pool or a write's connection.
 *
 * @example
 * ```ts ignore
 * import { pgTelemetryStore } from "./telemetry_store.ts";
 * const telemetry = pgTelemetryStore(pool);
 * await telemetry.toolStats({ since: 0, until: Date.now() }); // []
 * ```
 */
export function pgTelemetryStore(q: PgQueryable): PgTelemetryStore {
  return bindQueryable(q, PG_TELEMETRY_FUNCTIONS);
}
