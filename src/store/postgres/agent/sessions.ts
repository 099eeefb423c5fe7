/**
 * Agent sessions on PostgreSQL: the facts a transcript tells about its
 * session, and the reads of sessions by id, prefix, scope and filter, their
 * sub-agents and the overview's counts — SQLite's statements
 * (../../agent/sessions.ts) in PostgreSQL's dialect, bounded the same way.
 *
 * @module
 */
import type { SessionInfo } from "../../../model/agent_records.ts";
import {
  AGENT_ACTIVITY,
  COUNT,
  filteredSessionsSql,
  NEW_SESSION,
  type NewSessionRow,
  PARENT_TOTALS,
  parentRowValues,
  scopedSessionsSql,
  SESSION,
  SESSION_FACTS_UPSERT,
  SESSION_LIST_ROW,
  sessionFactsValues,
  type SessionListFilter,
  type SessionListRow,
  type SessionRow,
  type SessionScope,
  type SubagentTotals,
} from "../../agent/sessions.ts";
import { textColumn } from "../../rows.ts";
import { upsertSql } from "../../upserts.ts";
import { PG_UPSERT } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { builtRows, readOptionalRow, readRow, readRows } from "../reads.ts";
import { lockSessions } from "./session_totals.ts";

const UPSERT_FACTS = upsertSql(SESSION_FACTS_UPSERT, PG_UPSERT);

/**
 * Upserts what a transcript says about a session; a sub-agent's facts also make sure its
 * parent has a row.
 */
export function upsertSessionFacts(
  q: PgQueryable,
  facts: SessionInfo,
  transcriptPath?: string,
): Promise<void> {
  return q.write(async (w) => {
    const family = [facts.session_id];
    if (facts.parent_session_id !== undefined) family.push(facts.parent_session_id);
    await lockSessions(w, family);
    await w.query(UPSERT_FACTS, sessionFactsValues(facts, transcriptPath));
    const parent = parentRowValues(facts);
    if (parent !== undefined) {
      await w.query(
        `INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session_id) DO NOTHING`,
        parent,
      );
    }
  });
}

/** One session by exact id. */
export function getSession(q: PgQueryable, sessionId: string): Promise<SessionRow | undefined> {
  return readOptionalRow(
    q,
    SESSION,
    `SELECT ${SESSION.columns} FROM sessions WHERE session_id = $1`,
    [sessionId],
  );
}

/** The sessions of some exact ids that exist, in id order, each once (one statement). */
export function getSessions(q: PgQueryable, sessionIds: readonly string[]): Promise<SessionRow[]> {
  if (sessionIds.length === 0) return Promise.resolve([]);
  return readRows(
    q,
    SESSION,
    `SELECT ${SESSION.columns} FROM sessions WHERE session_id = ANY($1::text[]) ORDER BY session_id`,
    [sessionIds],
  );
}

/** Sessions whose id starts with `prefix`, newest first; a sub-agent only when its parent does not match. */
export function sessionsByPrefix(
  q: PgQueryable,
  prefix: string,
  limit: number,
): Promise<SessionRow[]> {
  // A range on the key (byte order, the "C" collation), as SQLite's: no LIKE wildcards.
  return readRows(
    q,
    SESSION,
    `SELECT ${SESSION.columns} FROM sessions WHERE session_id >= $1 AND session_id < $2
       AND NOT (is_subagent = 1 AND parent_session_id >= $1 AND parent_session_id < $2)
     ORDER BY last_activity_at DESC LIMIT $3`,
    [prefix, prefix + "\uffff", limit],
  );
}

/** The sub-agent sessions of some parents, oldest first within each, at most `perParent` each. */
export function subagentsOf(
  q: PgQueryable,
  parentIds: readonly string[],
  perParent = 100,
): Promise<SessionRow[]> {
  if (parentIds.length === 0) return Promise.resolve([]);
  return readRows(
    q,
    SESSION,
    `SELECT ${SESSION.columns} FROM (
       SELECT *, row_number() OVER (PARTITION BY parent_session_id ORDER BY started_at, session_id) AS n
       FROM sessions WHERE is_subagent = 1 AND parent_session_id = ANY($1::text[])
     ) ranked WHERE n <= $2 ORDER BY parent_session_id, started_at, session_id`,
    [parentIds, perParent],
  );
}

