/**
 * Sessions of document work. While a session is current, every document
 * added — by any surface, in any process — carries its id; a search, list,
 * grep or suggestion asked with `use_session` (or an explicit `session`)
 * sees only that session's documents and the ones pinned to it, unless
 * `global_search` lifts the restriction.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type DatabaseSync, transaction } from "../store/database.ts";
import {
  currentSession,
  type DocSessionRow as SessionRow,
  pinCount,
  pinDocuments,
  sessionById,
  sessionDocumentCount,
  startSession,
  stopSession,
  unpinDocuments,
} from "../store/docs/doc_sessions.ts";
import { bumpCounter } from "../store/docs/state.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";

/** The session parameters shared by the read operations. */
export interface SessionScopeParams {
  /** Restrict to the current session. */
  use_session?: boolean;
  /** Restrict to this session. */
  session?: string;
  /** Ignore session restrictions. */
  global_search?: boolean;
}

/**
 * The session a read is restricted to, or undefined for a global read.
 * Throws when `use_session` is asked without a current session, or when a
 * named session does not exist.
 */
export async function sessionScope(
  docs: DocsStore<StoreMode>,
  params: SessionScopeParams,
): Promise<string | undefined> {
  if (params.global_search === true) return undefined;
  if (params.session !== undefined && params.session !== "") {
    if ((await docs.sessionById(params.session)) === undefined) {
      throw new VantageError("not_found", `no session named '${params.session}'`, {
        details: { session: params.session },
      });
    }
    return params.session;
  }
  if (params.use_session === true) {
    const current = await docs.currentSession();
    if (current === undefined) {
      throw new VantageError(
        "invalid_arguments",
        "use_session needs a current session: start one with the session 'start' action, or pass 'session'",
      );
    }
    return current.session_id;
  }
  return undefined;
}

/** The id of the current session, if one is active (documents added now carry it). */
export function currentSessionId(db: DatabaseSync): string | null {
  return currentSession(db)?.session_id ?? null;
}

/** A session as operations report it. */
export interface SessionInfo {
  /** Session name. */
  session_id: string;
  /** Label. */
  label: string | null;
  /** Description. */
  description: string | null;
  /** Start time (ISO 8601). */
  started_at: string;
  /** Stop time (ISO 8601), null while open. */
  stopped_at: string | null;
  /** Whether it is the current session. */
  current: boolean;
  /** Latest documents added in it. */
  documents: number;
  /** Documents pinned to it. */
  pinned: number;
}

/** Describes a session with its counts. */
export function describeSession(db: DatabaseSync, row: SessionRow): SessionInfo {
  return {
    session_id: row.session_id,
    label: row.label,
    description: row.description,
    started_at: new Date(row.started_at).toISOString(),
    stopped_at: row.stopped_at === null ? null : new Date(row.stopped_at).toISOString(),
    current: row.is_current === 1,
    documents: sessionDocumentCount(db, row.session_id),
    pinned: pinCount(db, row.session_id),
  };
}

/** Starts (or resumes) a session and makes it current. */
export function beginSession(
  db: DatabaseSync,
  name: string | undefined,
  label: string | undefined,
  description: string | undefined,
  now: number,
): { session: SessionInfo; resumed: boolean } {
  const id = name?.trim() || `session-${new Date(now).toISOString().replace(/[:.]/g, "-")}`;
  const resumed = sessionById(db, id) !== undefined;
  transaction(db, () => {
    startSession(db, id, label ?? null, description ?? null, now);
    bumpCounter(db, "index_generation");
  });
  return { session: describeSession(db, sessionById(db, id)!), resumed };
}

/** Stops the named session, or the current one. */
export function endSession(db: DatabaseSync, name: string | undefined, now: number): SessionInfo {
  const row = name !== undefined && name !== "" ? sessionById(db, name) : currentSession(db);
  if (row === undefined) {
    throw new VantageError(
      name ? "not_found" : "invalid_arguments",
      name ? `no session named '${name}'` : "no session is current; nothing to stop",
    );
  }
  transaction(db, () => stopSession(db, row.session_id, now));
  return describeSession(db, sessionById(db, row.session_id)!);
}

/** The session a pin or unpin applies to: the named one or the current one. */
export function targetSession(db: DatabaseSync, name: string | undefined): SessionRow {
  const row = name !== undefined && name !== "" ? sessionById(db, name) : currentSession(db);
  if (row === undefined) {
    throw new VantageError(
      name ? "not_found" : "invalid_arguments",
      name
        ? `no session named '${name}'`
        : "no session is current: start one with the session 'start' action, or pass 'session'",
    );
  }
  return row;
}

/** Pins or unpins documents; returns how many changed. */
export function setPins(
  db: DatabaseSync,
  sessionId: string,
  ids: readonly number[],
  pinned: boolean,
  now: number,
): number {
  return transaction(db, () => {
    const changed = pinned
      ? pinDocuments(db, sessionId, ids, now)
      : unpinDocuments(db, sessionId, ids);
    bumpCounter(db, "index_generation");
    return changed;
  });
}
