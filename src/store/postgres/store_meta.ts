/**
 * What belongs to no area on PostgreSQL, as on SQLite (../store_meta.ts,
 * ../change_marks.ts): store-wide settings, and the change feed's high-water marks.
 *
 * @module
 */
import { CHANGE_MARKS, type ChangeMarks } from "../change_marks.ts";
import { RowReader } from "../rows.ts";
import type { PgQueryable } from "./connection.ts";

const VALUE = new RowReader<{ value: string }>("store setting", { value: "text" });

/** The value stored under `key`, if any. */
export async function getStoreMeta(q: PgQueryable, key: string): Promise<string | undefined> {
  return VALUE.optional((await q.query("SELECT value FROM store_meta WHERE key = $1", [key]))[0])
    ?.value;
}

/** Stores `value` under `key`, replacing what was there. */
export async function setStoreMeta(q: PgQueryable, key: string, value: string): Promise<void> {
  await q.query(
    `INSERT INTO store_meta (key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [key, value],
  );
}

/**
 * The three marks, each an index lookup: the session feed's position is `seq` (SQLite's
 * rowid), so a new session is one whose `seq` is past the mark.
 */
export async function changeMarks(q: PgQueryable): Promise<ChangeMarks> {
  return CHANGE_MARKS.one(
    (await q.query(
      `SELECT coalesce((SELECT max(seq) FROM sessions), 0) AS session_rowid,
         coalesce((SELECT max(last_emitted_at) FROM anomalies), 0) AS anomaly_emitted_at,
         coalesce((SELECT max(id) FROM build_runs), 0) AS build_id`,
    ))[0],
  );
}
