/**
 * Model calls as conversations and questions on PostgreSQL, for the traces view: SQLite's
 * statements and readers (../../telemetry/traces.ts, which says what a question, a context and
 * a call's cost are), built with PostgreSQL's parameters and run here.
 *
 * @module
 */
import {
  CONVERSATION,
  CONVERSATION_FINISH_REASON,
  type ConversationFinishReason,
  conversationFinishReasonsSql,
  type ConversationRow,
  conversationTurnsSql,
  FINISH_REASON,
  type FinishReasonCount,
  finishReasonsSql,
  QUESTION_COST_SPREAD,
  type QuestionCostSpread,
  questionCostSpreadSql,
  topConversationsSql,
  TRACE_TOTALS,
  type TraceTotals,
  traceTotalsSql,
  TURN,
  type TurnRow,
} from "../../telemetry/traces.ts";
import type { TelemetryWindow } from "../../telemetry/window.ts";
import type { PgQueryable } from "../connection.ts";
import { windowRow, windowRows } from "./window.ts";

/** Totals of the window. */
export function traceTotals(q: PgQueryable, window: TelemetryWindow): Promise<TraceTotals> {
  return windowRow(q, TRACE_TOTALS, window, traceTotalsSql);
}

/** The spread of cost per question. */
export function questionCostSpread(
  q: PgQueryable,
  window: TelemetryWindow,
): Promise<QuestionCostSpread> {
  return windowRow(q, QUESTION_COST_SPREAD, window, questionCostSpreadSql);
}

/** Calls per finish reason (`unknown` when none was reported). */
export function finishReasons(
  q: PgQueryable,
  window: TelemetryWindow,
): Promise<FinishReasonCount[]> {
  return windowRows(q, FINISH_REASON, window, finishReasonsSql);
}

/** The `limit` most expensive conversations of the window (then the latest). */
export function topConversations(
  q: PgQueryable,
  window: TelemetryWindow,
  limit: number,
): Promise<ConversationRow[]> {
  return windowRows(q, CONVERSATION, window, topConversationsSql(limit));
}

/** A conversation's turns in the window, oldest first (at most `limit`: the latest). */
export async function conversationTurns(
  q: PgQueryable,
  window: TelemetryWindow,
  sessionId: string,
  limit: number,
): Promise<TurnRow[]> {
  return (await windowRows(q, TURN, window, conversationTurnsSql(sessionId, limit))).reverse();
}

/** Calls per finish reason of each of `sessionIds` in the window. */
export function conversationFinishReasons(
  q: PgQueryable,
  window: TelemetryWindow,
  sessionIds: readonly string[],
): Promise<ConversationFinishReason[]> {
  if (sessionIds.length === 0) return Promise.resolve([]);
  const sql = conversationFinishReasonsSql(sessionIds);
  return windowRows(q, CONVERSATION_FINISH_REASON, window, sql);
}
