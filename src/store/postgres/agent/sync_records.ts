/**
 * What a team server on PostgreSQL checks when a person pushes history (`vantage sync`), as
 * SQLite's (../../agent/sync_records.ts): claiming the sessions a push names — a session the
 * store lacks becomes the pusher's, a stored one keeps its owner — and who owns the usage
 * keys a push carries, and what it knows of the sessions a push names. What a laptop reads to
 * push (its records after a position) stays on SQLite: a laptop's store is its data home's
 * file.
 *
 * @module
 */
import {
  OWNER,
  SESSION_FACTS_COLUMNS,
  SESSION_FACTS_ROW,
  syncSessionOf,
  USAGE_OWNER,
} from "../../agent/sync_records.ts";
import type { SessionOwner, SyncSession, UsageOwner } from "../../../model/sync_records.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";

const CLAIM_SESSION = `
  INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at,
    parent_session_id, is_subagent, subagent_type, person, host)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
  ON CONFLICT (session_id) DO NOTHING`;

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
    const claims = new Map<string, Array<string | number | null>>();
    for (const s of sessions) {
      claims.set(s.session_id, [
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
      ]);
    }
    for (const s of sessions) {
      if (!s.is_subagent || s.parent_session_id === undefined) continue;
      if (claims.has(s.parent_session_id)) continue;
      claims.set(s.parent_session_id, [
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
      ]);
    }
    const named = [...claims.keys()].sort();
    for (const id of named) await w.query(CLAIM_SESSION, claims.get(id)!);
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

/** What the store knows of some sessions (those it has), in id order. */
export async function sessionFacts(
  q: PgQueryable,
  sessionIds: readonly string[],
): Promise<SyncSession[]> {
  if (sessionIds.length === 0) return [];
  const rows = await readRows(
    q,
    SESSION_FACTS_ROW,
    `SELECT ${SESSION_FACTS_COLUMNS} FROM sessions WHERE session_id = ANY($1::text[])
     ORDER BY session_id`,
    [sessionIds],
  );
  return rows.map(syncSessionOf);
}
