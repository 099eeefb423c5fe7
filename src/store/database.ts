/**
 * Opens the one SQLite file every Vantage process shares, through Deno's
 * built-in `node:sqlite`: WAL so readers never block the writer, a busy
 * timeout so two writers queue instead of failing, foreign keys on, and the
 * schema brought up to date before anything else touches it.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { VantageError } from "../core/errors.ts";
import {
  makeFilesPrivate,
  PRIVATE_FILE_MODE,
  PRIVATE_FOLDER_MODE,
  sqliteFiles,
} from "../core/private_files.ts";
import { type Migration, MIGRATIONS } from "./migrations.ts";
import { numberColumn, RowReader } from "./rows.ts";
import { isBusyError, isCorruptionError } from "./sqlite_errors.ts";
import { prepared } from "./statements.ts";

export { isBusyError, isCorruptionError };

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
      // A folder made here holds the store: only its owner may enter it.
      if (!existsSync(dirname(path))) {
        mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_FOLDER_MODE });
      }
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
  if (path !== ":memory:") WRITER_LOCKS.set(db, writerLockOf(path));
  // Before WAL mode makes its -wal and -shm files: SQLite gives them the database file's mode.
  if (path !== ":memory:") makeFilesPrivate(...sqliteFiles(path));
  try {
    // WAL is a property of the file; setting it again is a no-op.
    if (path !== ":memory:") db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    if (path !== ":memory:") {
      // Checkpoints run after a write has let go of the writer lock (see {@linkcode transaction}),
      // never inside its COMMIT, where SQLite's own would keep every other writer waiting.
      db.exec("PRAGMA wal_autocheckpoint = 0");
    }
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

const MAIN_FILE = new RowReader<{ file: string }>("database file", { file: "text" });

/**
 * The file of a store connection; undefined for an in-memory store.
 *
 * @example
 * ```ts
 * import { openDatabase, storeFilePath } from "./database.ts";
 * storeFilePath(openDatabase(":memory:")); // undefined
 * ```
 */
export function storeFilePath(db: DatabaseSync): string | undefined {
  const file = MAIN_FILE.optional(
    prepared(db, "SELECT file FROM pragma_database_list WHERE name = 'main'").get(),
  )?.file ?? "";
  return file === "" || file === ":memory:" ? undefined : file;
}

