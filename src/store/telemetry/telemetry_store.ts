/**
 * What the rest of Vantage asks of the telemetry store: the interface every
 * backend implements (SQLite here; PostgreSQL for team mode), and its SQLite
 * implementation, the functions of this folder bound to a connection. The
 * records written are the shared model types (`src/model`); the rows read
 * are the types of this folder, the same for every backend.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../model/agent_records.ts";
import type { TelemetryBatch } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../database.ts";
import { type Answer, bindConnection, type StoreMode } from "../repository.ts";
import { type ApiErrorRow, apiErrorSummary } from "./api_errors.ts";
import {
  costBetween,
  costBuckets,
  type ExpensiveCallRow,
  mostExpensiveCalls,
  outsideTranscriptCost,
} from "./cost.ts";
import { type ModelCallCount, modelLatency } from "./model_calls.ts";
import { settleTelemetryCounts } from "./settle.ts";
import { storeTelemetryBatch, type TelemetryWriteCounts } from "./telemetry_batch.ts";
import {
  recentToolFailures,
  toolDurations,
  type ToolFailureRow,
  toolStats,
  type ToolStatsRow,
} from "./tool_calls.ts";
import type { PercentileRow, TelemetryWindow } from "./window.ts";

/**
 * The telemetry store: OTLP exports in, and the latency, tool, error and
 * cost figures out. A call seen in a transcript and in telemetry counts
 * once. Each method is the function of the same name in this folder.
 */
export interface TelemetryStore<M extends StoreMode = "sync"> {
  /** Stores one export's records in one write; `priceOf` prices calls counted from telemetry. */
  storeTelemetryBatch(
    batch: TelemetryBatch,
    priceOf: (record: CountedUsage) => CallPrice,
    receivedAt: number,
  ): Answer<TelemetryWriteCounts, M>;
  /** After a transcript batch of these sessions: withdraws what telemetry counted for them. */
  settleTelemetryCounts(sessionIds: Iterable<string>): Answer<number, M>;
  /** Latency and time-to-first-token percentiles per model, overall and per bucket. */
  modelLatency(
    window: TelemetryWindow,
    bucketMs: number,
  ): Answer<{ duration: PercentileRow[]; ttft: PercentileRow[]; calls: ModelCallCount[] }, M>;
  /** Calls, outcomes and durations per tool. */
  toolStats(window: TelemetryWindow): Answer<ToolStatsRow[], M>;
  /** p50 and p95 duration per tool. */
  toolDurations(window: TelemetryWindow): Answer<PercentileRow[], M>;
  /** The latest failed tool calls. */
  recentToolFailures(window: TelemetryWindow, limit: number): Answer<ToolFailureRow[], M>;
  /** API errors and model calls per bucket, errors per status, and the latest errors. */
  apiErrorSummary(
    window: TelemetryWindow,
    bucketMs: number,
    limit: number,
  ): Answer<{
    buckets: Array<{ bucket: number; errors: number; calls: number }>;
    byStatus: Array<{ status_code: number | null; errors: number }>;
    recent: ApiErrorRow[];
  }, M>;
  /** Cost and calls in a window, each call once whatever its source. */
  costBetween(
    window: TelemetryWindow,
  ): Answer<{ cost_usd: number; calls: number; unpriced_calls: number }, M>;
  /** What agents reported spending on calls no transcript holds. */
  outsideTranscriptCost(window: TelemetryWindow): Answer<{ cost_usd: number; calls: number }, M>;
  /** Cost per bucket. */
  costBuckets(
    window: TelemetryWindow,
    bucketMs: number,
  ): Answer<Array<{ bucket: number; cost_usd: number; calls: number }>, M>;
  /** The most expensive priced calls, with what telemetry knows about each. */
  mostExpensiveCalls(window: TelemetryWindow, limit: number): Answer<ExpensiveCallRow[], M>;
}

const SQLITE_TELEMETRY_FUNCTIONS = {
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
 * The SQLite telemetry store on one connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "../database.ts";
 * import { sqliteTelemetryStore } from "./telemetry_store.ts";
 * const telemetry = sqliteTelemetryStore(openDatabase(":memory:"));
 * telemetry.toolStats({ since: 0, until: Date.now() }); // []
 * ```
 */
export function sqliteTelemetryStore(db: DatabaseSync): TelemetryStore<"sync"> {
  return bindConnection(db, SQLITE_TELEMETRY_FUNCTIONS);
}
