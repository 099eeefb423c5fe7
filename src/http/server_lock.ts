/**
 * One `serve` per data home: a lock file holding the owner's pid and port.
 * A stale lock (its process gone) is taken over.
 *
 * @module
 */
import { join } from "node:path";
import { VantageError } from "../core/errors.ts";

/** A held server lock. */
export interface ServerLock {
  /** Records the port the owner listens on. */
  record(port: number): Promise<void>;
  /** Releases the lock. */
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

/** Reads the lock file of a data home, if any. */
export async function readServerLock(home: string): Promise<LockInfo | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(join(home, "serve.lock"))) as LockInfo;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's owner still serves: its port answers /api/health with
 * its pid. Asking the server (not the OS) needs no permission to signal
 * processes, and a recycled pid cannot fool it.
 */
async function alive(owner: LockInfo): Promise<boolean> {
  if (owner.port === undefined) {
    // Still starting up (no port yet): trust a fresh lock, take over an old one.
    return Date.now() - owner.started_at < 30_000;
  }
  try {
    const response = await fetch(`http://127.0.0.1:${owner.port}/api/health`, {
      signal: AbortSignal.timeout(1000),
    });
    const body = await response.json() as { pid?: number };
    return body.pid === owner.pid;
  } catch {
    return false;
  }
}

/** Takes the lock or fails with `conflict` naming the running owner. */
export async function acquireServerLock(home: string): Promise<ServerLock> {
  await Deno.mkdir(home, { recursive: true });
  const path = join(home, "serve.lock");
  const info: LockInfo = { pid: Deno.pid, started_at: Date.now() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await Deno.writeTextFile(path, JSON.stringify(info), { createNew: true, mode: 0o600 });
      return {
        record: async (port) => {
          info.port = port;
          await Deno.writeTextFile(path, JSON.stringify(info));
        },
        release: async () => {
          const current = await readServerLock(home);
          if (current?.pid === Deno.pid) await Deno.remove(path).catch(() => {});
        },
      };
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      const owner = await readServerLock(home);
      if (owner !== undefined && owner.pid !== Deno.pid && await alive(owner)) {
        throw new VantageError(
          "conflict",
          `Vantage is already serving this data home (pid ${owner.pid}${
            owner.port ? `, port ${owner.port}` : ""
          })`,
          { details: { ...owner } },
        );
      }
      await Deno.remove(path).catch(() => {});
    }
  }
  throw new VantageError("conflict", `could not take the server lock ${path}`);
}
