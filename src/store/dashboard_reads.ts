/**
 * Reads behind the dashboard's operations: filtered session lists, usage
 * per time bucket, the overview's counters, one session's timeline and the
 * anomaly feed, plus the cheap change marks the server polls to announce new
 * rows written by other processes. Every query is bounded by a time window,
 * an indexed scope or a LIMIT, so a store of a million messages answers fast.
 *
 * @module
 */
import type { SessionRow } from "./agent_reads.ts";
import type { DatabaseSync } from "./database.ts";
import type { AnomalyRow } from "./perception_store.ts";

/** Filters of {@linkcode listSessionsFiltered}. */
export interface SessionListFilter {
  /** Only these agents (all when absent). */
  agents?: readonly string[];
  /** Absolute project path: the project equals it or lies below it. */
  projectPrefix?: string;
  /** Bare project name matched against the last path segment. */
  projectName?: string;
  /** Active at or after, ms. */
  since?: number;
  /** Active before, ms. */
  until?: number;
  /** Cost at least this many USD. */
  minCost?: number;
  /** Only sessions with (true) or without (false) unresolved anomalies. */
  hasAnomalies?: boolean;
  /** Rows to return. */
  limit: number;
  /** Rows to skip (newest first). */
  offset: number;
}

/** A session row with its count of unresolved anomalies. */
export interface SessionListRow extends SessionRow {
  /** Unresolved anomalies. */
  anomaly_count: number;
  /** Transcript tool failures, as far as the writer counted them. */
  tool_failures: number;
}

const SESSION_COLUMNS =
  `s.session_id, s.agent, s.cwd, s.project, s.started_at, s.last_activity_at, s.model,
  s.git_branch, s.title, s.parent_session_id, s.is_subagent, s.subagent_type, s.transcript_path, s.has_hooks, s.event_count,
  s.message_count, s.tool_calls, s.tool_failures, s.input_tokens, s.output_tokens,
  s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens, s.cost_usd, s.unpriced_calls,
  s.context_tokens, s.context_window`;

const OPEN_ANOMALIES =
  "(SELECT count(*) FROM anomalies a WHERE a.session_id = s.session_id AND a.resolved_at IS NULL)";

/**
 * Sessions matching the filter, most recently active first (`limit` + 1 rows tell of more).
 * Only top-level sessions: a sub-agent run is listed under its parent (whose counts include
 * it), so the filters and the paging count parents.
 */
export function listSessionsFiltered(
  db: DatabaseSync,
  filter: SessionListFilter,
): SessionListRow[] {
  const where: string[] = ["s.is_subagent = 0"];
  const params: Array<string | number> = [];
  if (filter.projectPrefix !== undefined) {
    const prefix = filter.projectPrefix.replace(/[\\/]+$/, "");
    where.push(
      "(s.project = ? OR (s.project >= ? AND s.project < ?) OR (s.project >= ? AND s.project < ?))",
    );
    params.push(prefix, prefix + "/", prefix + "/\uffff", prefix + "\\", prefix + "\\\uffff");
  }
  if (filter.projectName !== undefined) {
    where.push("(s.project = ? OR s.project LIKE ? ESCAPE '!' OR s.project LIKE ? ESCAPE '!')");
    const escaped = filter.projectName.replace(/[!%_]/g, "!$&");
    params.push(filter.projectName, `%/${escaped}`, `%\\${escaped}`);
  }
  if (filter.agents !== undefined) {
    where.push(`s.agent IN (${filter.agents.map(() => "?").join(", ") || "NULL"})`);
    params.push(...filter.agents);
  }
  if (filter.since !== undefined) {
    where.push("s.last_activity_at >= ?");
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    where.push("s.last_activity_at < ?");
    params.push(filter.until);
  }
  if (filter.minCost !== undefined) {
    where.push("s.cost_usd >= ?");
    params.push(filter.minCost);
  }
  if (filter.hasAnomalies !== undefined) {
    where.push(
      `${
        filter.hasAnomalies ? "" : "NOT "
      }EXISTS (SELECT 1 FROM anomalies a WHERE a.session_id = s.session_id AND a.resolved_at IS NULL)`,
    );
  }
  params.push(filter.limit + 1, filter.offset);
  return db.prepare(
    `SELECT ${SESSION_COLUMNS}, ${OPEN_ANOMALIES} AS anomaly_count FROM sessions s
     WHERE ${where.join(" AND ")}
     ORDER BY s.last_activity_at DESC LIMIT ? OFFSET ?`,
  ).all(...params) as unknown as SessionListRow[];
}