/** The versions of every migration applied to `db`, ascending. */
export function appliedMigrations(db: DatabaseSync): number[] {
  // Not cached: a migration changes the schema under its own check, and this runs once per open.
  const exists = db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
  ).get();
  if (exists === undefined) return [];
  return numberColumn(
    db.prepare("SELECT version FROM schema_migrations ORDER BY version").all(),
    "version",
  );
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
      // A rollback that fails (SQLite already rolled back) must not hide why the step failed.
      if (db.isTransaction) {
        try {
          db.exec("ROLLBACK");
        } catch {
          // The step's own error below says what went wrong.
        }
      }
      throw new VantageError(
        "internal_error",
        `migration ${migration.version} (${migration.name}) failed: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }
}

/**
 * Write transactions a connection commits between two passive checkpoints it
 * runs itself; 0 leaves checkpoints to someone else (`serve` runs them on a
 * worker, so a hook never pays for one).
 */
const CHECKPOINT_EVERY = new WeakMap<DatabaseSync, { every: number; since: number }>();

/** How often (in commits) `db` checkpoints after its writes; 0: never itself. Default 16. */
export function setCheckpointInterval(db: DatabaseSync, commits: number): void {
  CHECKPOINT_EVERY.set(db, { every: commits, since: 0 });
}

/**
 * After a commit, outside the writer lock: now and then copies the WAL into
 * the database file. Passive, so it waits for no reader or writer and other
 * writers carry on meanwhile; a checkpoint another process is running makes
 * this one a no-op.
 */
function checkpointAfterCommit(db: DatabaseSync): void {
  let state = CHECKPOINT_EVERY.get(db);
  if (state === undefined) {
    state = { every: 16, since: 0 };
    CHECKPOINT_EVERY.set(db, state);
  }
  if (state.every === 0 || ++state.since < state.every) return;
  state.since = 0;
  try {
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // Busy with another checkpoint, or a reader in the way: the next one catches up.
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
  /**
   * The transaction ended without this process holding the write lock any
   * more (SQLite rolled it back by itself after an I/O, disk-full or
   * corruption error): another writer may already have appended, so nothing
   * may be undone; what was written stays unreferenced.
   */
  abandon(): void;
  /** After COMMIT: work that must wait until the transaction's rows are visible. */
  afterCommit(): void;
}

/**
 * The store's cross-process writer lock: an exclusive `flock` on
 * `<store>.lock`, held by one connection of one process at a time around
 * each write transaction. SQLite's own write lock keeps the file sound; this
 * one keeps writers in line. A writer waiting on SQLite's lock polls with
 * sleeps of up to 100 ms and can be overtaken every time by a busy writer
 * that takes the lock again at once, so a hook could wait seconds behind a
 * large add; a writer waiting on this lock is woken by the kernel the moment
 * it is released.
 *
 * Waking is not enough on a busy machine: a large add lets go and takes the
 * lock again a millisecond later, before the woken waiter has been given a
 * core. So a writer announces that it waits, by holding a shared `flock` on
 * `<store>.wait` until it has the writer lock, and a long-running writer,
 * between two of its transactions, lets everyone announced go first
 * ({@linkcode letWaitingWritersIn}). One pair of lock files per store, opened
 * once per thread and shared by its connections (a nested wait on the same
 * file would never end).
 */
class WriterLock {
  #file: Deno.FsFile | undefined;
  #waiting: Deno.FsFile | undefined;
  #depth = 0;

  constructor(readonly path: string) {}

  acquire(): void {
    if (this.#depth > 0) {
      this.#depth++;
      return;
    }
    try {
      this.#file ??= openLockFile(this.path);
      this.#waiting ??= openLockFile(this.path.replace(/\.lock$/, ".wait"));
      // Announce the wait only when there is one: the common, uncontended case takes one lock.
      if (!this.#file.tryLockSync(true)) {
        this.#waiting.lockSync(false);
        try {
          this.#file.lockSync(true);
        } finally {
          this.#waiting.unlockSync();
        }
      }
    } catch (error) {
      throw new VantageError(
        "unavailable",
        `cannot take the store's writer lock ${this.path}: ${messageOf(error)}`,
        { cause: error, details: { file: this.path } },
      );
    }
    this.#depth = 1;
  }

  release(): void {
    if (this.#depth === 0) return;
    if (--this.#depth > 0) return;
    try {
      this.#file?.unlockSync();
    } catch {
      // Closing the file releases it too.
      this.#file?.close();
      this.#file = undefined;
    }
  }

  /** Whether a writer of another process (or thread) has announced that it waits. */
  othersWaiting(): boolean {
    try {
      this.#waiting ??= openLockFile(this.path.replace(/\.lock$/, ".wait"));
      if (!this.#waiting.tryLockSync(true)) return true;
      this.#waiting.unlockSync();
    } catch {
      // Politeness only.
    }
    return false;
  }

  /** Resolves once every writer that announced it waits has had its turn. */
  async letWaitersIn(): Promise<void> {
    if (this.#depth > 0) return;
    try {
      this.#waiting ??= openLockFile(this.path.replace(/\.lock$/, ".wait"));
      if (this.#waiting.tryLockSync(true)) {
        this.#waiting.unlockSync();
        return;
      }
      // Someone waits: this resolves when the last announced waiter has the writer lock. It does
      // not block the event loop (the wait runs on another thread).
      await this.#waiting.lock(true);
      this.#waiting.unlockSync();
    } catch {
      // Politeness only: a failure here costs fairness, never correctness.
    }
  }
}

function openLockFile(path: string): Deno.FsFile {
  return Deno.openSync(path, { read: true, write: true, create: true, mode: PRIVATE_FILE_MODE });
}

/**
 * Inside long-running work on `db`: whether another writer waits for the
 * writer lock, so the work should commit and let it in
 * ({@linkcode letWaitingWritersIn}). Two system calls; cheap enough to ask
 * after every file.
 */
export function writersWaiting(db: DatabaseSync): boolean {
  return WRITER_LOCKS.get(db)?.othersWaiting() ?? false;
}

/**
 * Between two transactions of long-running work on `db` (outside any):
 * resolves once the writers of other processes (and threads) that wait for
 * the store's writer lock have had their turn, or at once when none waits.
 */
export async function letWaitingWritersIn(db: DatabaseSync): Promise<void> {
  await WRITER_LOCKS.get(db)?.letWaitersIn();
}

/** This thread's writer lock of each store file. */
const LOCKS_BY_FILE = new Map<string, WriterLock>();
/** The writer lock of each read-write store connection. */
const WRITER_LOCKS = new WeakMap<DatabaseSync, WriterLock>();

function writerLockOf(path: string): WriterLock {
  const file = `${path}.lock`;
  let lock = LOCKS_BY_FILE.get(file);
  if (lock === undefined) {
    lock = new WriterLock(file);
    LOCKS_BY_FILE.set(file, lock);
  }
  return lock;
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

/**
 * Runs `work` inside one immediate transaction, rolling back on any error.
 *
 * The immediate transaction is the store's cross-process writer lock: every
 * write of every process (and every append to the files beside the store
 * that rows point into) happens inside one, so writers queue on SQLite's
 * lock (up to the busy timeout) instead of interleaving. `work` must be
 * synchronous: a transaction left open across an `await` would let another
 * request on the same connection run its statements inside it, so a promise
 * returned by `work` is refused and rolled back. Nested calls are refused too
 * (SQLite has one transaction per connection). A rollback never hides the
 * error that caused it.
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  if (db.isTransaction) {
    throw new VantageError(
      "internal_error",
      "a store transaction was started while another was open on the same connection",
    );
  }
  const lock = WRITER_LOCKS.get(db);
  if (lock === undefined) return runTransaction(db, work);
  lock.acquire();
  let result: T;
  try {
    result = runTransaction(db, work);
  } finally {
    lock.release();
  }
  checkpointAfterCommit(db);
  return result;
}

/**
 * Runs `work` inside one immediate transaction, or inside the one already
 * open on `db`: for store functions that write and may be called either way.
 */
export function writing<T>(db: DatabaseSync, work: () => T): T {
  return db.isTransaction ? work() : transaction(db, work);
}

/**
 * Inside a transaction: runs `work` so that, when it throws, only what it
 * wrote is undone and the transaction goes on (the error is rethrown).
 */
export function savepoint<T>(db: DatabaseSync, work: () => T): T {
  db.exec("SAVEPOINT vantage_part");
  try {
    const result = work();
    db.exec("RELEASE vantage_part");
    return result;
  } catch (error) {
    if (db.isTransaction) {
      try {
        db.exec("ROLLBACK TO vantage_part");
        db.exec("RELEASE vantage_part");
      } catch (undo) {
        attachNote(error, `undoing its writes also failed: ${messageOf(undo)}`);
      }
    }
    throw error;
  }
}

function runTransaction<T>(db: DatabaseSync, work: () => T): T {
  try {
    db.exec("BEGIN IMMEDIATE");
  } catch (error) {
    throw storeFailure(error, "could not start a write", db.location() ?? undefined);
  }
  const participants = new Set<TransactionParticipant>();
  PARTICIPANTS.set(db, participants);
  try {
    const result = work();
    if (isPromiseLike(result)) {
      // Let the stray promise's own failure surface nowhere: the transaction is already refused.
      Promise.resolve(result).catch(() => {});
      throw new VantageError(
        "internal_error",
        "a store transaction's work returned a promise; transactions must not span an await",
      );
    }
    for (const participant of participants) participant.beforeCommit();
    db.exec("COMMIT");
    PARTICIPANTS.delete(db);
    for (const participant of participants) participant.afterCommit();
    return result;
  } catch (error) {
    if (PARTICIPANTS.get(db) === participants) {
      PARTICIPANTS.delete(db);
      endFailedTransaction(db, participants, error);
    }
    throw error;
  }
}

/**
 * Rolls back after `cause`, keeping `cause` the error the caller sees. When
 * SQLite already rolled back by itself (the write lock is gone), nothing
 * outside the database is undone: another writer may have appended since.
 */
function endFailedTransaction(
  db: DatabaseSync,
  participants: Set<TransactionParticipant>,
  cause: unknown,
): void {
  if (!db.isTransaction) {
    for (const participant of participants) participant.abandon();
    return;
  }
  try {
    for (const participant of participants) participant.beforeRollback();
  } catch (undo) {
    attachNote(cause, `undoing the files it wrote also failed: ${messageOf(undo)}`);
  }
  try {
    db.exec("ROLLBACK");
  } catch (rollback) {
    attachNote(cause, `the rollback also failed: ${messageOf(rollback)}`);
  }
}

/** Adds a sentence to an error's message, so a second failure is reported without replacing it. */
function attachNote(error: unknown, note: string): void {
  if (error instanceof Error) {
    try {
      error.message = `${error.message} (${note})`;
    } catch {
      // A frozen error keeps its own message.
    }
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/**
 * A store error with a kind and the file named: `unavailable` for a lock
 * held past the busy timeout, `internal_error` naming the file for damage.
 */
export function storeFailure(error: unknown, doing: string, file?: string): Error {
  if (error instanceof VantageError) return error;
  const where = file === undefined ? "the store" : file;
  if (isBusyError(error)) {
    return new VantageError(
      "unavailable",
      `${doing}: ${where} is busy (another process held its write lock past the busy timeout); try again`,
      { cause: error, ...(file === undefined ? {} : { details: { file } }) },
    );
  }
  if (isCorruptionError(error)) {
    return new VantageError(
      "internal_error",
      `${doing}: ${where} is damaged (${
        messageOf(error)
      }); run 'vantage doctor --store' for details and 'vantage repair'`,
      { cause: error, ...(file === undefined ? {} : { details: { file } }) },
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
