/**
 * What a store connection's owner releases with it. A feature that keeps
 * files open per connection (the document vector indexes' column files)
 * registers their release here; whoever closes the connection runs the
 * releases first, without importing, and so loading, the feature that holds
 * them.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

const RELEASES = new WeakMap<DatabaseSync, Map<string, () => void>>();

/**
 * Registers `release` to run when `db`'s owner calls {@linkcode releaseConnection}; a second
 * registration under the same `name` replaces the first.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { releaseConnection, releaseOnClose } from "./connection_releases.ts";
 * const db = new DatabaseSync(":memory:");
 * releaseOnClose(db, "example files", () => console.log("released"));
 * releaseConnection(db); // prints "released"
 * db.close();
 * ```
 */
export function releaseOnClose(db: DatabaseSync, name: string, release: () => void): void {
  let releases = RELEASES.get(db);
  if (releases === undefined) {
    releases = new Map();
    RELEASES.set(db, releases);
  }
  releases.set(name, release);
}

/**
 * Runs and forgets every release registered for `db`, before it closes. Each runs even when
 * an earlier one throws; the first error is thrown after all have run.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { releaseConnection } from "./connection_releases.ts";
 * const db = new DatabaseSync(":memory:");
 * releaseConnection(db); // nothing registered: nothing to do
 * db.close();
 * ```
 */
export function releaseConnection(db: DatabaseSync): void {
  const releases = RELEASES.get(db);
  if (releases === undefined) return;
  RELEASES.delete(db);
  let failure: { error: unknown } | undefined;
  for (const release of releases.values()) {
    try {
      release();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}
