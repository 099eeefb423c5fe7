/**
 * Store-wide settings kept in `store_meta` (key → text), such as the fingerprint of the
 * prices the stored costs were computed with.
 *
 * @module
 */
import { type DatabaseSync, writing } from "./database.ts";
import { RowReader } from "./rows.ts";
import { prepared } from "./statements.ts";

const VALUE = new RowReader<{ value: string }>("store setting", { value: "text" });

/** The value stored under `key`, if any. */
export function getStoreMeta(db: DatabaseSync, key: string): string | undefined {
  return VALUE.optional(prepared(db, "SELECT value FROM store_meta WHERE key = ?").get(key))
    ?.value;
}

/** Stores `value` under `key`, replacing what was there. */
export function setStoreMeta(db: DatabaseSync, key: string, value: string): void {
  writing(db, () => {
    prepared(
      db,
      "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(key, value);
  });
}
