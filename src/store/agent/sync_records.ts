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
import { RowReader, type RowShape, type SqlParam } from "../rows.ts";
import { prepared } from "../statements.ts";
import { SESSION_SHAPE, type SessionRow } from "./sessions.ts";
import { STORED_EVENT, STORED_EVENT_SHAPE, type StoredEventRow } from "./events.ts";
import { asRecord, STORED_USAGE_SHAPE, type UsageRow as StoredUsageRow } from "./usage.ts";

/** Reads a store's sync marks (both backends answer these columns). */
export const SYNC_MARKS: RowReader<SyncMarks> = new RowReader<SyncMarks>("sync marks", {
  events: "number",
  messages: "number",
  usage: "number",
});

/**
 * The statement answering {@linkcode SYNC_MARKS}: each table's largest position, a call's
 * being `usagePosition` (SQLite's rowid, PostgreSQL's seq column).
 */
export function syncHighWaterSql(usagePosition: string): string {
  return `SELECT (SELECT coalesce(max(id), 0) FROM events) AS events,
    (SELECT coalesce(max(id), 0) FROM messages) AS messages,
    (SELECT coalesce(max(${usagePosition}), 0) FROM usage) AS usage`;
}

/** The largest position of each table: where a sync run stops reading. */
export function syncHighWater(db: DatabaseSync): SyncMarks {
  return SYNC_MARKS.one(prepared(db, syncHighWaterSql("rowid")).get());
}

const AGENTS: ReadonlySet<string> = new Set(AGENT_NAMES);

function agentName(value: string, what: string): AgentName {
  if (AGENTS.has(value)) return value as AgentName;
  throw new VantageError("internal_error", `${what} names an unknown agent '${value}'`);
}

/** A stored hook event as a push reads it: its normalized fields, its keys and its host. */
export type SyncEventRow = StoredEventRow & {
  id: number;
  delivery_id: string;
  received_at: number;
  host: string | null;
};

/** Reads the hook events a push carries (both backends select {@linkcode SYNC_EVENT_COLUMNS}). */
export const SYNC_EVENT: RowReader<SyncEventRow> = new RowReader<SyncEventRow>("sync event", {
  id: "number",
  delivery_id: "text",
  ...STORED_EVENT_SHAPE,
  received_at: "number",
  host: "text?",
});

/**
 * The SELECT list of {@linkcode SYNC_EVENT}, in both dialects. An event stored without a
 * delivery id (none since delivery ids exist) gets one from its session and position, the same
 * each time it is read.
 */
export const SYNC_EVENT_COLUMNS: string =
  `id, coalesce(delivery_id, 'stored-' || session_id || '-' || id) AS delivery_id,
  ${STORED_EVENT.columns}, received_at, host`;

function rawObject(text: string): JsonObject {
  try {
    const value = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // A payload stored before it was kept as JSON: the event's own fields still travel.
  }
  return {};
}

/** Hook events after position `after` up to `through`, oldest first, at most `limit`. */
export function eventsAfter(
  db: DatabaseSync,
  after: number,
  through: number,
  limit: number,
): SyncHookEvent[] {
  return syncEvents(SYNC_EVENT.all(
    prepared(
      db,
      `SELECT ${SYNC_EVENT_COLUMNS}
       FROM events WHERE id > ? AND id <= ? AND agent IN (SELECT value FROM json_each(?))
       ORDER BY id LIMIT ?`,
    ).all(after, through, JSON.stringify(AGENT_NAMES), limit),
  ));
}

