/**
 * Agent sessions: the facts a transcript tells about its session, and the
 * reads of sessions by id, by prefix, by scope and by filter, their
 * sub-agents and the counts the overview shows. Every read is bounded (an
 * index seek, a time window or a LIMIT), so a store of millions of messages
 * answers in milliseconds.
 *
 * A session's `started_at` / `last_activity_at` are 0 while no record with a
 * time was seen ("unknown", never the epoch).
 *
 * @module
 */
import type { SessionInfo } from "../../model/agent_records.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { builtRows, type SqlParams } from "../params.ts";
import { pickColumns, RowReader, type RowShape, type SqlParam, textColumn } from "../rows.ts";
import { SQLITE_UPSERT, upsertSql, type UpsertTable } from "../upserts.ts";
import { prepared } from "../statements.ts";

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
  /** Team mode: the person whose hook first named the session; null for the server's owner. */
  person: string | null;
  /** The machine that hook ran on, when it said. */
  host: string | null;
}

/** The columns of a session row (shared with the PostgreSQL store). */
export const SESSION_SHAPE: RowShape<SessionRow> = {
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
  has_hooks: "number",
  event_count: "number",
  message_count: "number",
  tool_calls: "number",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  reasoning_tokens: "number",
  cost_usd: "number",
  unpriced_calls: "number",
  context_tokens: "number?",
  context_window: "number?",
  person: "text?",
  host: "text?",
};

/** Reads {@linkcode SessionRow} rows (on either backend). */
export const SESSION = new RowReader<SessionRow>("session", SESSION_SHAPE);

/**
 * The upsert of what a transcript says about its session (both backends; its parameters are
 * {@linkcode sessionFactsValues}). A start time of 0 means "not known yet" (a transcript whose
 * first lines carry no time): an unknown start never hides a known one.
 */
export const SESSION_FACTS_UPSERT: UpsertTable = {
  table: "sessions",
  key: "session_id",
  columns: {
    session_id: "insert",
    agent: "insert",
    cwd: "first",
    project: "first",
    started_at: "earliest_start",
    last_activity_at: "insert",
    model: "latest",
    git_branch: "latest",
    title: "latest",
    parent_session_id: "first",
    transcript_path: "first",
    is_subagent: "greatest",
    subagent_type: "latest",
  },
};

const UPSERT_FACTS = upsertSql(SESSION_FACTS_UPSERT, SQLITE_UPSERT);

/**
 * Upserts what a transcript says about a session. A sub-agent's facts also make sure its
 * parent has a row (its file may not have been read yet), so the sub-agent is never listed
 * alone and the counts it adds to the parent have somewhere to go.
 */
export function upsertSessionFacts(
  db: DatabaseSync,
  facts: SessionInfo,
  transcriptPath?: string,
): void {
  return writing(db, () => {
    prepared(db, UPSERT_FACTS).run(...sessionFactsValues(facts, transcriptPath));
    const parent = parentRowValues(facts);
    if (parent !== undefined) {
      prepared(
        db,
        `
        INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at)
        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING
      `,
      ).run(...parent);
    }
  });
}

/**
 * The parameters of the upsert of what a transcript says about its session (`session_id,
 * agent, cwd, project, started_at, last_activity_at, model, git_branch, title,
 * parent_session_id, transcript_path, is_subagent, subagent_type`, on both backends).
 */
export function sessionFactsValues(facts: SessionInfo, transcriptPath?: string): SqlParam[] {
  return [
    facts.session_id,
    facts.agent,
    facts.cwd ?? null,
    facts.cwd ?? null,
    facts.started_at ?? 0,
    facts.started_at ?? 0,
    facts.model ?? null,
    facts.git_branch ?? null,
    facts.title ?? null,
    facts.parent_session_id ?? null,
    transcriptPath ?? null,
    facts.is_subagent === true ? 1 : 0,
    facts.subagent_type ?? null,
  ];
}

/**
 * The row a sub-agent's facts make sure its parent has, when they tell its start (the
 * parameters of an insert of `session_id, agent, cwd, project, started_at,
 * last_activity_at`); undefined for any other facts.
 */
