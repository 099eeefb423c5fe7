/**
 * Reads of agent activity for the `agent` operations: sessions, their
 * events, messages and usage. Every query is bounded (LIMIT, time window,
 * scope), so a store holding millions of messages answers in milliseconds.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";
import { statements } from "./statement_cache.ts";

/** One stored session. */
export interface SessionRow {
  /** Session id. */
  session_id: string;
  /** Canonical agent name. */
  agent: string;
  /** Working directory. */
  cwd: string | null;
  /** Project root. */
  project: string | null;
  /** Start, ms; 0 when no record of the session had a time. */
  started_at: number;
  /** Last activity, ms. */
  last_activity_at: number;
  /** Model id. */
  model: string | null;
  /** Git branch. */
  git_branch: string | null;
  /** Title. */
  title: string | null;
  /** Parent session. */
  parent_session_id: string | null;
  /** 1 for a sub-agent run of the parent (its counts are also in the parent's). */
  is_subagent: number;
  /** The sub-agent's type, when known. */
  subagent_type: string | null;
  /** Transcript path. */
  transcript_path: string | null;
  /** 1 when hooks reported this session. */
  has_hooks: number;
  /** Hook events stored. */
  event_count: number;
  /** Transcript messages stored. */
  message_count: number;
  /** Tool calls seen in the transcript. */
  tool_calls: number;
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes. */
  cache_write_tokens: number;
  /** Reasoning tokens. */
  reasoning_tokens: number;
  /** Cost of the priced calls, USD. */
  cost_usd: number;
  /** Model calls no price fits (not in `cost_usd`). */
  unpriced_calls: number;
  /** Tokens the model saw on its latest call. */
  context_tokens: number | null;
  /** Model context window, when reported. */
  context_window: number | null;
}

const SESSION_COLUMNS =
  `session_id, agent, cwd, project, started_at, last_activity_at, model, git_branch,
  title, parent_session_id, is_subagent, subagent_type, transcript_path, has_hooks, event_count, message_count, tool_calls,
  input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd,
  unpriced_calls, context_tokens, context_window`;

/** One session by exact id. */
export function getSession(db: DatabaseSync, sessionId: string): SessionRow | undefined {
  return db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE session_id = ?`).get(
    sessionId,
  ) as
    | SessionRow
    | undefined;
}

/**
 * Sessions whose id starts with `prefix`, newest first (at most `limit`). A sub-agent
 * (`<parent>/agent-<id>`) matches only when its parent does not: a prefix of the parent's id
 * names the parent.
 */
export function sessionsByPrefix(db: DatabaseSync, prefix: string, limit: number): SessionRow[] {
  // Range scan on the primary key instead of LIKE, which would treat _ and % as wildcards.
  return db.prepare(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE session_id >= ? AND session_id < ?
       AND NOT (is_subagent = 1 AND parent_session_id >= ? AND parent_session_id < ?)
     ORDER BY last_activity_at DESC LIMIT ?`,
  ).all(prefix, prefix + "\uffff", prefix, prefix + "\uffff", limit) as unknown as SessionRow[];
}

/**
 * The sub-agent sessions of some parents, oldest first within each parent, at most
 * `perParent` of each.
 */
export function subagentsOf(
  db: DatabaseSync,
  parentIds: readonly string[],
  perParent = 100,
): SessionRow[] {
  if (parentIds.length === 0) return [];
  return db.prepare(
    `SELECT ${SESSION_COLUMNS} FROM (
       SELECT *, row_number() OVER (PARTITION BY parent_session_id ORDER BY started_at, session_id) AS n
       FROM sessions
       WHERE is_subagent = 1 AND parent_session_id IN (SELECT value FROM json_each(?))
     ) WHERE n <= ? ORDER BY parent_session_id, started_at, session_id`,
  ).all(JSON.stringify(parentIds), perParent) as unknown as SessionRow[];
}

