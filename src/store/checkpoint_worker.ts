/**
 * `serve`'s checkpoints, on a worker thread. Copying the WAL into the
 * database file costs tens of milliseconds and a sync now and then; on the
 * server's own thread that would be time a hook waits for its answer. The
 * worker runs a passive checkpoint every second on its own connection (it
 * waits for no reader or writer; writers carry on meanwhile), and the
 * server's store connection runs none itself.
 *
 * @module
 */

const WORKER_SOURCE = `
import { DatabaseSync } from "node:sqlite";
let db;
let timer;
self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "start") {
    db = new DatabaseSync(message.path, { timeout: 0 });
    timer = setInterval(() => {
      try {
        db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch {
        // Another process's checkpoint, or a reader in the way: the next tick catches up.
      }
    }, message.intervalMs);
  } else if (message.type === "stop") {
    clearInterval(timer);
    try {
      db?.close();
    } catch {
      // Closing is best effort on the way out.
    }
    self.postMessage({ type: "stopped" });
  }
};
`;

/** A running checkpoint worker. */
export interface Checkpointer {
  /** Stops the worker once its current checkpoint (if any) is done. */
  stop(): Promise<void>;
}

/**
 * Starts checkpointing the store at `path` every `intervalMs` on a worker.
 * Without workers (a restricted runtime) it does nothing: the store's own
 * connections then checkpoint after their writes.
 */
export function startCheckpointer(path: string, intervalMs = 1000): Checkpointer | undefined {
  let worker: Worker;
  try {
    worker = new Worker(
      `data:application/javascript;base64,${btoa(WORKER_SOURCE)}`,
      { type: "module" },
    );
  } catch {
    return undefined;
  }
  worker.onerror = (event) => {
    // A failed checkpoint worker must not take the server down; the WAL is checkpointed at stop.
    event.preventDefault();
  };
  worker.postMessage({ type: "start", path, intervalMs });
  return {
    stop() {
      return new Promise<void>((resolve) => {
        const timeout = setTimeout(finish, 2000);
        function finish() {
          clearTimeout(timeout);
          worker.terminate();
          resolve();
        }
        worker.onmessage = finish;
        worker.postMessage({ type: "stop" });
      });
    },
  };
}
