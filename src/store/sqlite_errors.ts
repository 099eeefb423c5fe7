/**
 * Telling SQLite's errors apart by what SQLite says. Kept apart from
 * database.ts (which re-exports these) so that the structural check's worker
 * can use them without loading what opening a store needs.
 *
 * @module
 */

const CORRUPTION =
  /database disk image is malformed|file is not a database|malformed database schema/i;

const BUSY = /database is locked|database table is locked|SQLITE_BUSY/i;

/**
 * Whether an error is SQLite reporting a damaged database file.
 *
 * @example
 * ```ts
 * import { isCorruptionError } from "./sqlite_errors.ts";
 * isCorruptionError(new Error("database disk image is malformed")); // true
 * ```
 */
export function isCorruptionError(error: unknown): boolean {
  return CORRUPTION.test(messageOf(error));
}

/**
 * Whether an error is SQLite reporting a lock held too long by another
 * connection.
 *
 * @example
 * ```ts
 * import { isBusyError } from "./sqlite_errors.ts";
 * isBusyError(new Error("database is locked")); // true
 * ```
 */
export function isBusyError(error: unknown): boolean {
  return BUSY.test(messageOf(error));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