/** What all the sub-agents of one parent add up to. */
export interface SubagentTotals {
  /** Sub-agent sessions. */
  count: number;
  /** Their messages. */
  message_count: number;
  /** Their tool calls. */
  tool_calls: number;
  /** Their uncached input tokens. */
  input_tokens: number;
  /** Their output tokens. */
  output_tokens: number;
  /** Their cache reads. */
  cache_read_tokens: number;
  /** Their cache writes. */
  cache_write_tokens: number;
  /** Their reasoning tokens. */
  reasoning_tokens: number;
  /** Their cost, USD. */
  cost_usd: number;
  /** Their calls no price fits. */
  unpriced_calls: number;
}

/** The sums over every sub-agent of each of some parents (parents without any are absent). */
export function subagentTotals(
  db: DatabaseSync,
  parentIds: readonly string[],
): Map<string, SubagentTotals> {
  if (parentIds.length === 0) return new Map();
  const rows = db.prepare(
    `SELECT parent_session_id AS parent, count(*) AS count, sum(message_count) AS message_count,
       sum(tool_calls) AS tool_calls, sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens, sum(reasoning_tokens) AS reasoning_tokens,
       sum(cost_usd) AS cost_usd, sum(unpriced_calls) AS unpriced_calls
     FROM sessions
     WHERE is_subagent = 1 AND parent_session_id IN (SELECT value FROM json_each(?))
     GROUP BY parent_session_id`,
  ).all(JSON.stringify(parentIds)) as unknown as Array<SubagentTotals & { parent: string }>;
  return new Map(rows.map(({ parent, ...totals }) => [parent, totals]));
}

/** Which sessions a listing covers. */
export interface SessionScope {
  /** Absolute project path: the session's project equals it or lies below it. */
  projectPrefix?: string;
  /** Bare project name: matched against the last path segment, either separator. */
  projectName?: string;
  /** Only these agents (all when absent). */
  agents?: readonly string[];
  /** Only sessions active at or after this time, ms. */
  since?: number;
  /** Most sessions to return. */
  limit: number;
  /** Leave out sessions with no messages and no events. */
  nonEmpty?: boolean;
}

/**
 * Sessions in a scope, most recently active first. Sub-agent runs are not sessions of their
 * own here: they belong to their parent (see {@linkcode subagentsOf}).
 */
export function listSessions(db: DatabaseSync, scope: SessionScope): SessionRow[] {
  const where: string[] = ["is_subagent = 0"];
  const params: Array<string | number> = [];
  if (scope.projectPrefix !== undefined) {
    const prefix = scope.projectPrefix.replace(/[\\/]+$/, "");
    where.push("(project = ? OR (project >= ? AND project < ?) OR (project >= ? AND project < ?))");
    params.push(prefix, prefix + "/", prefix + "/\uffff", prefix + "\\", prefix + "\\\uffff");
  }
  if (scope.projectName !== undefined) {
    where.push("(project = ? OR project LIKE ? ESCAPE '!' OR project LIKE ? ESCAPE '!')");
    const escaped = scope.projectName.replace(/[!%_]/g, "!$&");
    params.push(scope.projectName, `%/${escaped}`, `%\\${escaped}`);
  }
  if (scope.agents !== undefined) {
    where.push(`agent IN (${scope.agents.map(() => "?").join(", ") || "NULL"})`);
    params.push(...scope.agents);
  }
  if (scope.since !== undefined) {
    where.push("last_activity_at >= ?");
    params.push(scope.since);
  }
  if (scope.nonEmpty === true) where.push("(message_count > 0 OR event_count > 0)");
  params.push(scope.limit);
  return db.prepare(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE ${where.join(" AND ")}
     ORDER BY last_activity_at DESC LIMIT ?`,
  ).all(...params) as unknown as SessionRow[];
}

/** The most recently active session in a folder (or below it), optionally of one agent. */
export function latestSessionFor(
  db: DatabaseSync,
  cwd: string,
  agent?: string,
): SessionRow | undefined {
  const scope: SessionScope = { projectPrefix: cwd, limit: 1 };
  if (agent !== undefined) scope.agents = [agent];
  return listSessions(db, scope)[0] ??
    (agent === undefined ? undefined : latestSessionFor(db, cwd));
}

/** A stored message. */
export interface MessageRow {
  /** Row id (grows with insertion). */
  id: number;
  /** Session id. */
  session_id: string;
  /** Time, ms. */
  ts: number;
  /** Role. */
  role: string;
  /** Message type. */
  message_type: string;
  /** Text. */
  text: string;
  /** Tool name. */
  tool_name: string | null;
  /** 1 when a tool result failed. */
  is_error: number | null;
  /** File the tool touched. */
  file_path: string | null;
}

const MESSAGE_COLUMNS =
  "id, session_id, ts, role, message_type, text, tool_name, is_error, file_path";

/** The newest non-empty messages of a session, newest first. */
export function recentMessages(db: DatabaseSync, sessionId: string, limit: number): MessageRow[] {
  return db.prepare(
    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND text != ''
     ORDER BY ts DESC, id DESC LIMIT ?`,
  ).all(sessionId, limit) as unknown as MessageRow[];
}

