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

/** The versions of every migration applied to `db`, ascending. */
export function appliedMigrations(db: DatabaseSync): number[] {
  const exists = db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
  ).get();
  if (exists === undefined) return [];
  return (db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as Array<
    { version: number }
  >).map((row) => row.version);
}

/** The highest migration version applied to `db` (0 for a new file). */
export function schemaVersion(db: DatabaseSync): number {
  const applied = appliedMigrations(db);
  return applied.length === 0 ? 0 : applied[applied.length - 1];
}

/**
 * Applies every migration not yet recorded in `schema_migrations`, in
 * version order, each in its own immediate transaction so two processes
 * opening a new file at once cannot both apply the same step. Tracking the
 * applied set (not just the highest number) lets separate table families
 * number their migrations independently.
 */
export function migrate(db: DatabaseSync, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const seen = new Set<number>();
  for (const migration of migrations) {
    if (seen.has(migration.version)) {
      throw new VantageError(
        "internal_error",
        `migration version ${migration.version} is defined twice`,
      );
    }
    seen.add(migration.version);
  }
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  let applied = new Set(appliedMigrations(db));
  for (const migration of ordered) {
    if (applied.has(migration.version)) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Re-check under the write lock: another process may have won the race.
      applied = new Set(appliedMigrations(db));
      if (!applied.has(migration.version)) {
        db.exec(migration.sql);
        db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
          .run(
            migration.version,
            migration.name,
            Date.now(),
          );
      }
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

/** Folds the WAL back into the database file, so a stopped server leaves one tidy file. */
export function checkpoint(db: DatabaseSync): void {
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // A reader holding the WAL open just means the checkpoint finishes later.
  }
}

/**
 * Something outside the database that a transaction's work wrote to (the
 * chunk packs), told when the transaction ends so it keeps in step with it.
 */
export interface TransactionParticipant {
  /** Just before COMMIT: make what was written durable. Throwing rolls the transaction back. */
  beforeCommit(): void;
  /**
   * Just before ROLLBACK, while the write lock is still held (so no other
   * writer can have appended after this transaction's writes): undo them.
   */
  beforeRollback(): void;
  /** After COMMIT: work that must wait until the transaction's rows are visible. */
  afterCommit(): void;
}

/** The participants of the transaction {@linkcode transaction} is running on each connection. */
const PARTICIPANTS = new WeakMap<DatabaseSync, Set<TransactionParticipant>>();

/**
 * Joins the transaction {@linkcode transaction} is running on `db`; false
 * when none is (the caller must then keep its writes inside the database).
 */
export function joinTransaction(db: DatabaseSync, participant: TransactionParticipant): boolean {
  const participants = PARTICIPANTS.get(db);
  if (participants === undefined) return false;
  participants.add(participant);
  return true;
}

/** Runs `work` inside one immediate transaction, rolling back on any error. */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  const participants = new Set<TransactionParticipant>();
  PARTICIPANTS.set(db, participants);
  try {
    const result = work();
    for (const participant of participants) participant.beforeCommit();
    db.exec("COMMIT");
    PARTICIPANTS.delete(db);
    for (const participant of participants) participant.afterCommit();
    return result;
  } catch (error) {
    if (PARTICIPANTS.get(db) === participants) {
      PARTICIPANTS.delete(db);
      try {
        for (const participant of participants) participant.beforeRollback();
      } finally {
        db.exec("ROLLBACK");
      }
    }
    throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
