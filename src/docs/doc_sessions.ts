/**
 * Sessions of document work. While a session is current, every document
 * added — by any surface, in any process — carries its id; a search, list,
 * grep or suggestion asked with `use_session` (or an explicit `session`)
 * sees only that session's documents and the ones pinned to it, unless
 * `global_search` lifts the restriction.
 *
 * @module
 */
import { andThen } from "../core/eventually.ts";
import { VantageError } from "../core/errors.ts";
import type { DatabaseSync } from "../store/database.ts";
import { currentSession, type DocSessionRow as SessionRow } from "../store/docs/doc_sessions.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";

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

/** Describes a session with its counts, read from the store of either backend. */
export async function describeSession(
  docs: DocsStore<StoreMode>,
  row: SessionRow,
): Promise<SessionInfo> {
  const [documents, pinned] = await Promise.all([
    docs.sessionDocumentCount(row.session_id),
    docs.pinCount(row.session_id),
  ]);
  return {
    session_id: row.session_id,
    label: row.label,
    description: row.description,
    started_at: new Date(row.started_at).toISOString(),
    stopped_at: row.stopped_at === null ? null : new Date(row.stopped_at).toISOString(),
    current: row.is_current === 1,
    documents,
    pinned,
  };
}

/** A session that must exist: it was just written. */
async function writtenSession(docs: DocsStore<StoreMode>, id: string): Promise<SessionRow> {
  const row = await docs.sessionById(id);
  if (row === undefined) {
    throw new VantageError("internal_error", `session '${id}' was written but cannot be read`);
  }
  return row;
}

/**
 * Starts (or resumes) a session and makes it current, as one write on either backend. Search
 * scopes change with the current session, so the index generation moves with it.
 */
export async function beginSession(
  store: Store<StoreMode>,
  name: string | undefined,
  label: string | undefined,
  description: string | undefined,
  now: number,
): Promise<{ session: SessionInfo; resumed: boolean }> {
  const id = name?.trim() || `session-${new Date(now).toISOString().replace(/[:.]/g, "-")}`;
  const resumed = (await store.docs.sessionById(id)) !== undefined;
  // SQLite's write cannot wait for a promise: each step follows the last as soon as it answers.
  await store.transaction((s) =>
    andThen(
      s.docs.startSession(id, label ?? null, description ?? null, now),
      () => s.docs.bumpCounter("index_generation"),
    )
  );
  return {
    session: await describeSession(store.docs, await writtenSession(store.docs, id)),
    resumed,
  };
}

/** Stops the named session, or the current one, as one write on either backend. */
export async function endSession(
  store: Store<StoreMode>,
  name: string | undefined,
  now: number,
): Promise<SessionInfo> {
  const named = name !== undefined && name !== "";
  const row = named ? await store.docs.sessionById(name) : await store.docs.currentSession();
  if (row === undefined) {
    throw new VantageError(
      named ? "not_found" : "invalid_arguments",
      named ? `no session named '${name}'` : "no session is current; nothing to stop",
    );
  }
  await store.transaction((s) => s.docs.stopSession(row.session_id, now));
  return await describeSession(store.docs, await writtenSession(store.docs, row.session_id));
}

/** The session a pin or unpin applies to: the named one or the current one. */
export async function targetSession(
  docs: DocsStore<StoreMode>,
  name: string | undefined,
): Promise<SessionRow> {
  const named = name !== undefined && name !== "";
  const row = named ? await docs.sessionById(name) : await docs.currentSession();
  if (row === undefined) {
    throw new VantageError(
      named ? "not_found" : "invalid_arguments",
      named
        ? `no session named '${name}'`
        : "no session is current: start one with the session 'start' action, or pass 'session'",
    );
  }
  return row;
}

/**
 * Pins or unpins documents, as one write on either backend; returns how many changed. The
 * session's scope changes, so the index generation moves with it.
 */
export async function setPins(
  store: Store<StoreMode>,
  sessionId: string,
  ids: readonly number[],
  pinned: boolean,
  now: number,
): Promise<number> {
  return await store.transaction((s) =>
    andThen(
      pinned ? s.docs.pinDocuments(sessionId, ids, now) : s.docs.unpinDocuments(sessionId, ids),
      (changed) => andThen(s.docs.bumpCounter("index_generation"), () => changed),
    )
  );
}
