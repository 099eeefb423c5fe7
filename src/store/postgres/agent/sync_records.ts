/**
 * `vantage sync` on PostgreSQL, as SQLite's (../../agent/sync_records.ts, whose row readers
 * and row-to-record mappings are used as they are). A team server checks what a person pushes:
 * claiming the sessions a push names — a session the store lacks becomes the pusher's, a
 * stored one keeps its owner — who owns the usage keys a push carries, and what it knows of
 * the sessions a push names. And a store on PostgreSQL can itself be pushed (to another team
 * server, when a team moves its server): its records after a position — events' and messages'
 * `id`, calls' `seq` (an identity a merge of grown figures keeps, as SQLite's rowid) — the
 * sessions those touched, their calls and their tool outcomes.
 *
 * Positions are identities, handed out when a row is inserted and seen when its write
 * commits: a write still running when a push reads its high-water mark may commit a lower
 * position afterwards, behind that push's cursor. A store being pushed should not be written
 * meanwhile (a server being moved is stopped first); `vantage sync --from-start` sends
 * everything again, and the receiving server keeps each record once.
 *
 * @module
 */
import {
  claimSessionSql,
  OWNER,
  SESSION_FACTS,
  sessionClaims,
  sessionsTouchedParams,
  sessionsTouchedSql,
  SYNC_EVENT,
  SYNC_EVENT_COLUMNS,
  SYNC_MARKS,
  SYNC_MESSAGE,
  SYNC_OUTCOME,
  SYNC_USAGE,
  syncEvents,
  syncHighWaterSql,
  syncMessages,
  syncOutcomes,
  syncSessions,
  syncUsages,
  USAGE_OWNER,
} from "../../agent/sync_records.ts";
import { AGENT_NAMES, type ToolOutcome } from "../../../model/agent_records.ts";
import { pgPlaceholder } from "../binding.ts";
import type {
  SessionOwner,
  SyncHookEvent,
  SyncMarks,
  SyncMessage,
  SyncSession,
  SyncUsage,
  UsageOwner,
} from "../../../model/sync_records.ts";
import type { PgQueryable } from "../connection.ts";
import type { RowReader } from "../../rows.ts";
import { readRow, readRows } from "../reads.ts";

/** The largest position of each table: where a sync run stops reading. */
export function syncHighWater(q: PgQueryable): Promise<SyncMarks> {
  return readRow(q, SYNC_MARKS, syncHighWaterSql("seq"));
}

/**
 * Rows of `table` (events or messages) after position `after` up to `through` by id, oldest
 * first, at most `limit`, of the agents this Vantage knows.
 */
function knownAfter<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  columns: string,
  table: "events" | "messages",
  [after, through, limit]: readonly [number, number, number],
): Promise<T[]> {
  return readRows(
    q,
    reader,
    `SELECT ${columns} FROM ${table}
     WHERE id > $1 AND id <= $2 AND agent = ANY($3::text[]) ORDER BY id LIMIT $4`,
    [after, through, AGENT_NAMES, limit],
  );
}

/** Hook events after position `after` up to `through`, oldest first, at most `limit`. */
export async function eventsAfter(
  q: PgQueryable,
  after: number,
  through: number,
  limit: number,
): Promise<SyncHookEvent[]> {
  const range = [after, through, limit] as const;
  return syncEvents(await knownAfter(q, SYNC_EVENT, SYNC_EVENT_COLUMNS, "events", range));
}

/** Transcript messages after position `after` up to `through`, oldest first, at most `limit`. */
export async function messagesAfter(
  q: PgQueryable,
  after: number,
  through: number,
  limit: number,
): Promise<SyncMessage[]> {
  const range = [after, through, limit] as const;
  return syncMessages(await knownAfter(q, SYNC_MESSAGE, SYNC_MESSAGE.columns, "messages", range));
}

/** Model calls after position `after` up to `through`, oldest first, at most `limit`. */
export async function usageAfter(
  q: PgQueryable,
  after: number,
  through: number,
  limit: number,
): Promise<SyncUsage[]> {
  return syncUsages(
    await readRows(
      q,
      SYNC_USAGE,
      `SELECT ${SYNC_USAGE.columns} FROM usage WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`,
      [after, through, limit],
    ),
  );
}

