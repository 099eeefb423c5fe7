/**
 * What perception keeps between hooks: each project's sensed state, and the
 * context snapshot last injected into each session (so the next injection
 * says only what changed).
 *
 * @module
 */
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader, textColumn } from "../rows.ts";
import { prepared } from "../statements.ts";

const PROJECT_STATE = new RowReader<{ state: string; refreshed_at: number }>("project state", {
  state: "text",
  refreshed_at: "number",
});

/** The stored project state of a root, if indexed. */
export function getProjectState(
  db: DatabaseSync,
  root: string,
): { state: string; refreshed_at: number } | undefined {
  return PROJECT_STATE.optional(
    prepared(db, "SELECT state, refreshed_at FROM project_state WHERE root = ?").get(root),
  );
}

/** The indexed root that contains `path` most closely, if any. */
export function projectRootFor(db: DatabaseSync, path: string): string | undefined {
  const roots = textColumn(prepared(db, "SELECT root FROM project_state").all(), "root");
  let best: string | undefined;
  for (const root of roots) {
    if (
      (path === root || path.startsWith(root + "/")) &&
      (best === undefined || root.length > best.length)
    ) {
      best = root;
    }
  }
  return best;
}

/** Saves a project's indexed state. */
export function saveProjectState(
  db: DatabaseSync,
  root: string,
  state: string,
  refreshedAt: number,
): void {
  saveKeyed(db, "project_state", ["root", "state", "refreshed_at"], [root, state, refreshedAt]);
}

const INJECTION = new RowReader<{ snapshot: string; ts: number }>("injection", {
  snapshot: "text",
  ts: "number",
});

/** The snapshot last injected into a session, if any. */
export function getInjection(
  db: DatabaseSync,
  sessionId: string,
): { snapshot: string; ts: number } | undefined {
  return INJECTION.optional(
    prepared(db, "SELECT snapshot, ts FROM injections WHERE session_id = ?").get(sessionId),
  );
}

/** Saves what was just injected into a session. */
export function saveInjection(
  db: DatabaseSync,
  sessionId: string,
  snapshot: string,
  now: number,
): void {
  saveKeyed(db, "injections", ["session_id", "snapshot", "ts"], [sessionId, snapshot, now]);
}

/**
 * Writes the row of a key in a table holding one row per key (a project's state, a session's
 * last injection), replacing what the row held.
 */
function saveKeyed(
  db: DatabaseSync,
  table: "project_state" | "injections",
  columns: readonly [key: string, value: string, time: string],
  values: readonly [key: string, value: string, time: number],
): void {
  const [key, ...rest] = columns;
  writing(db, () => {
    prepared(
      db,
      `INSERT INTO ${table} (${columns.join(", ")}) VALUES (?, ?, ?)
       ON CONFLICT (${key}) DO UPDATE SET ${rest.map((c) => `${c} = excluded.${c}`).join(", ")}`,
    ).run(...values);
  });
}