/** Tokens and cost of some model calls. */
export interface TokenCost {
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes. */
  cache_write_tokens: number;
  /** Cost of the priced calls, USD. */
  cost_usd: number;
  /** Calls no price fits (their cost is not in `cost_usd`). */
  unpriced_calls: number;
}

/** Token use and cost of one series in one time bucket. */
export interface UsageBucketRow extends TokenCost {
  /** Bucket start, ms. */
  bucket: number;
  /** The agent or model the row sums. */
  series_key: string;
  /** Model calls. */
  calls: number;
}

/** Usage summed per time bucket and per agent or model, within `[since, until)`. */
export function usageBuckets(
  db: DatabaseSync,
  options: {
    since: number;
    until: number;
    bucketMs: number;
    groupBy: "agent" | "model";
    agents?: readonly string[];
  },
): UsageBucketRow[] {
  const key = options.groupBy === "agent" ? "agent" : "coalesce(model, 'unknown')";
  const params: Array<string | number> = [
    options.bucketMs,
    options.bucketMs,
    options.since,
    options.until,
  ];
  let agentFilter = "";
  if (options.agents !== undefined) {
    agentFilter = `AND agent IN (${options.agents.map(() => "?").join(", ") || "NULL"})`;
    params.push(...options.agents);
  }
  return db.prepare(
    `SELECT (ts / CAST(? AS INTEGER)) * CAST(? AS INTEGER) AS bucket, ${key} AS series_key,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(cost_usd) AS cost_usd, sum(calls) AS calls, sum((1 - priced) * calls) AS unpriced_calls
     FROM usage WHERE ts >= ? AND ts < ? ${agentFilter}
     GROUP BY bucket, series_key ORDER BY bucket`,
  ).all(...params) as unknown as UsageBucketRow[];
}

/** Sessions active since a time, per agent (parents only: a sub-agent is part of its parent). */
export function activeSessionsByAgent(
  db: DatabaseSync,
  since: number,
): Array<{ agent: string; sessions: number; last_activity_at: number }> {
  return db.prepare(
    `SELECT agent, count(*) AS sessions, max(last_activity_at) AS last_activity_at
     FROM sessions WHERE last_activity_at >= ? AND is_subagent = 0
     GROUP BY agent ORDER BY sessions DESC`,
  ).all(since) as unknown as Array<{ agent: string; sessions: number; last_activity_at: number }>;
}

/**
 * Sessions that started at or after `since` (found among those active since then); parents
 * only.
 */
export function sessionsStartedSince(db: DatabaseSync, since: number): number {
  const row = db.prepare(
    `SELECT count(*) AS n FROM sessions
     WHERE last_activity_at >= ? AND started_at >= ? AND is_subagent = 0`,
  ).get(since, since) as { n: number };
  return row.n;
}

/** Token and cost totals of the model calls in `[since, until)`. */
export function usageTotals(
  db: DatabaseSync,
  since: number,
  until: number,
): TokenCost & { calls: number } {
  return db.prepare(
    `SELECT coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
       coalesce(sum(cache_read_tokens), 0) AS cache_read_tokens,
       coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
       coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
       coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
     FROM usage WHERE ts >= ? AND ts < ?`,
  ).get(since, until) as never;
}

/** Models of the unpriced calls in `[since, until)`, with how many calls each (most first). */
export function unpricedModels(
  db: DatabaseSync,
  since: number,
  until: number,
  limit: number,
): Array<{ model: string; calls: number }> {
  return db.prepare(
    `SELECT coalesce(model, 'unknown') AS model, sum(calls) AS calls FROM usage
     WHERE ts >= ? AND ts < ? AND priced = 0 GROUP BY model ORDER BY calls DESC LIMIT ?`,
  ).all(since, until, limit) as never;
}