/**
 * The model calls of some sessions at positions up to `through`, at their current figures
 * (those a merge may have grown since they were read before), oldest first.
 */
export async function usageOfSessions(
  q: PgQueryable,
  sessionIds: readonly string[],
  through: number,
): Promise<SyncUsage[]> {
  if (sessionIds.length === 0 || through <= 0) return [];
  return syncUsages(
    await readRows(
      q,
      SYNC_USAGE,
      `SELECT ${SYNC_USAGE.columns} FROM usage
       WHERE session_id = ANY($1::text[]) AND seq <= $2 ORDER BY seq`,
      [sessionIds, through],
    ),
  );
}

/**
 * The sessions that records at positions after `after` up to `through` belong to, in id
 * order by bytes as SQLite orders them: whose facts, calls and outcomes a sync run sends again.
 */
export async function sessionsTouched(
  q: PgQueryable,
  after: SyncMarks,
  through: SyncMarks,
): Promise<string[]> {
  const rows = await q.query(
    sessionsTouchedSql("seq", pgPlaceholder, ' COLLATE "C"'),
    sessionsTouchedParams(after, through),
  );
  return rows.map((row) => String(row.session_id));
}

/** The tool outcomes recorded for some sessions, by session and call (by bytes). */
export async function toolOutcomesOf(
  q: PgQueryable,
  sessionIds: readonly string[],
): Promise<ToolOutcome[]> {
  if (sessionIds.length === 0) return [];
  return syncOutcomes(
    await readRows(
      q,
      SYNC_OUTCOME,
      `SELECT ${SYNC_OUTCOME.columns} FROM tool_outcomes WHERE session_id = ANY($1::text[])
       ORDER BY session_id COLLATE "C", tool_use_id COLLATE "C"`,
      [sessionIds],
    ),
  );
}

/**
 * Claims sessions for `person` (null: the server's owner) on `host`, and a sub-agent's parent
 * the store lacks; answers who each named session and parent belongs to now. One write, the
 * sessions taken in id order, so two pushes naming the same sessions take turns.
 */
export function claimSessions(
  q: PgQueryable,
  sessions: readonly SyncSession[],
  person: string | null,
  host: string | null,
): Promise<SessionOwner[]> {
  if (sessions.length === 0) return Promise.resolve([]);
  return q.write(async (w) => {
    const claims = sessionClaims(sessions, person, host);
    const claim = claimSessionSql(pgPlaceholder);
    const named = [...claims.keys()].sort();
    for (const id of named) await w.query(claim, claims.get(id)!);
    return OWNER.all(
      await w.query(
        `SELECT s.session_id, s.person, s.parent_session_id, s.is_subagent,
           p.person AS parent_person
         FROM sessions s LEFT JOIN sessions p ON p.session_id = s.parent_session_id
         WHERE s.session_id = ANY($1::text[])`,
        [named],
      ),
    );
  });
}

/** Whose session each stored one of these usage keys is counted in (keys not stored: absent). */
export async function usageOwners(
  q: PgQueryable,
  usageKeys: readonly string[],
): Promise<UsageOwner[]> {
  if (usageKeys.length === 0) return [];
  return USAGE_OWNER.all(
    await q.query(
      `SELECT u.usage_key, u.session_id, s.person FROM usage u
       LEFT JOIN sessions s ON s.session_id = u.session_id
       WHERE u.usage_key = ANY($1::text[])`,
      [usageKeys],
    ),
  );
}

/**
 * What the store knows of some sessions (those it has), in id order by bytes as SQLite orders
 * them: what a team server compares a push's sessions with.
 */
export async function sessionFacts(
  q: PgQueryable,
  sessionIds: readonly string[],
): Promise<SyncSession[]> {
  if (sessionIds.length === 0) return [];
  return syncSessions(SESSION_FACTS.all(
    await q.query(
      `SELECT ${SESSION_FACTS.columns} FROM sessions
       WHERE session_id = ANY($1::text[]) ORDER BY session_id COLLATE "C"`,
      [sessionIds],
    ),
  ));
}
