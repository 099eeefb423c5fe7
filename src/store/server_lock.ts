/**
 * One `serve` per data home. The owner holds an exclusive OS advisory lock
 * (`flock` on Unix, through Deno's `FsFile.tryLock`) on `serve.lock` for its
 * whole life; the file's JSON names its pid and, once listening, its port.
 * The OS drops the lock when the owner's process ends in any way (even
 * `kill -9`), so a lock can be neither stolen from a live server, however
 * busy or frozen, nor left stuck by a dead one.
 *
 * @module
 */
import { makePrivateFolder } from "../core/private_files.ts";
import { join } from "node:path";
import { VantageError } from "../core/errors.ts";

/** The lock file's name inside the data home. */
const LOCK_FILE = "serve.lock";

/**
 * How long a taker keeps trying while only readers hold the lock (each for
 * the instant between probing it and letting go) before giving up.
 */
const READERS_GRACE_MS = 2_000;

/**
 * How long to wait for a live owner's file to name it: it writes its JSON
 * right after taking the lock, so an empty file means that instant.
 */
const NAMING_WAIT_MS = 500;

/** A held server lock. */
export interface ServerLock {
  /** Records the port the owner listens on. */
  record(port: number): Promise<void>;
  /** Releases the lock and removes its file; call it after the listener closed. */
  release(): Promise<void>;
}

/** What the lock file says. */
export interface LockInfo {
  /** Owner's pid. */
  pid: number;
  /** Owner's port, once listening. */
  port?: number;
  /** When it started, ms. */
  started_at: number;
}

/**
 * The running server of a data home, or undefined when none holds its lock
 * (no file, or the file a killed server left behind). A server still
 * starting has no port yet. Cheap enough for a hook (about 0.1 ms): it opens
 * the file and probes the lock without blocking, and waits only if it
 * catches a server in the instant between taking the lock and writing its name.
 */
export async function readServerLock(home: string): Promise<LockInfo | undefined> {
  const path = join(home, LOCK_FILE);
  // A second look only when the file was replaced under us (a server stopped and another started).
  for (let attempt = 0; attempt < 3; attempt++) {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch {
      return undefined;
    }
    try {
      // A shared lock is granted only when no server holds the exclusive one: then nobody serves.
      // The probe is let go at once; a server starting meanwhile waits for it (see takeLock).
      if (file.tryLockSync(false)) return undefined;
      if (namesSameFile(file, path)) return await nameOwner(file);
    } finally {
      file.close();
    }
  }
  return undefined;
}

/**
 * Takes the data home's lock for this process, or fails with `conflict`
 * naming the live owner's pid and port. Creates the data home (0700) if it
 * is missing; the lock file is 0600.
 */
export async function acquireServerLock(home: string): Promise<ServerLock> {
  await makePrivateFolder(home);
  const path = join(home, LOCK_FILE);
  const file = await takeLock(path);
  const info: LockInfo = { pid: Deno.pid, started_at: Date.now() };
  try {
    tighten(file, path);
    writeInfo(file, info);
  } catch (error) {
    file.close();
    throw error;
  }
  let released = false;
  return {
    record: (port) => {
      info.port = port;
      writeInfo(file, info);
      return Promise.resolve();
    },
    release: () => {
      if (released) return Promise.resolve();
      released = true;
      try {
        // Removed while still held, and only if the path is still ours: a file removed by hand
        // and since taken by another server is left alone. Failing to remove it is harmless
        // (the next server takes a file nobody holds), so only the letting go must happen.
        if (namesSameFile(file, path)) Deno.removeSync(path);
      } catch {
        // Left in place.
      } finally {
        file.close();
      }
      return Promise.resolve();
    },
  };
}

/**
 * Opens the lock file (never truncating it: a live owner may hold it) and
 * takes the exclusive lock, or throws `conflict`.
 */
async function takeLock(path: string): Promise<Deno.FsFile> {
  const deadline = Date.now() + READERS_GRACE_MS;
  for (;;) {
    const file = Deno.openSync(path, { read: true, write: true, create: true, mode: 0o600 });
    let outcome: Probe;
    try {
      outcome = probe(file, path);
    } catch (error) {
      file.close();
      throw error;
    }
    if (outcome === "ours") return file;
    if (outcome === "owned") {
      try {
        throw await conflict(path, file);
      } finally {
        file.close();
      }
    }
    file.close();
    if (Date.now() > deadline) {
      throw new VantageError(
        "conflict",
        `could not take the server lock ${path}: other processes kept it busy for ${READERS_GRACE_MS} ms`,
        { details: { path } },
      );
    }
    // Readers let go within an instant; a jittered pause keeps two takers from moving in step.
    if (outcome === "probed") {
      await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 8));
    }
  }
}

