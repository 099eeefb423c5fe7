/**
 * Document sessions: named periods of work whose additions (and pins) a
 * search can be scoped to — not agent sessions (see ../agent/sessions.ts).
 * The current session lives in the database, so a CLI process and an MCP
 * server agree on it.
 *
 * @module
 */
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** One document session. */
export interface DocSessionRow {
  /** Session name (its identity). */
  session_id: string;
  /** Human label. */
  label: string | null;
  /** Free-text description. */
  description: string | null;
  /** When it (last) started, ms. */
  started_at: number;
  /** When it stopped, ms; null while open. */
  stopped_at: number | null;
  /** 1 for the current session. */
  is_current: number;
}

/** Reads a document session. (Both backends read it with this reader.) */
export const DOC_SESSION: RowReader<DocSessionRow> = new RowReader<DocSessionRow>(
  "document session",
  {
    session_id: "text",
    label: "text?",
    description: "text?",
    started_at: "number",
    stopped_at: "number?",
    is_current: "number",
  },
);

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** The current session, if one is active. */
export function currentSession(db: DatabaseSync): DocSessionRow | undefined {
  return DOC_SESSION.optional(
    prepared(db, `SELECT ${DOC_SESSION.columns} FROM docs_sessions WHERE is_current = 1`).get(),
  );
}

/** A session by name. */
export function sessionById(db: DatabaseSync, id: string): DocSessionRow | undefined {
  return DOC_SESSION.optional(
    prepared(db, `SELECT ${DOC_SESSION.columns} FROM docs_sessions WHERE session_id = ?`).get(id),
  );
}

/** Makes a session current (creating it, or reopening it), clearing any other current one. */
export function startSession(
  db: DatabaseSync,
  id: string,
  label: string | null,
  description: string | null,
  now: number,
): void {
  return writing(db, () => {
    prepared(db, "UPDATE docs_sessions SET is_current = 0 WHERE is_current = 1 AND session_id <> ?")
      .run(id);
    prepared(
      db,
      `INSERT INTO docs_sessions (session_id, label, description, started_at, stopped_at, is_current)
       VALUES (?, ?, ?, ?, NULL, 1)
       ON CONFLICT (session_id) DO UPDATE SET is_current = 1, stopped_at = NULL,
         label = coalesce(excluded.label, label),
         description = coalesce(excluded.description, description)`,
    ).run(id, label, description, now);
  });
}

/** Closes a session; it stops being current. */
export function stopSession(db: DatabaseSync, id: string, now: number): void {
  return writing(db, () => {
    prepared(
      db,
      "UPDATE docs_sessions SET is_current = 0, stopped_at = ? WHERE session_id = ?",
    ).run(now, id);
  });
}

/** Sessions, newest first. */
export function listSessions(db: DatabaseSync, limit: number): DocSessionRow[] {
  return DOC_SESSION.all(
    prepared(
      db,
      `SELECT ${DOC_SESSION.columns} FROM docs_sessions ORDER BY started_at DESC LIMIT ?`,
    ).all(limit),
  );
}

/** Counts documents added in a session. */
export function sessionDocumentCount(db: DatabaseSync, id: string): number {
  return COUNT.one(
    prepared(
      db,
      "SELECT count(*) AS n FROM docs_documents WHERE session_id = ? AND is_latest = 1",
    ).get(id),
  ).n;
}

/** Pins documents to a session; returns how many were newly pinned. */
export function pinDocuments(
  db: DatabaseSync,
  sessionId: string,
  ids: readonly number[],
  now: number,
): number {
  return writing(db, () => {
    const statement = prepared(
      db,
      "INSERT OR IGNORE INTO docs_session_pins (session_id, document_id, pinned_at) VALUES (?, ?, ?)",
    );
    let added = 0;
    for (const id of ids) added += Number(statement.run(sessionId, id, now).changes);
    return added;
  });
}

/** Unpins documents from a session; returns how many were pinned. */
export function unpinDocuments(
  db: DatabaseSync,
  sessionId: string,
  ids: readonly number[],
): number {
  return writing(db, () => {
    const statement = prepared(
      db,
      "DELETE FROM docs_session_pins WHERE session_id = ? AND document_id = ?",
    );
    let removed = 0;
    for (const id of ids) removed += Number(statement.run(sessionId, id).changes);
    return removed;
  });
}

/** Counts documents pinned to a session. */
export function pinCount(db: DatabaseSync, sessionId: string): number {
  return COUNT.one(
    prepared(db, "SELECT count(*) AS n FROM docs_session_pins WHERE session_id = ?").get(sessionId),
  ).n;
}

/** Reads a served suggestion set. (Both backends read it with this reader.) */
export const SERVED: RowReader<{ served: string }> = new RowReader<{ served: string }>(
  "served suggestions",
  {
    served: "text",
  },
);

/** The most recent served suggestion set for a session and normalized query (JSON text). */
export function lastServedSuggestions(
  db: DatabaseSync,
  sessionId: string,
  queryKey: string,
): string | undefined {
  return SERVED.optional(
    prepared(
      db,
      `SELECT served FROM docs_suggestions_served WHERE session_id = ? AND query_key = ?
     ORDER BY id DESC LIMIT 1`,
    ).get(sessionId, queryKey),
  )?.served;
}

/** Records a served suggestion set, keeping only the newest 25 per session. */
export function recordServedSuggestions(
  db: DatabaseSync,
  sessionId: string,
  queryKey: string,
  served: string,
  now: number,
): void {
  return writing(db, () => {
    prepared(
      db,
      "INSERT INTO docs_suggestions_served (session_id, query_key, served, ts) VALUES (?, ?, ?, ?)",
    ).run(sessionId, queryKey, served, now);
    prepared(
      db,
      `DELETE FROM docs_suggestions_served WHERE session_id = ? AND id NOT IN
         (SELECT id FROM docs_suggestions_served WHERE session_id = ? ORDER BY id DESC LIMIT 25)`,
    ).run(sessionId, sessionId);
  });
}
