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

/** Reads a project's stored state (on either backend). */
export const PROJECT_STATE = new RowReader<{ state: string; refreshed_at: number }>(
  "project state",
  {
    state: "text",
    refreshed_at: "number",
  },
);

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
  saveKeyed(db, "project_state", [root, state, refreshedAt]);
}

/** Reads the snapshot last injected into a session (on either backend). */
export const INJECTION = new RowReader<{ snapshot: string; ts: number }>("injection", {
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
  saveKeyed(db, "injections", [sessionId, snapshot, now]);
}

/** A table holding one row per key: a project's state, a session's last injection. */
export type KeyedTable = "project_state" | "injections";

/** The columns of a {@linkcode KeyedTable}'s rows: its key, its value and their time. */
export const KEYED_COLUMNS: Readonly<Record<KeyedTable, readonly [string, string, string]>> = {
  project_state: ["root", "state", "refreshed_at"],
  injections: ["session_id", "snapshot", "ts"],
};

/**
 * The statement writing the row of a key in `table`, replacing what the row held; `mark`
 * writes the n-th placeholder (SQLite's `?` by default), so both backends run it.
 */
export function saveKeyedSql(table: KeyedTable, mark: (n: number) => string = () => "?"): string {
  const [key, ...rest] = KEYED_COLUMNS[table];
  return `INSERT INTO ${table} (${KEYED_COLUMNS[table].join(", ")})
    VALUES (${mark(1)}, ${mark(2)}, ${mark(3)})
    ON CONFLICT (${key}) DO UPDATE SET ${rest.map((c) => `${c} = excluded.${c}`).join(", ")}`;
}

/** Writes the row of a key in a {@linkcode KeyedTable}, replacing what the row held. */
function saveKeyed(
  db: DatabaseSync,
  table: KeyedTable,
  values: readonly [key: string, value: string, time: number],
): void {
  writing(db, () => {
    prepared(db, saveKeyedSql(table)).run(...values);
  });
}
