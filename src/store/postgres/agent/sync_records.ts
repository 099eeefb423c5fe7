/**
 * What a team server on PostgreSQL checks when a person pushes history (`vantage sync`), as
 * SQLite's (../../agent/sync_records.ts): claiming the sessions a push names — a session the
 * store lacks becomes the pusher's, a stored one keeps its owner — and who owns the usage
 * keys a push carries, and what it knows of the sessions a push names. What a laptop reads to
 * push (its records after a position) stays on SQLite: a laptop's store is its data home's file.
 *
 * @module
 */
import {
  claimSessionSql,
  OWNER,
  SESSION_FACTS,
  sessionClaims,
  syncSessions,
  USAGE_OWNER,
} from "../../agent/sync_records.ts";
import { pgPlaceholder } from "../binding.ts";
import type { SessionOwner, SyncSession, UsageOwner } from "../../../model/sync_records.ts";
import type { PgQueryable } from "../connection.ts";

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
