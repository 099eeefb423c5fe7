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
  type NewSessionRow,
  SESSION_SHAPE,
  type SessionListFilter,
  type SessionListRow,
  type SessionRow,
  type SessionScope,
  type SubagentTotals,
} from "../../agent/sessions.ts";
import { RowReader, textColumn } from "../../rows.ts";
import { Params } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { lockSessions, PG_EARLIEST_START } from "./session_totals.ts";

const SESSION = new RowReader<SessionRow>("session", SESSION_SHAPE);

const UPSERT_FACTS = `
      INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, model,
        git_branch, title, parent_session_id, transcript_path, is_subagent, subagent_type)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
      ON CONFLICT (session_id) DO UPDATE SET
        cwd = coalesce(sessions.cwd, excluded.cwd),
        project = coalesce(sessions.project, excluded.project),
        started_at = ${PG_EARLIEST_START},
        model = coalesce(excluded.model, sessions.model),
        git_branch = coalesce(excluded.git_branch, sessions.git_branch),
        title = coalesce(excluded.title, sessions.title),
        parent_session_id = coalesce(sessions.parent_session_id, excluded.parent_session_id),
        transcript_path = coalesce(sessions.transcript_path, excluded.transcript_path),
        is_subagent = greatest(sessions.is_subagent, excluded.is_subagent),
        subagent_type = coalesce(excluded.subagent_type, sessions.subagent_type)
    `;

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
    await w.query(UPSERT_FACTS, [
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
    ]);
    const start = facts.started_at ?? 0;
    if (facts.is_subagent === true && facts.parent_session_id !== undefined && start > 0) {
      await w.query(
        `INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (session_id) DO NOTHING`,
        [facts.parent_session_id, facts.agent, facts.cwd ?? null, facts.cwd ?? null, start, start],
      );
    }
  });
}

/** One session by exact id. */
export async function getSession(
  q: PgQueryable,
  sessionId: string,
): Promise<SessionRow | undefined> {
  return SESSION.optional(
    (await q.query(`SELECT ${SESSION.columns} FROM sessions WHERE session_id = $1`, [sessionId]))[
      0
    ],
  );
}

/** Sessions whose id starts with `prefix`, newest first; a sub-agent only when its parent does not match. */
export async function sessionsByPrefix(
  q: PgQueryable,
  prefix: string,
  limit: number,
): Promise<SessionRow[]> {
  // A range on the key (byte order, the "C" collation), as SQLite's: no LIKE wildcards.
  return SESSION.all(
    await q.query(
      `SELECT ${SESSION.columns} FROM sessions WHERE session_id >= $1 AND session_id < $2
         AND NOT (is_subagent = 1 AND parent_session_id >= $1 AND parent_session_id < $2)
       ORDER BY last_activity_at DESC LIMIT $3`,
      [prefix, prefix + "\uffff", limit],
    ),
  );
}

/** The sub-agent sessions of some parents, oldest first within each, at most `perParent` each. */
export async function subagentsOf(
  q: PgQueryable,
  parentIds: readonly string[],
  perParent = 100,
): Promise<SessionRow[]> {
  if (parentIds.length === 0) return [];
  return SESSION.all(
    await q.query(
      `SELECT ${SESSION.columns} FROM (
         SELECT *, row_number() OVER (PARTITION BY parent_session_id ORDER BY started_at, session_id) AS n
         FROM sessions WHERE is_subagent = 1 AND parent_session_id = ANY($1::text[])
       ) ranked WHERE n <= $2 ORDER BY parent_session_id, started_at, session_id`,
      [parentIds, perParent],
    ),
  );
}

const PARENT_TOTALS = new RowReader<SubagentTotals & { parent: string }>("sub-agent totals", {
  parent: "text",
  count: "number",
  message_count: "number",
  tool_calls: "number",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  reasoning_tokens: "number",
  cost_usd: "number",
  unpriced_calls: "number",
});

/** The sums over every sub-agent of each of some parents (parents without any are absent). */
export async function subagentTotals(
  q: PgQueryable,
  parentIds: readonly string[],
): Promise<Map<string, SubagentTotals>> {
  if (parentIds.length === 0) return new Map();
  const rows = PARENT_TOTALS.all(
    await q.query(
      `SELECT parent_session_id AS parent, count(*) AS count, sum(message_count) AS message_count,
         sum(tool_calls) AS tool_calls, sum(input_tokens) AS input_tokens,
         sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens,
         sum(cache_write_tokens) AS cache_write_tokens, sum(reasoning_tokens) AS reasoning_tokens,
         sum(cost_usd) AS cost_usd, sum(unpriced_calls) AS unpriced_calls
       FROM sessions WHERE is_subagent = 1 AND parent_session_id = ANY($1::text[])
       GROUP BY parent_session_id`,
      [parentIds],
    ),
  );
  return new Map(rows.map(({ parent, ...totals }) => [parent, totals]));
}