/** Sessions examined at most when counting tool calls over a window. */
const TOOL_COUNT_SESSIONS = 1000;

/**
 * Tool calls and failures in `[since, until)`, across the most recently
 * active sessions: from the transcript where a session has one, else from
 * its hook events, so a session reported both ways is counted once. A
 * sub-agent's transcript counts toward its parent (whose hook events include
 * the sub-agent's calls); `sessions` counts parents.
 */
export function toolCallTotals(
  db: DatabaseSync,
  since: number,
  until: number,
): { calls: number; failures: number; sessions: number } {
  const row = db.prepare(
    `WITH s AS (
       SELECT session_id FROM sessions WHERE last_activity_at >= ? AND is_subagent = 0
       ORDER BY last_activity_at DESC LIMIT ${TOOL_COUNT_SESSIONS}
     ),
     family AS (
       SELECT session_id, session_id AS root FROM s
       UNION ALL
       SELECT c.session_id, c.parent_session_id FROM sessions c
       WHERE c.is_subagent = 1 AND c.parent_session_id IN (SELECT session_id FROM s)
     ),
     m AS (
       SELECT f.root AS session_id, sum(message_type = 'tool_use') AS calls,
         sum(message_type = 'tool_result' AND is_error = 1) AS failures
       FROM messages JOIN family f USING (session_id) WHERE ts >= ? AND ts < ?
         AND message_type IN ('tool_use', 'tool_result')
       GROUP BY f.root
     ),
     e AS (
       SELECT session_id, count(*) AS calls,
         sum(event_type = 'PostToolUseFailure' OR success = 0) AS failures
       FROM events WHERE session_id IN (SELECT session_id FROM s) AND ts >= ? AND ts < ?
         AND event_type IN ('PostToolUse', 'PostToolUseFailure')
       GROUP BY session_id
     )
     SELECT
       coalesce(sum(CASE WHEN coalesce(m.calls, 0) > 0 THEN m.calls ELSE coalesce(e.calls, 0) END), 0) AS calls,
       coalesce(sum(CASE WHEN coalesce(m.calls, 0) > 0 THEN m.failures ELSE coalesce(e.failures, 0) END), 0) AS failures,
       count(*) AS sessions
     FROM s LEFT JOIN m USING (session_id) LEFT JOIN e USING (session_id)`,
  ).get(since, since, until, since, until) as { calls: number; failures: number; sessions: number };
  return row;
}

/** Unresolved anomalies emitted since a time, per severity. */
export function openAnomalyCounts(
  db: DatabaseSync,
  since: number,
): Array<{ severity: string; count: number }> {
  return db.prepare(
    `SELECT severity, count(*) AS count FROM anomalies
     WHERE last_emitted_at >= ? AND resolved_at IS NULL GROUP BY severity`,
  ).all(since) as unknown as Array<{ severity: string; count: number }>;
}

/** The latest build run of each project and tag among the most recent runs. */
export function latestBuildPerProject(
  db: DatabaseSync,
  recentRuns: number,
): Array<{
  project: string;
  tag: string;
  command: string;
  started_at: number;
  duration_ms: number;
  exit_code: number;
  errors: string;
}> {
  return db.prepare(
    `SELECT project, tag, command, started_at, duration_ms, exit_code, errors FROM (
       SELECT coalesce(project, cwd, '') AS project, tag, command, started_at, duration_ms,
         exit_code, errors,
         row_number() OVER (PARTITION BY coalesce(project, cwd, ''), tag ORDER BY started_at DESC, id DESC) AS rank
       FROM (SELECT * FROM build_runs ORDER BY started_at DESC, id DESC LIMIT ?)
     ) WHERE rank = 1 ORDER BY started_at DESC`,
  ).all(recentRuns) as never;
}

