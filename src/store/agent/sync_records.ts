/**
 * What `vantage sync` reads from a local store and what a team server needs
 * to take it. The local side reads records by position (`id` of events and
 * messages, the `rowid` of usage rows, which a merge of grown figures
 * keeps), the sessions those positions touched, and a session's facts,
 * calls and tool outcomes. The server side claims sessions for the person
 * pushing (a new session is theirs; an existing one keeps its person) and
 * tells whose session a stored usage key is counted in, so a push never
 * adds to, or merges into, another person's session.
 *
 * @module
 */
import type {
  JsonObject,
  MessageRole,
  MessageType,
  ToolOutcome,
} from "../../model/agent_records.ts";
import type {
  SessionOwner,
  SyncHookEvent,
  SyncMarks,
  SyncMessage,
  SyncSession,
  SyncUsage,
  UsageOwner,
} from "../../model/sync_records.ts";
import { VantageError } from "../../core/errors.ts";
import { AGENT_NAMES, type AgentName } from "../../model/agent_records.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

const MARKS = new RowReader<SyncMarks>("sync marks", {
  events: "number",
  messages: "number",
  usage: "number",
});

/** The largest position of each table: where a sync run stops reading. */
export function syncHighWater(db: DatabaseSync): SyncMarks {
  return MARKS.one(
    prepared(
      db,
      `SELECT (SELECT coalesce(max(id), 0) FROM events) AS events,
         (SELECT coalesce(max(id), 0) FROM messages) AS messages,
         (SELECT coalesce(max(rowid), 0) FROM usage) AS usage`,
    ).get(),
  );
}

const AGENTS: ReadonlySet<string> = new Set(AGENT_NAMES);

function agentName(value: string, what: string): AgentName {
  if (AGENTS.has(value)) return value as AgentName;
  throw new VantageError("internal_error", `${what} names an unknown agent '${value}'`);
}

interface EventRow {
  id: number;
  delivery_id: string;
  agent: string;
  session_id: string;
  cwd: string | null;
  project: string | null;
  event_type: string;
  ts: number;
  tool_name: string | null;
  tool_use_id: string | null;
  file_path: string | null;
  command: string | null;
  command_prefix: string | null;
  success: number | null;
  error: string | null;
  duration_ms: number | null;
  prompt: string | null;
  model: string | null;
  received_at: number;
  raw: string;
  host: string | null;
}

const EVENT_ROW = new RowReader<EventRow>("sync event", {
  id: "number",
  delivery_id: "text",
  agent: "text",
  session_id: "text",
  cwd: "text?",
  project: "text?",
  event_type: "text",
  ts: "number",
  tool_name: "text?",
  tool_use_id: "text?",
  file_path: "text?",
  command: "text?",
  command_prefix: "text?",
  success: "number?",
  error: "text?",
  duration_ms: "number?",
  prompt: "text?",
  model: "text?",
  received_at: "number",
  raw: "text",
  host: "text?",
});

function rawObject(text: string): JsonObject {
  try {
    const value = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // A payload stored before it was kept as JSON: the event's own fields still travel.
  }
  return {};
}

/**
 * Hook events after position `after` up to `through`, oldest first, at most `limit`. An event
 * stored without a delivery id (none since delivery ids exist) gets one from its session and
 * position, the same each time it is read.
 */
export function eventsAfter(
  db: DatabaseSync,
  after: number,
  through: number,
  limit: number,
): SyncHookEvent[] {
  const rows = EVENT_ROW.all(
    prepared(
      db,
      `SELECT id, coalesce(delivery_id, 'stored-' || session_id || '-' || id) AS delivery_id,
         agent, session_id, cwd, project, event_type, ts, tool_name, tool_use_id, file_path,
         command, command_prefix, success, error, duration_ms, prompt, model, received_at, raw, host
       FROM events WHERE id > ? AND id <= ? AND agent IN (SELECT value FROM json_each(?))
       ORDER BY id LIMIT ?`,
    ).all(after, through, JSON.stringify(AGENT_NAMES), limit),
  );
  return rows.map((row) => {
    const event: SyncHookEvent["event"] = {
      agent: agentName(row.agent, `event ${row.id}`),
      session_id: row.session_id,
      event_type: row.event_type,
      ts: row.ts,
      raw: rawObject(row.raw),
    };
    if (row.cwd !== null) event.cwd = row.cwd;
    if (row.project !== null) event.project = row.project;
    if (row.tool_name !== null) event.tool_name = row.tool_name;
    if (row.tool_use_id !== null) event.tool_use_id = row.tool_use_id;
    if (row.file_path !== null) event.file_path = row.file_path;
    if (row.command !== null) event.command = row.command;
    if (row.command_prefix !== null) event.command_prefix = row.command_prefix;
    if (row.success !== null) event.success = row.success === 1;
    if (row.error !== null) event.error = row.error;
    if (row.duration_ms !== null) event.duration_ms = row.duration_ms;
    if (row.prompt !== null) event.prompt = row.prompt;
    if (row.model !== null) event.model = row.model;
    if (row.host !== null) event.host = row.host;
    return { seq: row.id, delivery_id: row.delivery_id, received_at: row.received_at, event };
  });
}

