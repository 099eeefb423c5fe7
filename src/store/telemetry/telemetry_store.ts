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
import type { StoredToolTexts, ToolTextWindow } from "../agent/tool_texts.ts";
import {
  type ApiErrorRow,
  apiErrorSummary,
  type SessionApiErrorRow,
  sessionApiErrors,
} from "./api_errors.ts";
import {
  costBetween,
  costBuckets,
  type ExpensiveCallRow,
  mostExpensiveCalls,
  outsideTranscriptCost,
  type PricedTotals,
  sessionCostlyCalls,
  type SessionModelCallRow,
  sessionPricedTotals,
} from "./cost.ts";
import { type ModelCallCount, modelLatency } from "./model_calls.ts";
import { settleTelemetryCounts } from "./settle.ts";
import { storeTelemetryBatch, type TelemetryWriteCounts } from "./telemetry_batch.ts";
import {
  recentToolFailures,
  type SessionToolCallRow,
  sessionToolCalls,
  toolDurations,
  toolDurationsBefore,
  type ToolFailureRow,
  toolStats,
  type ToolStatsRow,
} from "./tool_calls.ts";
import { telemetryToolTexts } from "./tool_texts.ts";
import {
  type ConversationFinishReason,
  conversationFinishReasons,
  type ConversationRow,
  conversationTurns,
  type FinishReasonCount,
  finishReasons,
  type QuestionCostSpread,
  questionCostSpread,
  topConversations,
  type TraceTotals,
  traceTotals,
  type TurnRow,
} from "./traces.ts";
import type { PercentileRow, TelemetryWindow } from "./window.ts";

/**
 * The telemetry store: OTLP exports in, and the latency, tool, error, cost
 * and trace figures out, with what the telemetry anomaly rules and the
 * security scan read. A call seen in a transcript and in telemetry counts
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

  // Traces ------------------------------------------------------------------------------------

  /** Conversations, questions, calls and cost of a window. */
  traceTotals(window: TelemetryWindow): Answer<TraceTotals, M>;
  /** The spread of cost per question. */
  questionCostSpread(window: TelemetryWindow): Answer<QuestionCostSpread, M>;
  /** Calls per finish reason. */
  finishReasons(window: TelemetryWindow): Answer<FinishReasonCount[], M>;
  /** The most expensive conversations (then the latest). */
  topConversations(window: TelemetryWindow, limit: number): Answer<ConversationRow[], M>;
  /** A conversation's turns, oldest first (the latest `limit`). */
  conversationTurns(
    window: TelemetryWindow,
    sessionId: string,
    limit: number,
  ): Answer<TurnRow[], M>;
  /** Calls per finish reason of each of some conversations. */
  conversationFinishReasons(
    window: TelemetryWindow,
    sessionIds: readonly string[],
  ): Answer<ConversationFinishReason[], M>;

  // What the telemetry anomaly rules read of one session --------------------------------------

  /** The session's API errors since a time, oldest first. */
  sessionApiErrors(sessionId: string, since: number): Answer<SessionApiErrorRow[], M>;
  /** The session's priced calls and their cost. */
  sessionPricedTotals(sessionId: string): Answer<PricedTotals, M>;
  /** The session's recent calls far above the average of its other priced calls. */
  sessionCostlyCalls(
    sessionId: string,
    since: number,
    totals: PricedTotals,
    minUsd: number,
    factor: number,
  ): Answer<SessionModelCallRow[], M>;
  /** The latest timed calls of each tool of the session since a time, oldest first. */
  sessionToolCalls(
    sessionId: string,
    since: number,
    perTool: number,
  ): Answer<SessionToolCallRow[], M>;
  /** An agent's durations of one tool before a time, the latest first. */
  toolDurationsBefore(
    agent: string,
    toolName: string,
    before: number,
    limit: number,
  ): Answer<number[], M>;

  // Security ----------------------------------------------------------------------------------

  /** Tool records of a window carrying a call's arguments or its result, newest first. */
  telemetryToolTexts(
    window: ToolTextWindow,
    what: "arguments" | "results",
    limit: number,
  ): Answer<StoredToolTexts, M>;
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
  traceTotals,
  questionCostSpread,
  finishReasons,
  topConversations,
  conversationTurns,
  conversationFinishReasons,
  sessionApiErrors,
  sessionPricedTotals,
  sessionCostlyCalls,
  sessionToolCalls,
  toolDurationsBefore,
  telemetryToolTexts,
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