/** The WHERE conditions shared by the session listings (SQLite's `scopeConditions`). */
function scopeConditions(
  scope: Pick<SessionScope, "projectPrefix" | "projectName" | "agents" | "since" | "person">,
  alias: string,
  p: Params,
): string[] {
  const column = (name: string) => alias === "" ? name : `${alias}.${name}`;
  const project = column("project");
  const where: string[] = [`${column("is_subagent")} = 0`];
  if (scope.projectPrefix !== undefined) {
    const prefix = scope.projectPrefix.replace(/[\\/]+$/, "");
    where.push(
      `(${project} = ${p.add(prefix)} OR (${project} >= ${p.add(prefix + "/")} AND ${project} < ${
        p.add(prefix + "/\uffff")
      }) OR (${project} >= ${p.add(prefix + "\\")} AND ${project} < ${
        p.add(prefix + "\\\uffff")
      }))`,
    );
  }
  if (scope.projectName !== undefined) {
    const escaped = scope.projectName.replace(/[!%_]/g, "!$&");
    where.push(
      `(${project} = ${p.add(scope.projectName)} OR ${project} LIKE ${
        p.add(`%/${escaped}`)
      } ESCAPE '!' OR ${project} LIKE ${p.add(`%\\${escaped}`)} ESCAPE '!')`,
    );
  }
  if (scope.agents !== undefined) {
    where.push(`${column("agent")} = ANY(${p.add(scope.agents)}::text[])`);
  }
  if (scope.person === null) {
    where.push(`${column("person")} IS NULL`);
  } else if (scope.person !== undefined) {
    where.push(`${column("person")} = ${p.add(scope.person)}`);
  }
  if (scope.since !== undefined) {
    where.push(`${column("last_activity_at")} >= ${p.add(scope.since)}`);
  }
  return where;
}

/** Top-level sessions in a scope, most recently active first. */
export async function listSessions(q: PgQueryable, scope: SessionScope): Promise<SessionRow[]> {
  const p = new Params();
  const where = scopeConditions(scope, "", p);
  if (scope.nonEmpty === true) where.push("(message_count > 0 OR event_count > 0)");
  return SESSION.all(
    await q.query(
      `SELECT ${SESSION.columns} FROM sessions WHERE ${where.join(" AND ")}
       ORDER BY last_activity_at DESC LIMIT ${p.add(scope.limit)}`,
      p.values,
    ),
  );
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

const SESSION_LIST_ROW = new RowReader<SessionListRow>("session list", {
  ...SESSION_SHAPE,
  tool_failures: "number",
  anomaly_count: "number",
});

const LISTED_COLUMNS = SESSION_LIST_ROW.columnsOf("s", ["anomaly_count"]);

const OPEN_ANOMALIES =
  "(SELECT count(*) FROM anomalies a WHERE a.session_id = s.session_id AND a.resolved_at IS NULL)";

/** Top-level sessions matching the filter, most recently active first (`limit` + 1 rows). */
export async function listSessionsFiltered(
  q: PgQueryable,
  filter: SessionListFilter,
): Promise<SessionListRow[]> {
  const p = new Params();
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
  return SESSION_LIST_ROW.all(
    await q.query(
      `SELECT ${LISTED_COLUMNS}, ${OPEN_ANOMALIES} AS anomaly_count FROM sessions s
       WHERE ${where.join(" AND ")}
       ORDER BY s.last_activity_at DESC LIMIT ${p.add(filter.limit + 1)} OFFSET ${
        p.add(filter.offset)
      }`,
      p.values,
    ),
  );
}

const AGENT_ACTIVITY = new RowReader<{ agent: string; sessions: number; last_activity_at: number }>(
  "agent activity",
  { agent: "text", sessions: "number", last_activity_at: "number" },
);

/** Sessions active since a time, per agent (parents only). */
export async function activeSessionsByAgent(
  q: PgQueryable,
  since: number,
): Promise<Array<{ agent: string; sessions: number; last_activity_at: number }>> {
  return AGENT_ACTIVITY.all(
    await q.query(
      `SELECT agent, count(*) AS sessions, max(last_activity_at) AS last_activity_at
       FROM sessions WHERE last_activity_at >= $1 AND is_subagent = 0
       GROUP BY agent ORDER BY sessions DESC`,
      [since],
    ),
  );
}

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** Sessions that started at or after `since` (found among those active since then); parents only. */
export async function sessionsStartedSince(q: PgQueryable, since: number): Promise<number> {
  return COUNT.one(
    (await q.query(
      `SELECT count(*) AS n FROM sessions
       WHERE last_activity_at >= $1 AND started_at >= $1 AND is_subagent = 0`,
      [since],
    ))[0],
  ).n;
}

const NEW_SESSION = new RowReader<NewSessionRow>("new session", {
  session_id: "text",
  agent: "text",
  project: "text?",
  started_at: "number",
});

/** Sessions created after a position of the change feed (`seq`, SQLite's rowid), oldest first. */
export async function sessionsAfter(
  q: PgQueryable,
  rowid: number,
  limit: number,
): Promise<NewSessionRow[]> {
  return NEW_SESSION.all(
    await q.query(
      `SELECT ${NEW_SESSION.columns} FROM sessions WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [rowid, limit],
    ),
  );
}

/** Project roots with recent hook activity, most recent first. */
export async function activeProjects(
  q: PgQueryable,
  since: number,
  limit: number,
): Promise<string[]> {
  return textColumn(
    await q.query(
      `SELECT project FROM sessions
       WHERE has_hooks = 1 AND project IS NOT NULL AND last_activity_at >= $1
       GROUP BY project ORDER BY max(last_activity_at) DESC LIMIT $2`,
      [since, limit],
    ),
    "project",
  );
}