interface MessageRow {
  id: number;
  session_id: string;
  agent: string;
  message_key: string;
  ts: number;
  role: string;
  message_type: string;
  text: string;
  tool_name: string | null;
  tool_use_id: string | null;
  is_error: number | null;
  model: string | null;
  cwd: string | null;
  file_path: string | null;
  command_prefix: string | null;
  subagent_id: string | null;
}

const MESSAGE_ROW = new RowReader<MessageRow>("sync message", {
  id: "number",
  session_id: "text",
  agent: "text",
  message_key: "text",
  ts: "number",
  role: "text",
  message_type: "text",
  text: "text",
  tool_name: "text?",
  tool_use_id: "text?",
  is_error: "number?",
  model: "text?",
  cwd: "text?",
  file_path: "text?",
  command_prefix: "text?",
  subagent_id: "text?",
});

const ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system", "tool"]);
const MESSAGE_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "thinking",
  "tool_use",
  "tool_result",
  "system",
  "compaction",
  "api_error",
]);

/** Transcript messages after position `after` up to `through`, oldest first, at most `limit`. */
export function messagesAfter(
  db: DatabaseSync,
  after: number,
  through: number,
  limit: number,
): SyncMessage[] {
  const rows = MESSAGE_ROW.all(
    prepared(
      db,
      `SELECT id, session_id, agent, message_key, ts, role, message_type, text, tool_name,
         tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id
       FROM messages WHERE id > ? AND id <= ? AND agent IN (SELECT value FROM json_each(?))
       ORDER BY id LIMIT ?`,
    ).all(after, through, JSON.stringify(AGENT_NAMES), limit),
  );
  return rows.map((row) => {
    if (!ROLES.has(row.role) || !MESSAGE_TYPES.has(row.message_type)) {
      throw new VantageError(
        "internal_error",
        `message ${row.id} has role '${row.role}' and type '${row.message_type}', which no parser writes`,
      );
    }
    const message: SyncMessage["message"] = {
      agent: agentName(row.agent, `message ${row.id}`),
      session_id: row.session_id,
      ts: row.ts,
      role: row.role as MessageRole,
      message_type: row.message_type as MessageType,
      text: row.text,
      message_key: row.message_key,
    };
    if (row.tool_name !== null) message.tool_name = row.tool_name;
    if (row.tool_use_id !== null) message.tool_use_id = row.tool_use_id;
    if (row.is_error !== null) message.is_error = row.is_error === 1;
    if (row.model !== null) message.model = row.model;
    if (row.cwd !== null) message.cwd = row.cwd;
    if (row.file_path !== null) message.file_path = row.file_path;
    if (row.command_prefix !== null) message.command_prefix = row.command_prefix;
    if (row.subagent_id !== null) message.subagent_id = row.subagent_id;
    return { seq: row.id, message };
  });
}

interface UsageRow {
  seq: number;
  usage_key: string;
  session_id: string;
  agent: string;
  ts: number;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  web_search_requests: number;
  service_tier: string | null;
  speed: string | null;
  inference_geo: string | null;
  context_window: number | null;
  reported_cost_usd: number | null;
  calls: number;
}

const USAGE_ROW = new RowReader<UsageRow>("sync usage", {
  seq: "number",
  usage_key: "text",
  session_id: "text",
  agent: "text",
  ts: "number",
  model: "text?",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  cache_write_1h_tokens: "number",
  reasoning_tokens: "number",
  web_search_requests: "number",
  service_tier: "text?",
  speed: "text?",
  inference_geo: "text?",
  context_window: "number?",
  reported_cost_usd: "number?",
  calls: "number",
});

const USAGE_COLUMNS = `rowid AS seq, usage_key, session_id, agent, ts, model, input_tokens,
  output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
  web_search_requests, service_tier, speed, inference_geo, context_window, reported_cost_usd, calls`;