/** The sums over every sub-agent of each of some parents (parents without any are absent). */
export async function subagentTotals(
  q: PgQueryable,
  parentIds: readonly string[],
): Promise<Map<string, SubagentTotals>> {
  if (parentIds.length === 0) return new Map();
  const rows = await readRows(
    q,
    PARENT_TOTALS,
    `SELECT parent_session_id AS parent, count(*) AS count, sum(message_count) AS message_count,
       sum(tool_calls) AS tool_calls, sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens,
       sum(cache_write_tokens) AS cache_write_tokens, sum(reasoning_tokens) AS reasoning_tokens,
       sum(cost_usd) AS cost_usd, sum(unpriced_calls) AS unpriced_calls
     FROM sessions WHERE is_subagent = 1 AND parent_session_id = ANY($1::text[])
     GROUP BY parent_session_id`,
    [parentIds],
  );
  return new Map(rows.map(({ parent, ...totals }) => [parent, totals]));
}

/** Top-level sessions in a scope, most recently active first (SQLite's statement). */
export function listSessions(q: PgQueryable, scope: SessionScope): Promise<SessionRow[]> {
  return builtRows(q, SESSION, (p) => scopedSessionsSql(scope, p));
}

/** The most recently active session in a folder (or below it), optionally of one agent. */
export async function latestSessionFor(
  q: PgQueryable,
  cwd: string,
  agent?: string,
): Promise<SessionRow | undefined> {
  const scope: SessionScope = { projectPrefix: cwd, limit: 1 };
  if (agent !== undefined) scope.agents = [agent];
  return (await listSessions(q, scope))[0] ??
    (agent === undefined ? undefined : await latestSessionFor(q, cwd));
}

/** Top-level sessions matching the filter, most recently active first (`limit` + 1 rows). */
export function listSessionsFiltered(
  q: PgQueryable,
  filter: SessionListFilter,
): Promise<SessionListRow[]> {
  return builtRows(q, SESSION_LIST_ROW, (p) => filteredSessionsSql(filter, p));
}

/** Sessions active since a time, per agent (parents only). */
export function activeSessionsByAgent(
  q: PgQueryable,
  since: number,
): Promise<Array<{ agent: string; sessions: number; last_activity_at: number }>> {
  return readRows(
    q,
    AGENT_ACTIVITY,
    `SELECT agent, count(*) AS sessions, max(last_activity_at) AS last_activity_at
     FROM sessions WHERE last_activity_at >= $1 AND is_subagent = 0
     GROUP BY agent ORDER BY sessions DESC`,
    [since],
  );
}

/** Sessions that started at or after `since` (found among those active since then); parents only. */
export async function sessionsStartedSince(q: PgQueryable, since: number): Promise<number> {
  const started = await readRow(
    q,
    COUNT,
    `SELECT count(*) AS n FROM sessions
     WHERE last_activity_at >= $1 AND started_at >= $1 AND is_subagent = 0`,
    [since],
  );
  return started.n;
}

/** Sessions created after a position of the change feed (`seq`, SQLite's rowid), oldest first. */
export function sessionsAfter(
  q: PgQueryable,
  rowid: number,
  limit: number,
): Promise<NewSessionRow[]> {
  return readRows(
    q,
    NEW_SESSION,
    `SELECT ${NEW_SESSION.columns} FROM sessions WHERE seq > $1 ORDER BY seq LIMIT $2`,
    [rowid, limit],
  );
}

/** Project roots with recent hook activity, most recent first. */
export async function activeProjects(
  q: PgQueryable,
  since: number,
  limit: number,
): Promise<string[]> {
  const rows = await q.query(
    `SELECT project FROM sessions
     WHERE has_hooks = 1 AND project IS NOT NULL AND last_activity_at >= $1
     GROUP BY project ORDER BY max(last_activity_at) DESC LIMIT $2`,
    [since, limit],
  );
  return textColumn(rows, "project");
}