/**
 * What one try on the opened lock file found: `ours` (taken), `owned` (a
 * server holds it), `probed` (only readers' momentary shared locks are in
 * the way) or `moved` (a server that stopped removed that file from the
 * path after it was opened: try the one there now).
 */
type Probe = "ours" | "owned" | "probed" | "moved";

function probe(file: Deno.FsFile, path: string): Probe {
  if (file.tryLockSync(true)) {
    // A stopping server removes its file before letting go of it, so a file locked after that
    // is no longer the one at `path`.
    return namesSameFile(file, path) ? "ours" : "moved";
  }
  // A shared lock is refused only while someone holds the exclusive one: a server, if that file
  // is still the one at `path` (else a taker that will find it moved, as this one does).
  if (!file.tryLockSync(false)) return namesSameFile(file, path) ? "owned" : "moved";
  file.unlockSync();
  return "probed";
}

/** The conflict error naming the owner the file describes. */
async function conflict(path: string, file: Deno.FsFile): Promise<VantageError> {
  const owner = await nameOwner(file);
  if (owner === undefined) {
    return new VantageError(
      "conflict",
      `Vantage is already serving this data home (${path} is locked by a server that has not named itself yet)`,
      { details: { path } },
    );
  }
  const where = owner.port === undefined ? "still starting, no port yet" : `port ${owner.port}`;
  return new VantageError(
    "conflict",
    `Vantage is already serving this data home (pid ${owner.pid}, ${where}); ` +
      `stop it first or use another VANTAGE_HOME`,
    { details: { ...owner, path } },
  );
}

/** The live owner's JSON from a held file, waiting out the instant before it is written. */
async function nameOwner(file: Deno.FsFile): Promise<LockInfo | undefined> {
  const deadline = Date.now() + NAMING_WAIT_MS;
  for (;;) {
    let text: string;
    try {
      text = readAll(file);
    } catch {
      // Where locks also bar reading (Windows), the owner cannot be named.
      return undefined;
    }
    const info = parseInfo(text);
    if (info !== undefined || Date.now() > deadline) return info;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function parseInfo(text: string): LockInfo | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockInfo> | null;
    if (typeof value?.pid !== "number" || typeof value.started_at !== "number") return undefined;
    const info: LockInfo = { pid: value.pid, started_at: value.started_at };
    if (typeof value.port === "number") info.port = value.port;
    return info;
  } catch {
    return undefined;
  }
}

function readAll(file: Deno.FsFile): string {
  file.seekSync(0, Deno.SeekMode.Start);
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(4096);
  for (;;) {
    const read = file.readSync(buffer);
    if (read === null || read === 0) break;
    chunks.push(buffer.slice(0, read));
  }
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * Writes `info` over the held file's contents without emptying it first, so
 * a reader never finds it empty: the JSON is padded with spaces to the
 * file's size (JSON allows them) unless an odd leftover is large, which is
 * cut after the write instead.
 */
function writeInfo(file: Deno.FsFile, info: LockInfo): void {
  const json = JSON.stringify(info);
  const size = file.statSync().size;
  const bytes = new TextEncoder().encode(size <= 4096 ? json.padEnd(size, " ") : json);
  file.seekSync(0, Deno.SeekMode.Start);
  let written = 0;
  while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
  if (bytes.length < size) file.truncateSync(bytes.length);
}

/** Whether `path` still names the open `file` (same inode); true where the OS has no inodes. */
function namesSameFile(file: Deno.FsFile, path: string): boolean {
  const held = file.statSync();
  let current: Deno.FileInfo;
  try {
    current = Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  if (held.ino === null || current.ino === null) return true;
  return held.ino === current.ino && held.dev === current.dev;
}

/** Narrows a lock file an older version created readable by others to 0600. */
function tighten(file: Deno.FsFile, path: string): void {
  const mode = file.statSync().mode;
  if (mode !== null && (mode & 0o077) !== 0) Deno.chmodSync(path, 0o600);
}