export function parentRowValues(facts: SessionInfo): SqlParam[] | undefined {
  const start = facts.started_at ?? 0;
  if (facts.is_subagent !== true || facts.parent_session_id === undefined || start <= 0) {
    return undefined;
  }
  return [facts.parent_session_id, facts.agent, facts.cwd ?? null, facts.cwd ?? null, start, start];
}

/** One session by exact id. */
export function getSession(db: DatabaseSync, sessionId: string): SessionRow | undefined {
  return SESSION.optional(
    prepared(db, `SELECT ${SESSION.columns} FROM sessions WHERE session_id = ?`).get(sessionId),
  );
}

/**
 * The sessions of some exact ids that exist, in id order, each once however often its id is
 * asked for (a caller with many ids pays one statement, not one per id).
 */
export function getSessions(db: DatabaseSync, sessionIds: readonly string[]): SessionRow[] {
  if (sessionIds.length === 0) return [];
  return SESSION.all(
    prepared(
      db,
      `SELECT ${SESSION.columns} FROM sessions
       WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id`,
    ).all(JSON.stringify(sessionIds)),
  );
}

/**
 * Sessions whose id starts with `prefix`, newest first (at most `limit`). A sub-agent
 * (`<parent>/agent-<id>`) matches only when its parent does not: a prefix of the parent's id
 * names the parent.
 */
export function sessionsByPrefix(db: DatabaseSync, prefix: string, limit: number): SessionRow[] {
  // Range scan on the primary key instead of LIKE, which would treat _ and % as wildcards.
  return SESSION.all(
    prepared(
      db,
      `SELECT ${SESSION.columns} FROM sessions WHERE session_id >= ? AND session_id < ?
       AND NOT (is_subagent = 1 AND parent_session_id >= ? AND parent_session_id < ?)
     ORDER BY last_activity_at DESC LIMIT ?`,
    ).all(prefix, prefix + "\uffff", prefix, prefix + "\uffff", limit),
  );
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
  return SESSION.all(
    prepared(
      db,
      `SELECT ${SESSION.columns} FROM (
       SELECT *, row_number() OVER (PARTITION BY parent_session_id ORDER BY started_at, session_id) AS n
       FROM sessions
       WHERE is_subagent = 1 AND parent_session_id IN (SELECT value FROM json_each(?))
     ) WHERE n <= ? ORDER BY parent_session_id, started_at, session_id`,
    ).all(JSON.stringify(parentIds), perParent),
  );
}

/** The counters of a session that its sub-agents add to (summed over them, see below). */
const COUNTED_FIELDS = [
  "message_count",
  "tool_calls",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "cost_usd",
  "unpriced_calls",
] as const;

type CountedFields = typeof COUNTED_FIELDS[number];

/** What all the sub-agents of one parent add up to: each counter summed over them. */
export type SubagentTotals = Pick<SessionRow, CountedFields> & {
  /** Sub-agent sessions. */
  count: number;
};

/** Reads each parent's {@linkcode SubagentTotals} (on either backend). */
export const PARENT_TOTALS = new RowReader<SubagentTotals & { parent: string }>(
  "sub-agent totals",
  { parent: "text", count: "number", ...pickColumns(SESSION_SHAPE, COUNTED_FIELDS) },
);

/** The sums over every sub-agent of each of some parents (parents without any are absent). */
export function subagentTotals(
  db: DatabaseSync,
  parentIds: readonly string[],
): Map<string, SubagentTotals> {
  if (parentIds.length === 0) return new Map();
  const rows = PARENT_TOTALS.all(
    prepared(
      db,
      `SELECT parent_session_id AS parent, count(*) AS count, sum(message_count) AS message_count,
       sum(tool_calls) AS tool_calls, sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens, sum(reasoning_tokens) AS reasoning_tokens,
       sum(cost_usd) AS cost_usd, sum(unpriced_calls) AS unpriced_calls
     FROM sessions
     WHERE is_subagent = 1 AND parent_session_id IN (SELECT value FROM json_each(?))
     GROUP BY parent_session_id`,
    ).all(JSON.stringify(parentIds)),
  );
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
  /** Only this person's sessions (team mode); null: only the server owner's. */
  person?: string | null;
  /** Most sessions to return. */
  limit: number;
  /** Leave out sessions with no messages and no events. */
  nonEmpty?: boolean;
}

