/**
 * Model calls as conversations and questions, for the traces view: calls
 * grouped into conversations (a session) and questions (what one user turn
 * set off: Claude Code's prompt id, else the trace, else the call alone),
 * with each call's context size — uncached input plus cache reads and
 * writes, everything the model was sent — and its cost: Vantage's price of
 * the usage row that counts it, else the cost the agent reported, else none
 * (unpriced, never $0).
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import {
  type TelemetryWindow,
  windowRow,
  windowRows,
  type WindowSql,
  type WindowStatement,
} from "./window.ts";

/**
 * The window's model calls with their question, context and cost, as a CTE named `c`; the
 * window's agent filter applies to the calls.
 */
function callsCte(w: WindowSql): string {
  return `c AS (
    SELECT t.session_id, t.agent, t.ts, t.model, t.finish_reason,
      coalesce(t.prompt_id, t.trace_id, t.call_key) AS question,
      CASE WHEN t.input_tokens IS NULL THEN NULL
        ELSE t.input_tokens + coalesce(t.cache_read_tokens, 0) + coalesce(t.cache_write_tokens, 0)
      END AS context,
      coalesce(t.output_tokens, 0) AS output, coalesce(t.outside_transcript, 0) AS side,
      CASE WHEN u.priced = 1 THEN u.cost_usd ELSE t.cost_usd END AS cost,
      CASE WHEN coalesce(t.input_tokens, 0) + coalesce(t.output_tokens, 0) > 0
        AND (u.priced IS DISTINCT FROM 1 AND t.cost_usd IS NULL) THEN 1 ELSE 0 END AS unpriced
    FROM (SELECT * FROM telemetry_model_calls WHERE ${w.range} ${w.agents}) t
    LEFT JOIN usage u ON u.usage_key = t.usage_key
  )`;
}

/** The window's totals. */
export interface TraceTotals {
  /** Conversations (sessions) with a model call. */
  conversations: number;
  /** Questions. */
  questions: number;
  /** Model calls. */
  calls: number;
  /** Their cost, USD. */
  cost_usd: number;
  /** Calls with tokens and no price. */
  unpriced_calls: number;
}

/** Reads {@linkcode TraceTotals} (on either backend). */
export const TRACE_TOTALS = new RowReader<TraceTotals>("trace totals", {
  conversations: "number",
  questions: "number",
  calls: "number",
  cost_usd: "number",
  unpriced_calls: "number",
});

/** The statement of {@linkcode traceTotals} (either backend). */
export const traceTotalsSql: WindowStatement = (w) =>
  `WITH ${callsCte(w)}
  SELECT count(DISTINCT session_id) AS conversations,
    count(DISTINCT ${w.p.pair("session_id", "question")}) AS questions, count(*) AS calls,
    coalesce(sum(cost), 0) AS cost_usd, coalesce(sum(unpriced), 0) AS unpriced_calls
  FROM c`;

/** Totals of the window. */
export function traceTotals(db: DatabaseSync, window: TelemetryWindow): TraceTotals {
  return windowRow(db, TRACE_TOTALS, window, traceTotalsSql);
}

/** Cost per question: the spread over every question of the window with a priced call. */
export interface QuestionCostSpread {
  /** Questions with a cost. */
  questions: number;
  /** Mean, USD. */
  avg: number | null;
  /** Median (nearest rank), USD. */
  p50: number | null;
  /** 95th percentile (nearest rank), USD. */
  p95: number | null;
  /** Most, USD. */
  max: number | null;
}

/** Reads a {@linkcode QuestionCostSpread} (on either backend). */
export const QUESTION_COST_SPREAD = new RowReader<QuestionCostSpread>("question cost spread", {
  questions: "number",
  avg: "number?",
  p50: "number?",
  p95: "number?",
  max: "number?",
});

/** The statement of {@linkcode questionCostSpread} (either backend). */
export const questionCostSpreadSql: WindowStatement = (w) =>
  `WITH ${callsCte(w)},
  q AS (
    SELECT sum(cost) AS cost FROM c GROUP BY session_id, question HAVING count(cost) > 0
  ), r AS (
    SELECT cost, row_number() OVER (ORDER BY cost) AS rn, count(*) OVER () AS n FROM q
  )
  SELECT count(*) AS questions, avg(cost) AS avg,
    max(CASE WHEN rn = (50 * n + 99) / 100 THEN cost END) AS p50,
    max(CASE WHEN rn = (95 * n + 99) / 100 THEN cost END) AS p95, max(cost) AS max
  FROM r`;

/** The spread of cost per question. */
export function questionCostSpread(db: DatabaseSync, window: TelemetryWindow): QuestionCostSpread {
  return windowRow(db, QUESTION_COST_SPREAD, window, questionCostSpreadSql);
}

/** Calls that stopped for one reason. */
export interface FinishReasonCount {
  /** The reason (`unknown` when none was reported). */
  reason: string;
  /** Calls. */
  calls: number;
}

/** Reads {@linkcode FinishReasonCount} rows (on either backend). */
export const FINISH_REASON = new RowReader<FinishReasonCount>("finish reason", {
  reason: "text",
  calls: "number",
});

/** The statement of {@linkcode finishReasons} (either backend). */
export const finishReasonsSql: WindowStatement = (w) =>
  `WITH ${callsCte(w)}
  SELECT * FROM (
    SELECT coalesce(finish_reason, 'unknown') AS reason, count(*) AS calls FROM c GROUP BY 1
  ) f ORDER BY calls DESC, ${w.p.bytewise("reason")}`;

/** Calls per finish reason (`unknown` when none was reported). */
export function finishReasons(db: DatabaseSync, window: TelemetryWindow): FinishReasonCount[] {
  return windowRows(db, FINISH_REASON, window, finishReasonsSql);
}