/** A page of a session's messages: skip `offset` newest, take `limit` (+1 to tell if more exist). */
export function transcriptPage(
  db: DatabaseSync,
  sessionId: string,
  options: { limit: number; offset: number; messageType?: string },
): MessageRow[] {
  const filter = options.messageType === undefined ? "" : "AND message_type = ?";
  const params: Array<string | number> = [sessionId];
  if (options.messageType !== undefined) params.push(options.messageType);
  params.push(options.limit + 1, options.offset);
  return db.prepare(
    `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ${filter}
     ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
  ).all(...params) as unknown as MessageRow[];
}

/**
 * Messages containing `needle` (case-folded), newest first, within the
 * scope. Only the newest `scanCap` messages of the scope are examined, so a
 * search that finds nothing costs a bounded scan; `scanned_all` says whether
 * the scan covered the whole scope.
 */
export function searchMessagesBySubstring(
  db: DatabaseSync,
  needle: string,
  sessionIds: readonly string[] | null,
  since: number,
  cap: number,
  scanCap = 20_000,
): { rows: MessageRow[]; scanned_all: boolean } {
  if (sessionIds !== null && sessionIds.length === 0) return { rows: [], scanned_all: true };
  const pattern = `%${needle.toLowerCase().replace(/[!%_]/g, "!$&")}%`;
  const scope = sessionIds === null ? "" : "AND session_id IN (SELECT value FROM json_each(?))";
  const params: Array<string | number> = [since];
  if (sessionIds !== null) params.push(JSON.stringify(sessionIds));
  const window = db.prepare(
    `SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE ts >= ? ${scope} ORDER BY id DESC LIMIT ?)`,
  ).get(...params, scanCap + 1) as { n: number };
  const rows = db.prepare(
    `SELECT ${MESSAGE_COLUMNS} FROM (
       SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ts >= ? ${scope} ORDER BY id DESC LIMIT ?
     ) WHERE lower(text) LIKE ? ESCAPE '!' ORDER BY id DESC LIMIT ?`,
  ).all(...params, scanCap, pattern, cap) as unknown as MessageRow[];
  return { rows, scanned_all: window.n <= scanCap };
}

/** A stored hook event (the fields the operations show). */
export interface EventRow {
  /** Time, ms. */
  ts: number;
  /** Canonical event name. */
  event_type: string;
  /** Tool name. */
  tool_name: string | null;
  /** File touched. */
  file_path: string | null;
  /** Shell command. */
  command: string | null;
  /** Its first word(s). */
  command_prefix: string | null;
  /** 1, 0 or null. */
  success: number | null;
  /** Error summary. */
  error: string | null;
  /** Prompt text. */
  prompt: string | null;
}

/** The newest tool events of a session (Pre/Post/Failure), newest first. */
export function recentToolEvents(db: DatabaseSync, sessionId: string, limit: number): EventRow[] {
  return db.prepare(
    `SELECT ts, event_type, tool_name, file_path, command, command_prefix, success, error, prompt
     FROM events WHERE session_id = ? AND event_type IN ('PreToolUse', 'PostToolUse', 'PostToolUseFailure')
     ORDER BY ts DESC, id DESC LIMIT ?`,
  ).all(sessionId, limit) as unknown as EventRow[];
}

/** Tool name → calls and failures for a session, from its hook events. */
export function toolCountsFromEvents(
  db: DatabaseSync,
  sessionId: string,
): Array<{ tool_name: string; calls: number; failures: number }> {
  return db.prepare(
    `SELECT tool_name, count(*) AS calls,
       sum(CASE WHEN event_type = 'PostToolUseFailure' OR success = 0 THEN 1 ELSE 0 END) AS failures
     FROM events WHERE session_id = ? AND tool_name IS NOT NULL
       AND event_type IN ('PostToolUse', 'PostToolUseFailure')
     GROUP BY tool_name ORDER BY calls DESC`,
  ).all(sessionId) as unknown as Array<{ tool_name: string; calls: number; failures: number }>;
}

/**
 * A session and its sub-agents, as a subquery of session ids: what a session did includes
 * what the sub-agents it started did (its hook events already do).
 */
const FAMILY = `(SELECT ? UNION ALL
  SELECT session_id FROM sessions WHERE is_subagent = 1 AND parent_session_id = ?)`;

/** Tool name → calls and failures for a session and its sub-agents, from their transcripts. */
export function toolCountsFromMessages(
  db: DatabaseSync,
  sessionId: string,
): Array<{ tool_name: string; calls: number; failures: number }> {
  return db.prepare(
    `SELECT u.tool_name AS tool_name, count(*) AS calls,
       sum(CASE WHEN r.is_error = 1 THEN 1 ELSE 0 END) AS failures
     FROM messages u LEFT JOIN messages r
       ON r.session_id = u.session_id AND r.tool_use_id = u.tool_use_id AND r.message_type = 'tool_result'
     WHERE u.session_id IN ${FAMILY} AND u.message_type = 'tool_use' AND u.tool_name IS NOT NULL
     GROUP BY u.tool_name ORDER BY calls DESC`,
  ).all(sessionId, sessionId) as unknown as Array<
    { tool_name: string; calls: number; failures: number }
  >;
}

/** Files a session (with its sub-agents) touched, newest first, from hooks and transcripts. */
export function recentFiles(
  db: DatabaseSync,
  sessionId: string,
  limit: number,
): Array<{ path: string; tool_name: string | null; ts: number }> {
  return db.prepare(
    `SELECT path, tool_name, max(ts) AS ts FROM (
       SELECT file_path AS path, tool_name, ts FROM events
         WHERE session_id = ? AND file_path IS NOT NULL AND event_type IN ('PreToolUse', 'PostToolUse')
       UNION ALL
       SELECT file_path AS path, tool_name, ts FROM messages
         WHERE session_id IN ${FAMILY} AND file_path IS NOT NULL AND message_type = 'tool_use'
     ) GROUP BY path ORDER BY ts DESC LIMIT ?`,
  ).all(sessionId, sessionId, sessionId, limit) as unknown as Array<
    { path: string; tool_name: string | null; ts: number }
  >;
}

/** The latest user prompt of a session, from hooks or transcript. */
export function lastPrompt(
  db: DatabaseSync,
  sessionId: string,
): { text: string; ts: number } | undefined {
  const fromHook = db.prepare(
    `SELECT prompt AS text, ts FROM events WHERE session_id = ? AND event_type = 'UserPromptSubmit'
     AND prompt IS NOT NULL ORDER BY ts DESC LIMIT 1`,
  ).get(sessionId) as { text: string; ts: number } | undefined;
  const fromTranscript = db.prepare(
    `SELECT text, ts FROM messages WHERE session_id = ? AND message_type = 'user' AND text != ''
     ORDER BY ts DESC LIMIT 1`,
  ).get(sessionId) as { text: string; ts: number } | undefined;
  if (fromHook === undefined) return fromTranscript;
  if (fromTranscript === undefined) return fromHook;
  return fromHook.ts >= fromTranscript.ts ? fromHook : fromTranscript;
}

/** The highest message id stored (0 when none). */
export function maxMessageId(db: DatabaseSync): number {
  return (statements(db).prepare("SELECT coalesce(max(id), 0) AS id FROM messages").get() as {
    id: number;
  }).id;
}
