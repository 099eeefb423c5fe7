/**
 * Opens the one SQLite file every Vantage process shares, through Deno's
 * built-in `node:sqlite`: WAL so readers never block the writer, a busy
 * timeout so two writers queue instead of failing, foreign keys on, and the
 * schema brought up to date before anything else touches it.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { VantageError } from "../core/errors.ts";
import { type Migration, MIGRATIONS } from "./migrations.ts";

/** The SQLite connection type, re-exported so callers never import node:sqlite themselves. */
export type { DatabaseSync } from "node:sqlite";

/** Options for {@linkcode openDatabase}. */
export interface OpenOptions {
  /** Open without write access (SQLite itself refuses every write). */
  readOnly?: boolean;
  /** Milliseconds to wait on a locked database before failing (default 5000). */
  busyTimeoutMs?: number;
  /** Migrations to apply (default: all of Vantage's). */
  migrations?: readonly Migration[];
}

/**
 * Opens (creating when needed) the database at `path` and applies pending
 * migrations. A read-only open never migrates and fails clearly when the
 * file does not exist yet.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./database.ts";
 * const db = openDatabase(":memory:");
 * db.prepare("SELECT 1 AS one").get(); // { one: 1 }
 * db.close();
 * ```
 */
export function openDatabase(path: string, options: OpenOptions = {}): DatabaseSync {
  const readOnly = options.readOnly ?? false;
  if (!readOnly && path !== ":memory:") {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw new VantageError(
        "unavailable",
        `cannot create the data folder ${dirname(path)}: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  }
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, {
      readOnly,
      timeout: options.busyTimeoutMs ?? 5000,
      enableForeignKeyConstraints: true,
    });
  } catch (error) {
    throw new VantageError("unavailable", `cannot open the database ${path}: ${messageOf(error)}`, {
      cause: error,
      details: { path },
    });
  }
  if (readOnly) return db;
  try {
    // WAL is a property of the file; setting it again is a no-op.
    if (path !== ":memory:") db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    migrate(db, options.migrations ?? MIGRATIONS);
  } catch (error) {
    db.close();
    if (error instanceof VantageError) throw error;
    throw new VantageError(
      "unavailable",
      `cannot prepare the database ${path}: ${messageOf(error)}`,
      {
        cause: error,
        details: { path },
      },
    );
  }
  return db;
}

/** The highest migration version applied to `db` (0 for a new file). */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number } | undefined;
  return row?.user_version ?? 0;
}

/**
 * Applies every migration newer than the file's `user_version`, each in its
 * own immediate transaction so two processes opening a new file at once
 * cannot both apply the same step.
 */
export function migrate(db: DatabaseSync, migrations: readonly Migration[]): void {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (const migration of ordered) {
    if (schemaVersion(db) >= migration.version) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Re-check under the write lock: another process may have won the race.
      if (schemaVersion(db) >= migration.version) {
        db.exec("COMMIT");
        continue;
      }
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw new VantageError(
        "internal_error",
        `migration ${migration.version} (${migration.name}) failed: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
}

/** Runs `work` inside one immediate transaction, rolling back on any error. */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