/** One conversation's figures. */
export interface ConversationRow {
  /** Session. */
  session_id: string;
  /** Agent. */
  agent: string;
  /** The model of most of its calls. */
  model: string | null;
  /** First call, ms. */
  first_ts: number;
  /** Last call, ms. */
  last_ts: number;
  /** Model calls. */
  calls: number;
  /** Questions. */
  questions: number;
  /** Cost, USD. */
  cost_usd: number;
  /** Calls with tokens and no price. */
  unpriced_calls: number;
  /** Calls with a cost. */
  priced_calls: number;
  /** Output tokens. */
  output_tokens: number;
  /** Context tokens summed over its calls: what it sent in all. */
  context_tokens: number;
  /** Turns: calls that reported their input, side requests aside. */
  turns: number;
}

/** Reads {@linkcode ConversationRow} rows (on either backend). */
export const CONVERSATION = new RowReader<ConversationRow>("conversation", {
  session_id: "text",
  agent: "text",
  model: "text?",
  first_ts: "number",
  last_ts: "number",
  calls: "number",
  questions: "number",
  cost_usd: "number",
  unpriced_calls: "number",
  priced_calls: "number",
  output_tokens: "number",
  context_tokens: "number",
  turns: "number",
});

/** The statement of {@linkcode topConversations} (either backend). */
export function topConversationsSql(limit: number): WindowStatement {
  return (w) =>
    `WITH ${callsCte(w)}
    SELECT session_id, max(agent) AS agent,
      (SELECT m.model FROM c m WHERE m.session_id = c.session_id AND m.model IS NOT NULL
        GROUP BY m.model ORDER BY count(*) DESC, ${w.p.bytewise("m.model")} LIMIT 1) AS model,
      min(ts) AS first_ts, max(ts) AS last_ts, count(*) AS calls,
      count(DISTINCT question) AS questions, coalesce(sum(cost), 0) AS cost_usd,
      coalesce(sum(unpriced), 0) AS unpriced_calls, count(cost) AS priced_calls,
      sum(output) AS output_tokens,
      coalesce(sum(context), 0) AS context_tokens,
      sum(CASE WHEN context IS NOT NULL AND side = 0 THEN 1 ELSE 0 END) AS turns
    FROM c GROUP BY session_id
    ORDER BY cost_usd DESC, last_ts DESC LIMIT ${w.p.add(limit)}`;
}

/** The `limit` most expensive conversations of the window (then the latest). */
export function topConversations(
  db: DatabaseSync,
  window: TelemetryWindow,
  limit: number,
): ConversationRow[] {
  return windowRows(db, CONVERSATION, window, topConversationsSql(limit));
}

/**
 * One turn of a conversation: a model call that reported its input (side requests such as
 * Claude Code's title and summary calls are not turns).
 */
export interface TurnRow {
  /** Time, ms. */
  ts: number;
  /** Context tokens sent. */
  context: number;
  /** Output tokens. */
  output: number;
  /** Cost, USD (null: unpriced). */
  cost: number | null;
  /** Finish reason. */
  finish_reason: string | null;
  /** Question. */
  question: string;
}

/** Reads {@linkcode TurnRow} rows (on either backend). */
export const TURN = new RowReader<TurnRow>("turn", {
  ts: "number",
  context: "number",
  output: "number",
  cost: "number?",
  finish_reason: "text?",
  question: "text",
});

/** The statement of {@linkcode conversationTurns}, the latest first (either backend). */
export function conversationTurnsSql(sessionId: string, limit: number): WindowStatement {
  return (w) =>
    `WITH ${callsCte(w)}
    SELECT ${TURN.columns} FROM c
    WHERE session_id = ${w.p.add(sessionId)} AND context IS NOT NULL AND side = 0
    ORDER BY ts DESC LIMIT ${w.p.add(limit)}`;
}

/** A conversation's turns in the window, oldest first (at most `limit`: the latest). */
export function conversationTurns(
  db: DatabaseSync,
  window: TelemetryWindow,
  sessionId: string,
  limit: number,
): TurnRow[] {
  return windowRows(db, TURN, window, conversationTurnsSql(sessionId, limit)).reverse();
}

/** Calls that stopped for one reason in one conversation. */
export interface ConversationFinishReason extends FinishReasonCount {
  /** Session. */
  session_id: string;
}

/** Reads {@linkcode ConversationFinishReason} rows (on either backend). */
export const CONVERSATION_FINISH_REASON = new RowReader<ConversationFinishReason>(
  "conversation finish reason",
  { session_id: "text", reason: "text", calls: "number" },
);

/** The statement of {@linkcode conversationFinishReasons} (either backend). */
export function conversationFinishReasonsSql(sessionIds: readonly string[]): WindowStatement {
  return (w) =>
    `WITH ${callsCte(w)}
    SELECT * FROM (
      SELECT session_id, coalesce(finish_reason, 'unknown') AS reason, count(*) AS calls FROM c
      WHERE ${w.p.oneOf("session_id", sessionIds)}
      GROUP BY 1, 2
    ) f ORDER BY ${w.p.bytewise("session_id")}, calls DESC, ${w.p.bytewise("reason")}`;
}

/** Calls per finish reason of each of `sessionIds` in the window. */
export function conversationFinishReasons(
  db: DatabaseSync,
  window: TelemetryWindow,
  sessionIds: readonly string[],
): ConversationFinishReason[] {
  if (sessionIds.length === 0) return [];
  return windowRows(
    db,
    CONVERSATION_FINISH_REASON,
    window,
    conversationFinishReasonsSql(sessionIds),
  );
}