function usageRecords(rows: readonly UsageRow[]): SyncUsage[] {
  return rows.map((row) => {
    const usage: SyncUsage["usage"] = {
      agent: row.agent,
      session_id: row.session_id,
      ts: row.ts,
      usage_key: row.usage_key,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cache_read_tokens: row.cache_read_tokens,
      cache_write_tokens: row.cache_write_tokens,
      cache_write_1h_tokens: row.cache_write_1h_tokens,
      reasoning_tokens: row.reasoning_tokens,
      web_search_requests: row.web_search_requests,
      calls: row.calls,
    };
    if (row.model !== null) usage.model = row.model;
    if (row.service_tier !== null) usage.service_tier = row.service_tier;
    if (row.speed !== null) usage.speed = row.speed;
    if (row.inference_geo !== null) usage.inference_geo = row.inference_geo;
    if (row.context_window !== null) usage.context_window = row.context_window;
    if (row.reported_cost_usd !== null) usage.reported_cost_usd = row.reported_cost_usd;
    return { seq: row.seq, usage };
  });
}

/** Model calls after position `after` up to `through`, oldest first, at most `limit`. */
export function usageAfter(
  db: DatabaseSync,
  after: number,
  through: number,
  limit: number,
): SyncUsage[] {
  return usageRecords(USAGE_ROW.all(
    prepared(
      db,
      `SELECT ${USAGE_COLUMNS} FROM usage WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?`,
    ).all(after, through, limit),
  ));
}

/**
 * The model calls of some sessions at positions up to `through`, at their current figures
 * (those a merge may have grown since they were read before), oldest first.
 */
export function usageOfSessions(
  db: DatabaseSync,
  sessionIds: readonly string[],
  through: number,
): SyncUsage[] {
  if (sessionIds.length === 0 || through <= 0) return [];
  return usageRecords(USAGE_ROW.all(
    prepared(
      db,
      `SELECT ${USAGE_COLUMNS} FROM usage
       WHERE session_id IN (SELECT value FROM json_each(?)) AND rowid <= ? ORDER BY rowid`,
    ).all(JSON.stringify(sessionIds), through),
  ));
}

/**
 * The sessions that records at positions after `after` up to `through` belong to, in id
 * order: whose facts, calls and outcomes a sync run sends again.
 */
export function sessionsTouched(db: DatabaseSync, after: SyncMarks, through: SyncMarks): string[] {
  const rows = prepared(
    db,
    `SELECT session_id FROM events WHERE id > ? AND id <= ?
     UNION SELECT session_id FROM messages WHERE id > ? AND id <= ?
     UNION SELECT session_id FROM usage WHERE rowid > ? AND rowid <= ?
     ORDER BY session_id`,
  ).all(
    after.events,
    through.events,
    after.messages,
    through.messages,
    after.usage,
    through.usage,
  );
  return rows.map((row) => String(row.session_id));
}

interface OutcomeRow {
  session_id: string;
  tool_use_id: string;
  agent: string;
  ts: number;
  success: number;
  exit_code: number | null;
  error: string | null;
}

const OUTCOME_ROW = new RowReader<OutcomeRow>("sync tool outcome", {
  session_id: "text",
  tool_use_id: "text",
  agent: "text",
  ts: "number",
  success: "number",
  exit_code: "number?",
  error: "text?",
});

/** The tool outcomes recorded for some sessions, by session and call. */
export function toolOutcomesOf(db: DatabaseSync, sessionIds: readonly string[]): ToolOutcome[] {
  if (sessionIds.length === 0) return [];
  const rows = OUTCOME_ROW.all(
    prepared(
      db,
      `SELECT session_id, tool_use_id, agent, ts, success, exit_code, error FROM tool_outcomes
       WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, tool_use_id`,
    ).all(JSON.stringify(sessionIds)),
  );
  return rows.filter((row) => AGENTS.has(row.agent)).map((row) => {
    const outcome: ToolOutcome = {
      agent: row.agent as AgentName,
      session_id: row.session_id,
      tool_use_id: row.tool_use_id,
      ts: row.ts,
      success: row.success === 1,
    };
    if (row.exit_code !== null) outcome.exit_code = row.exit_code;
    if (row.error !== null) outcome.error = row.error;
    return outcome;
  });
}

/** A session's facts as stored. */
export interface SessionFactsRow {
  session_id: string;
  agent: string;
  cwd: string | null;
  project: string | null;
  started_at: number;
  last_activity_at: number;
  model: string | null;
  git_branch: string | null;
  title: string | null;
  parent_session_id: string | null;
  is_subagent: number;
  subagent_type: string | null;
  transcript_path: string | null;
}

/** How a session's facts are read (every backend answers these columns). */
export const SESSION_FACTS_ROW = new RowReader<SessionFactsRow>("sync session", {
  session_id: "text",
  agent: "text",
  cwd: "text?",
  project: "text?",
  started_at: "number",
  last_activity_at: "number",
  model: "text?",
  git_branch: "text?",
  title: "text?",
  parent_session_id: "text?",
  is_subagent: "number",
  subagent_type: "text?",
  transcript_path: "text?",
});

