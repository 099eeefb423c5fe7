/**
 * Store-wide settings kept in `store_meta` (key → text), such as the fingerprint of the
 * prices the stored costs were computed with.
 *
 * @module
 */
import { type DatabaseSync, writing } from "./database.ts";

/** The value stored under `key`, if any. */
export function getStoreMeta(db: DatabaseSync, key: string): string | undefined {
  const row = db.prepare("SELECT value FROM store_meta WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row?.value;
}

/** Stores `value` under `key`, replacing what was there. */
export function setStoreMeta(db: DatabaseSync, key: string, value: string): void {
  writing(db, () => {
    db.prepare(
      "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(key, value);
  });
}
