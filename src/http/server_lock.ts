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

function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch (error) {
    // EPERM means it exists but is someone else's.
    return error instanceof Deno.errors.PermissionDenied;
  }
}

/** Takes the lock or fails with `conflict` naming the running owner. */
export async function acquireServerLock(home: string): Promise<ServerLock> {
  await Deno.mkdir(home, { recursive: true });
  const path = join(home, "serve.lock");
  const info: LockInfo = { pid: Deno.pid, started_at: Date.now() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await Deno.writeTextFile(path, JSON.stringify(info), { createNew: true });
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
      if (owner !== undefined && owner.pid !== Deno.pid && alive(owner.pid)) {
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