/** One message as the timeline shows it (text cut short). */
export interface TimelineMessageRow {
  /** Row id. */
  id: number;
  /** Time, ms. */
  ts: number;
  /** Role. */
  role: string;
  /** Message type. */
  message_type: string;
  /** The first characters of the text. */
  text: string;
  /** Tool name. */
  tool_name: string | null;
  /** Pairs a tool_use with its tool_result. */
  tool_use_id: string | null;
  /** 1 when the tool result failed. */
  is_error: number | null;
  /** File the tool touched. */
  file_path: string | null;
  /** The command's first words. */
  command_prefix: string | null;
  /** The side chain (sub-agent) the message belongs to, inside a main transcript. */
  subagent_id: string | null;
}

/**
 * A session's prompts, tool calls and results, compactions and API errors in time order (at
 * most `limit`).
 */
export function timelineMessages(
  db: DatabaseSync,
  sessionId: string,
  limit: number,
  textChars: number,
): TimelineMessageRow[] {
  return db.prepare(
    `SELECT id, ts, role, message_type, substr(text, 1, ?) AS text, tool_name, tool_use_id,
       is_error, file_path, command_prefix, subagent_id
     FROM messages WHERE session_id = ?
       AND message_type IN ('user', 'tool_use', 'tool_result', 'compaction', 'api_error')
     ORDER BY ts, id LIMIT ?`,
  ).all(textChars, sessionId, limit) as unknown as TimelineMessageRow[];
}

/** One hook event as the timeline shows it. */
export interface TimelineEventRow {
  /** Time, ms. */
  ts: number;
  /** Canonical event name. */
  event_type: string;
  /** Tool name. */
  tool_name: string | null;
  /** Pairs Pre/Post events. */
  tool_use_id: string | null;
  /** File touched. */
  file_path: string | null;
  /** The command's first words. */
  command_prefix: string | null;
  /** 1, 0 or null. */
  success: number | null;
  /** Error summary. */
  error: string | null;
  /** Reported duration, ms. */
  duration_ms: number | null;
  /** Prompt text, cut short. */
  prompt: string | null;
}

/** A session's hook events in time order (at most `limit`). */
export function timelineEvents(
  db: DatabaseSync,
  sessionId: string,
  limit: number,
  textChars: number,
): TimelineEventRow[] {
  return db.prepare(
    `SELECT ts, event_type, tool_name, tool_use_id, file_path, command_prefix, success,
       substr(error, 1, ?) AS error, duration_ms, substr(prompt, 1, ?) AS prompt
     FROM events WHERE session_id = ? ORDER BY ts, id LIMIT ?`,
  ).all(textChars, textChars, sessionId, limit) as unknown as TimelineEventRow[];
}

/** One model call's usage in a session. */
export interface SessionUsageRow extends Omit<TokenCost, "unpriced_calls"> {
  /** Time, ms. */
  ts: number;
  /** Model. */
  model: string | null;
  /** 0 when no price fits the call's model. */
  priced: number;
}

/** A session's model calls in time order (at most `limit`). */
export function sessionUsage(
  db: DatabaseSync,
  sessionId: string,
  limit: number,
): SessionUsageRow[] {
  return db.prepare(
    `SELECT ts, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
       priced
     FROM usage WHERE session_id = ? ORDER BY ts LIMIT ?`,
  ).all(sessionId, limit) as unknown as SessionUsageRow[];
}

/** Build runs of a project within a time window, oldest first. */
export function buildRunsBetween(
  db: DatabaseSync,
  project: string | null,
  since: number,
  until: number,
  limit: number,
): Array<
  {
    tag: string;
    command: string;
    started_at: number;
    duration_ms: number;
    exit_code: number;
    errors: string;
  }
> {
  const scope = project === null ? "" : "AND (project = ? OR cwd = ? OR project IS NULL)";
  const params: Array<string | number> = [since, until];
  if (project !== null) params.push(project, project);
  params.push(limit);
  return db.prepare(
    `SELECT tag, command, started_at, duration_ms, exit_code, errors FROM build_runs
     WHERE started_at >= ? AND started_at <= ? ${scope} ORDER BY started_at LIMIT ?`,
  ).all(...params) as never;
}