/**
 * The WHERE conditions shared by the session listings (on both backends), over `sessions` as
 * `alias` ("" for the bare table): top-level sessions only, in a project (by path prefix or
 * bare name), of some agents, active since a time, of one person. Values go to `p`.
 */
export function scopeConditions(
  scope: Pick<SessionScope, "projectPrefix" | "projectName" | "agents" | "since" | "person">,
  alias: string,
  p: SqlParams,
): string[] {
  const column = (name: string) => alias === "" ? name : `${alias}.${name}`;
  const project = column("project");
  const where: string[] = [`${column("is_subagent")} = 0`];
  if (scope.projectPrefix !== undefined) {
    const prefix = scope.projectPrefix.replace(/[\\/]+$/, "");
    const below = (separator: string) =>
      `(${project} >= ${p.add(prefix + separator)} AND ${project} < ${
        p.add(prefix + separator + "\uffff")
      })`;
    where.push(`(${project} = ${p.add(prefix)} OR ${below("/")} OR ${below("\\")})`);
  }
  if (scope.projectName !== undefined) {
    const escaped = scope.projectName.replace(/[!%_]/g, "!$&");
    const like = (pattern: string) => `${project} LIKE ${p.add(pattern)} ESCAPE '!'`;
    where.push(
      `(${project} = ${p.add(scope.projectName)} OR ${like(`%/${escaped}`)} OR ${
        like(`%\\${escaped}`)
      })`,
    );
  }
  if (scope.agents !== undefined) where.push(p.oneOf(column("agent"), scope.agents));
  if (scope.since !== undefined) {
    where.push(`${column("last_activity_at")} >= ${p.add(scope.since)}`);
  }
  if (scope.person === null) {
    where.push(`${column("person")} IS NULL`);
  } else if (scope.person !== undefined) {
    where.push(`${column("person")} = ${p.add(scope.person)}`);
  }
  return where;
}

/** The statement of {@linkcode listSessions} (on either backend; its values go to `p`). */
export function scopedSessionsSql(scope: SessionScope, p: SqlParams): string {
  const where = scopeConditions(scope, "", p);
  if (scope.nonEmpty === true) where.push("(message_count > 0 OR event_count > 0)");
  return `SELECT ${SESSION.columns} FROM sessions WHERE ${where.join(" AND ")}
    ORDER BY last_activity_at DESC LIMIT ${p.add(scope.limit)}`;
}

/**
 * Sessions in a scope, most recently active first. Sub-agent runs are not sessions of their
 * own here: they belong to their parent (see {@linkcode subagentsOf}).
 */
