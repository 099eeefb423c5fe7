/**
 * The worker that checkpoints `serve`'s store (started by
 * `startCheckpointer` in checkpointer.ts): a passive checkpoint every
 * interval on its own connection, which waits for no reader or writer.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { workerScope } from "../core/module_worker.ts";

/** What the checkpointer asks: start checkpointing a store, or stop. */
export type CheckpointRequest =
  | { type: "start"; path: string; intervalMs: number }
  | { type: "stop" };

/** The worker's answer to `stop`, once its connection is closed. */
export type CheckpointReply = { type: "stopped" };

const scope = workerScope<CheckpointRequest, CheckpointReply>();
let db: DatabaseSync | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "start") {
    const store = new DatabaseSync(message.path, { timeout: 0 });
    db = store;
    timer = setInterval(() => {
      try {
        store.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch {
        // Another process's checkpoint, or a reader in the way: the next tick catches up.
      }
    }, message.intervalMs);
  } else {
    clearInterval(timer);
    try {
      db?.close();
    } catch {
      // Closing is best effort on the way out.
    }
    scope.postMessage({ type: "stopped" });
  }
};
