/**
 * The telemetry store on PostgreSQL: this folder's functions bound to a pool (or one write's
 * connection), checked by the compiler to be exactly {@linkcode TelemetryStore}`<"async">`.
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
export function pgTelemetryStore(q: PgQueryable): TelemetryStore<"async"> {
  return bindQueryable(q, PG_TELEMETRY_FUNCTIONS);
}