export function listSessions(db: DatabaseSync, scope: SessionScope): SessionRow[] {
  return builtRows(db, SESSION, (p) => scopedSessionsSql(scope, p));
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
  /** Only this person's sessions (team mode); null: only the server owner's. */
  person?: string | null;
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

/** Reads {@linkcode SessionListRow} rows (on either backend). */
export const SESSION_LIST_ROW = new RowReader<SessionListRow>("session list", {
  ...SESSION_SHAPE,
  tool_failures: "number",
  anomaly_count: "number",
});

/** The stored columns of a listing row (its anomaly count is computed). */
const LISTED_COLUMNS = SESSION_LIST_ROW.columnsOf("s", ["anomaly_count"]);

const OPEN_ANOMALIES =
  "(SELECT count(*) FROM anomalies a WHERE a.session_id = s.session_id AND a.resolved_at IS NULL)";

/** The statement of {@linkcode listSessionsFiltered} (on either backend; values go to `p`). */
export function filteredSessionsSql(filter: SessionListFilter, p: SqlParams): string {
  const where = scopeConditions(filter, "s", p);
  if (filter.until !== undefined) where.push(`s.last_activity_at < ${p.add(filter.until)}`);
  if (filter.minCost !== undefined) where.push(`s.cost_usd >= ${p.add(filter.minCost)}`);
  if (filter.hasAnomalies !== undefined) {
    where.push(
      `${
        filter.hasAnomalies ? "" : "NOT "
      }EXISTS (SELECT 1 FROM anomalies a WHERE a.session_id = s.session_id AND a.resolved_at IS NULL)`,
    );
  }
  return `SELECT ${LISTED_COLUMNS}, ${OPEN_ANOMALIES} AS anomaly_count FROM sessions s
    WHERE ${where.join(" AND ")}
    ORDER BY s.last_activity_at DESC LIMIT ${p.add(filter.limit + 1)} OFFSET ${
    p.add(filter.offset)
  }`;
}

/**
 * Sessions matching the filter, most recently active first (`limit` + 1 rows tell of more).
 * Only top-level sessions: a sub-agent run is listed under its parent (whose counts include
 * it), so the filters and the paging count parents.
 */
export function listSessionsFiltered(
  db: DatabaseSync,
  filter: SessionListFilter,
): SessionListRow[] {
  return builtRows(db, SESSION_LIST_ROW, (p) => filteredSessionsSql(filter, p));
}

/** Reads sessions per agent (on either backend). */
export const AGENT_ACTIVITY = new RowReader<
  { agent: string; sessions: number; last_activity_at: number }
>(
  "agent activity",
  { agent: "text", sessions: "number", last_activity_at: "number" },
);

/** Sessions active since a time, per agent (parents only: a sub-agent is part of its parent). */
export function activeSessionsByAgent(
  db: DatabaseSync,
  since: number,
): Array<{ agent: string; sessions: number; last_activity_at: number }> {
  return AGENT_ACTIVITY.all(
    prepared(
      db,
      `SELECT agent, count(*) AS sessions, max(last_activity_at) AS last_activity_at
     FROM sessions WHERE last_activity_at >= ? AND is_subagent = 0
     GROUP BY agent ORDER BY sessions DESC`,
    ).all(since),
  );
}

/** Reads a count (on either backend). */
export const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/**
 * Sessions that started at or after `since` (found among those active since then); parents
 * only.
 */
export function sessionsStartedSince(db: DatabaseSync, since: number): number {
  return COUNT.one(
    prepared(
      db,
      `SELECT count(*) AS n FROM sessions
     WHERE last_activity_at >= ? AND started_at >= ? AND is_subagent = 0`,
    ).get(since, since),
  ).n;
}

/**
 * A session as the change feed announces it (a type, not an interface: the
 * feed passes it on as a plain record).
 */
export type NewSessionRow = {
  /** Session id. */
  session_id: string;
  /** Canonical agent name. */
  agent: string;
  /** Project root. */
  project: string | null;
  /** Start, ms. */
  started_at: number;
};

/** Reads {@linkcode NewSessionRow} rows (on either backend). */
export const NEW_SESSION = new RowReader<NewSessionRow>("new session", {
  session_id: "text",
  agent: "text",
  project: "text?",
  started_at: "number",
});

/** Sessions created after a rowid, oldest first. */
export function sessionsAfter(db: DatabaseSync, rowid: number, limit: number): NewSessionRow[] {
  return NEW_SESSION.all(
    prepared(
      db,
      `SELECT ${NEW_SESSION.columns} FROM sessions WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    ).all(rowid, limit),
  );
}

/** Project roots with recent hook activity, most recent first. */
export function activeProjects(db: DatabaseSync, since: number, limit: number): string[] {
  return textColumn(
    prepared(
      db,
      `SELECT project FROM sessions WHERE has_hooks = 1 AND project IS NOT NULL AND last_activity_at >= ?
     GROUP BY project ORDER BY max(last_activity_at) DESC LIMIT ?`,
    ).all(since, limit),
    "project",
  );
}