/** Files a session changed as the file watcher attributed them, oldest first. */
export function sessionFileChanges(
  db: DatabaseSync,
  project: string,
  sessionId: string,
  since: number,
  limit: number,
): Array<{ path: string; kind: string; ts: number }> {
  return db.prepare(
    `SELECT path, kind, ts FROM file_changes WHERE project = ? AND ts >= ? AND session_id = ?
     ORDER BY ts LIMIT ?`,
  ).all(project, since, sessionId, limit) as never;
}

/** A stored anomaly with the session it belongs to. */
export interface AnomalyFeedRow extends Omit<AnomalyRow, "fingerprint"> {
  /** The session's agent. */
  agent: string | null;
  /** The session's title. */
  title: string | null;
}

/** Filters of {@linkcode anomalyFeed}. */
export interface AnomalyFeedFilter {
  /** Emitted at or after, ms. */
  since: number;
  /** Only this kind. */
  kind?: string;
  /** Only this project. */
  project?: string;
  /** Only this severity. */
  severity?: string;
  /** Only this session. */
  sessionId?: string;
  /** Include resolved anomalies. */
  includeResolved: boolean;
  /** Rows to return. */
  limit: number;
}

function anomalyWhere(
  filter: AnomalyFeedFilter,
  skip: "kind" | "project" | "none",
): { sql: string; params: Array<string | number> } {
  const where = ["a.last_emitted_at >= ?"];
  const params: Array<string | number> = [filter.since];
  if (filter.kind !== undefined && skip !== "kind") {
    where.push("a.kind = ?");
    params.push(filter.kind);
  }
  if (filter.project !== undefined && skip !== "project") {
    where.push("coalesce(a.project, '') = ?");
    params.push(filter.project);
  }
  if (filter.severity !== undefined) {
    where.push("a.severity = ?");
    params.push(filter.severity);
  }
  if (filter.sessionId !== undefined) {
    where.push("a.session_id = ?");
    params.push(filter.sessionId);
  }
  if (!filter.includeResolved) where.push("a.resolved_at IS NULL");
  return { sql: where.join(" AND "), params };
}

/** Anomalies matching the filter, most recently emitted first. */
export function anomalyFeed(db: DatabaseSync, filter: AnomalyFeedFilter): AnomalyFeedRow[] {
  const { sql, params } = anomalyWhere(filter, "none");
  return db.prepare(
    `SELECT a.id, a.session_id, a.project, a.kind, a.severity, a.channel, a.evidence, a.suggestion,
       a.related_files, a.first_emitted_at, a.last_emitted_at, a.emit_count, a.resolved_at,
       s.agent, s.title
     FROM anomalies a LEFT JOIN sessions s ON s.session_id = a.session_id
     WHERE ${sql} ORDER BY a.last_emitted_at DESC, a.id DESC LIMIT ?`,
  ).all(...params, filter.limit) as unknown as AnomalyFeedRow[];
}

/**
 * Counts per kind and per project of the anomalies the filter selects; each
 * facet ignores its own filter so the other values stay visible as choices.
 */
export function anomalyFacets(
  db: DatabaseSync,
  filter: AnomalyFeedFilter,
): {
  kinds: Array<{ value: string; count: number }>;
  projects: Array<{ value: string; count: number }>;
} {
  const byKind = anomalyWhere(filter, "kind");
  const byProject = anomalyWhere(filter, "project");
  return {
    kinds: db.prepare(
      `SELECT a.kind AS value, count(*) AS count FROM anomalies a WHERE ${byKind.sql}
       GROUP BY a.kind ORDER BY count DESC LIMIT 50`,
    ).all(...byKind.params) as never,
    projects: db.prepare(
      `SELECT coalesce(a.project, '') AS value, count(*) AS count FROM anomalies a
       WHERE ${byProject.sql} GROUP BY value ORDER BY count DESC LIMIT 50`,
    ).all(...byProject.params) as never,
  };
}

export {
  anomaliesEmittedAfter,
  buildRunsAfter,
  type ChangeMarks,
  changeMarks,
  sessionsAfter,
} from "./change_marks.ts";