/** Event rows as a push carries them, under their positions. */
export function syncEvents(rows: readonly SyncEventRow[]): SyncHookEvent[] {
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

/** A transcript message as a push reads it, under its position. */
export interface SyncMessageRow {
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

/** Reads the messages a push carries (both backends select its columns). */
export const SYNC_MESSAGE: RowReader<SyncMessageRow> = new RowReader<SyncMessageRow>(
  "sync message",
  {
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
  },
);

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
  return syncMessages(SYNC_MESSAGE.all(
    prepared(
      db,
      `SELECT ${SYNC_MESSAGE.columns}
       FROM messages WHERE id > ? AND id <= ? AND agent IN (SELECT value FROM json_each(?))
       ORDER BY id LIMIT ?`,
    ).all(after, through, JSON.stringify(AGENT_NAMES), limit),
  ));
}

/** Message rows as a push carries them, under their positions. */
export function syncMessages(rows: readonly SyncMessageRow[]): SyncMessage[] {
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

/** A stored call as a push sends it: its figures without the price, under its sequence and key. */
export type SyncUsageRow = Omit<StoredUsageRow, "cost_usd" | "priced"> & {
  seq: number;
  usage_key: string;
};

/** A stored call's columns less its price, which a push does not carry. */
const { cost_usd: _cost, priced: _priced, ...UNPRICED_USAGE_SHAPE } = STORED_USAGE_SHAPE;

/**
 * Reads the calls a push carries: `seq` is the call's position (SQLite's rowid, PostgreSQL's
 * `seq` column), which a merge of grown figures keeps.
 */
export const SYNC_USAGE: RowReader<SyncUsageRow> = new RowReader<SyncUsageRow>("sync usage", {
  seq: "number",
  usage_key: "text",
  ...UNPRICED_USAGE_SHAPE,
});

/** SQLite's SELECT list of {@linkcode SYNC_USAGE}: its rowid is the position. */
const USAGE_COLUMNS = SYNC_USAGE.columns.replace(/^seq,/, "rowid AS seq,");

/** Usage rows as a push carries them, under their positions. */
export function syncUsages(rows: readonly SyncUsageRow[]): SyncUsage[] {
  return rows.map((row) => ({ seq: row.seq, usage: asRecord(row, row.usage_key) }));
}

/** Model calls after position `after` up to `through`, oldest first, at most `limit`. */
export function usageAfter(
  db: DatabaseSync,
  after: number,
  through: number,
  limit: number,
): SyncUsage[] {
  return syncUsages(SYNC_USAGE.all(
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
  return syncUsages(SYNC_USAGE.all(
    prepared(
      db,
      `SELECT ${USAGE_COLUMNS} FROM usage
       WHERE session_id IN (SELECT value FROM json_each(?)) AND rowid <= ? ORDER BY rowid`,
    ).all(JSON.stringify(sessionIds), through),
  ));
}

/**
 * The statement listing the sessions that records at positions in three ranges (events',
 * messages', calls') belong to, in id order by bytes (`byBytes`: the collation that orders so,
 * none on SQLite); a call's position is `usagePosition`; its parameters are
 * {@linkcode sessionsTouchedParams}, bound by `placeholder` (shared with the PostgreSQL store).
 */
export function sessionsTouchedSql(
  usagePosition: string,
  placeholder: (n: number) => string = () => "?",
  byBytes = "",
): string {
  const range = (position: string, n: number) =>
    `${position} > ${placeholder(n)} AND ${position} <= ${placeholder(n + 1)}`;
  return `SELECT session_id FROM (
      SELECT session_id FROM events WHERE ${range("id", 1)}
      UNION SELECT session_id FROM messages WHERE ${range("id", 3)}
      UNION SELECT session_id FROM usage WHERE ${range(usagePosition, 5)}
    ) AS touched ORDER BY session_id${byBytes}`;
}

/** The parameters of {@linkcode sessionsTouchedSql}: each table's range. */
export function sessionsTouchedParams(after: SyncMarks, through: SyncMarks): number[] {
  return [
    after.events,
    through.events,
    after.messages,
    through.messages,
    after.usage,
    through.usage,
  ];
}

/**
 * The sessions that records at positions after `after` up to `through` belong to, in id
 * order: whose facts, calls and outcomes a sync run sends again.
 */
export function sessionsTouched(db: DatabaseSync, after: SyncMarks, through: SyncMarks): string[] {
  return prepared(db, sessionsTouchedSql("rowid")).all(...sessionsTouchedParams(after, through))
    .map((row) => String(row.session_id));
}

/** A stored tool outcome as a push reads it. */
export interface SyncOutcomeRow {
  session_id: string;
  tool_use_id: string;
  agent: string;
  ts: number;
  success: number;
  exit_code: number | null;
  error: string | null;
}

/** Reads the tool outcomes a push carries (both backends select its columns). */
export const SYNC_OUTCOME: RowReader<SyncOutcomeRow> = new RowReader<SyncOutcomeRow>(
  "sync tool outcome",
  {
    session_id: "text",
    tool_use_id: "text",
    agent: "text",
    ts: "number",
    success: "number",
    exit_code: "number?",
    error: "text?",
  },
);

/** The tool outcomes recorded for some sessions, by session and call. */
export function toolOutcomesOf(db: DatabaseSync, sessionIds: readonly string[]): ToolOutcome[] {
  if (sessionIds.length === 0) return [];
  return syncOutcomes(SYNC_OUTCOME.all(
    prepared(
      db,
      `SELECT ${SYNC_OUTCOME.columns} FROM tool_outcomes
       WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, tool_use_id`,
    ).all(JSON.stringify(sessionIds)),
  ));
}

/** Outcome rows as a push carries them: those of the agents this Vantage knows. */
export function syncOutcomes(rows: readonly SyncOutcomeRow[]): ToolOutcome[] {
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

/** The session columns a push carries: what transcripts and hooks say, not the totals. */
const FACT_COLUMNS = [
  "session_id",
  "agent",
  "cwd",
  "project",
  "started_at",
  "last_activity_at",
  "model",
  "git_branch",
  "title",
  "parent_session_id",
  "is_subagent",
  "subagent_type",
  "transcript_path",
] as const;

/** The session columns a push carries. */
export type SessionFactsRow = Pick<SessionRow, typeof FACT_COLUMNS[number]>;

/** Reads the session facts a push carries (both backends select its columns). */
export const SESSION_FACTS: RowReader<SessionFactsRow> = new RowReader<SessionFactsRow>(
  "sync session",
  Object.fromEntries(FACT_COLUMNS.map((column) => [column, SESSION_SHAPE[column]])) as RowShape<
    SessionFactsRow
  >,
);

/** What the store knows of some sessions (those it has), in id order. */
export function sessionFacts(db: DatabaseSync, sessionIds: readonly string[]): SyncSession[] {
  if (sessionIds.length === 0) return [];
  return syncSessions(SESSION_FACTS.all(
    prepared(
      db,
      `SELECT ${SESSION_FACTS.columns}
       FROM sessions WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id`,
    ).all(JSON.stringify(sessionIds)),
  ));
}

/** Session rows as a push carries them: the facts a row has, none it lacks. */
export function syncSessions(rows: readonly SessionFactsRow[]): SyncSession[] {
  return rows.map((row) => {
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
  });
}

/** How a session's owner is read (every backend answers these columns). */
export const OWNER = new RowReader<SessionOwner>("session owner", {
  session_id: "text",
  person: "text?",
  parent_session_id: "text?",
  is_subagent: "number",
  parent_person: "text?",
});

/**
 * The statement claiming one session: created with its facts and owner unless stored (shared
 * with the PostgreSQL store, which passes its own placeholder).
 */
export function claimSessionSql(placeholder: (n: number) => string = () => "?"): string {
  const values = Array.from({ length: 11 }, (_, i) => placeholder(i + 1)).join(", ");
  return `INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at,
      parent_session_id, is_subagent, subagent_type, person, host)
    VALUES (${values})
    ON CONFLICT (session_id) DO NOTHING`;
}

/**
 * The parameters of {@linkcode claimSessionSql} for each session a push names, then for each
 * sub-agent's parent it does not name (which the store may lack too), by session id.
 */
export function sessionClaims(
  sessions: readonly SyncSession[],
  person: string | null,
  host: string | null,
): Map<string, SqlParam[]> {
  const claims = new Map<string, SqlParam[]>();
  const claim = (id: string, s: SyncSession, lastActivity: number, parent: SqlParam[]) =>
    claims.set(id, [
      id,
      s.agent,
      s.cwd ?? null,
      s.project ?? s.cwd ?? null,
      s.started_at,
      lastActivity,
      ...parent,
      person,
      host,
    ]);
  for (const s of sessions) {
    if (claims.has(s.session_id)) continue;
    const parent = [s.parent_session_id ?? null, s.is_subagent ? 1 : 0, s.subagent_type ?? null];
    claim(s.session_id, s, Math.max(s.started_at, s.last_activity_at), parent);
  }
  for (const s of sessions) {
    if (!s.is_subagent || s.parent_session_id === undefined) continue;
    if (!claims.has(s.parent_session_id)) {
      claim(s.parent_session_id, s, s.started_at, [null, 0, null]);
    }
  }
  return claims;
}

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
    const claim = prepared(db, claimSessionSql());
    const claims = sessionClaims(sessions, person, host);
    for (const params of claims.values()) claim.run(...params);
    const named = [...claims.keys()];
    return OWNER.all(
      prepared(
        db,
        `SELECT s.session_id, s.person, s.parent_session_id, s.is_subagent,
           p.person AS parent_person
         FROM sessions s LEFT JOIN sessions p ON p.session_id = s.parent_session_id
         WHERE s.session_id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(named)),
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