/** The columns of {@linkcode SESSION_FACTS_ROW}, in a statement's spelling. */
export const SESSION_FACTS_COLUMNS =
  `session_id, agent, cwd, project, started_at, last_activity_at, model, git_branch,
   title, parent_session_id, is_subagent, subagent_type, transcript_path`;

/** What the store knows of some sessions (those it has), in id order. */
export function sessionFacts(db: DatabaseSync, sessionIds: readonly string[]): SyncSession[] {
  if (sessionIds.length === 0) return [];
  return SESSION_FACTS_ROW.all(
    prepared(
      db,
      `SELECT ${SESSION_FACTS_COLUMNS}
       FROM sessions WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id`,
    ).all(JSON.stringify(sessionIds)),
  ).map(syncSessionOf);
}

/** A stored session's facts as a push carries them (both backends). */
export function syncSessionOf(row: SessionFactsRow): SyncSession {
  const facts: SyncSession = {
    session_id: row.session_id,
    agent: row.agent,
    started_at: row.started_at,
    last_activity_at: row.last_activity_at,
    is_subagent: row.is_subagent === 1,
  };
  if (row.cwd !== null) facts.cwd = row.cwd;
  if (row.project !== null) facts.project = row.project;
  if (row.model !== null) facts.model = row.model;
  if (row.git_branch !== null) facts.git_branch = row.git_branch;
  if (row.title !== null) facts.title = row.title;
  if (row.parent_session_id !== null) facts.parent_session_id = row.parent_session_id;
  if (row.subagent_type !== null) facts.subagent_type = row.subagent_type;
  if (row.transcript_path !== null) facts.transcript_path = row.transcript_path;
  return facts;
}

/** How a session's owner is read (every backend answers these columns). */
export const OWNER = new RowReader<SessionOwner>("session owner", {
  session_id: "text",
  person: "text?",
  parent_session_id: "text?",
  is_subagent: "number",
  parent_person: "text?",
});

const CLAIM_SESSION = `
  INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at,
    parent_session_id, is_subagent, subagent_type, person, host)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (session_id) DO NOTHING`;

/**
 * Claims sessions for `person` (null: the server's owner) on `host`: a session the store does
 * not have is created with its facts and attributed to them, and so is a sub-agent's parent
 * it does not have; a stored session keeps whoever it belongs to. Answers who each named
 * session and each such parent belongs to now.
 */
export function claimSessions(
  db: DatabaseSync,
  sessions: readonly SyncSession[],
  person: string | null,
  host: string | null,
): SessionOwner[] {
  if (sessions.length === 0) return [];
  return writing(db, () => {
    const claim = prepared(db, CLAIM_SESSION);
    const named = new Set<string>();
    for (const s of sessions) {
      claim.run(
        s.session_id,
        s.agent,
        s.cwd ?? null,
        s.project ?? s.cwd ?? null,
        s.started_at,
        Math.max(s.started_at, s.last_activity_at),
        s.parent_session_id ?? null,
        s.is_subagent ? 1 : 0,
        s.subagent_type ?? null,
        person,
        host,
      );
      named.add(s.session_id);
    }
    for (const s of sessions) {
      if (!s.is_subagent || s.parent_session_id === undefined) continue;
      claim.run(
        s.parent_session_id,
        s.agent,
        s.cwd ?? null,
        s.project ?? s.cwd ?? null,
        s.started_at,
        s.started_at,
        null,
        0,
        null,
        person,
        host,
      );
      named.add(s.parent_session_id);
    }
    return OWNER.all(
      prepared(
        db,
        `SELECT s.session_id, s.person, s.parent_session_id, s.is_subagent,
           p.person AS parent_person
         FROM sessions s LEFT JOIN sessions p ON p.session_id = s.parent_session_id
         WHERE s.session_id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify([...named])),
    );
  });
}

/** How a usage key's owner is read (every backend answers these columns). */
export const USAGE_OWNER = new RowReader<UsageOwner>("usage owner", {
  usage_key: "text",
  session_id: "text",
  person: "text?",
});

/** Whose session each stored one of these usage keys is counted in (keys not stored: absent). */
export function usageOwners(db: DatabaseSync, usageKeys: readonly string[]): UsageOwner[] {
  if (usageKeys.length === 0) return [];
  return USAGE_OWNER.all(
    prepared(
      db,
      `SELECT u.usage_key, u.session_id, s.person FROM usage u
       LEFT JOIN sessions s ON s.session_id = u.session_id
       WHERE u.usage_key IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(usageKeys)),
  );
}
