/**
 * `serve`'s checkpoints, on a worker thread. Copying the WAL into the
 * database file costs tens of milliseconds and a sync now and then; on the
 * server's own thread that would be time a hook waits for its answer. The
 * worker runs a passive checkpoint every second on its own connection (it
 * waits for no reader or writer; writers carry on meanwhile), and the
 * server's store connection runs none itself. The worker's code is
 * checkpoint_worker.ts.
 *
 * @module
 */
import { startModuleWorker } from "../core/module_worker.ts";
import type { CheckpointReply, CheckpointRequest } from "./checkpoint_worker.ts";

/** A running checkpoint worker. */
export interface Checkpointer {
  /** Stops the worker once its current checkpoint (if any) is done. */
  stop(): Promise<void>;
}

/**
 * Starts checkpointing the store at `path` every `intervalMs` on a worker.
 * Without workers (a restricted runtime, or one that may not read the
 * worker's module) it does nothing: the store's own connections then
 * checkpoint after their writes.
 */
export function startCheckpointer(path: string, intervalMs = 1000): Checkpointer | undefined {
  let worker: Worker;
  try {
    worker = startModuleWorker(new URL("./checkpoint_worker.ts", import.meta.url), "checkpoint");
  } catch {
    return undefined;
  }
  worker.onerror = (event) => {
    // A failed checkpoint worker must not take the server down; the WAL is checkpointed at stop.
    event.preventDefault();
  };
  const post = (request: CheckpointRequest) => worker.postMessage(request);
  post({ type: "start", path, intervalMs });
  return {
    stop() {
      return new Promise<void>((resolve) => {
        const timeout = setTimeout(finish, 2000);
        function finish() {
          clearTimeout(timeout);
          worker.terminate();
          resolve();
        }
        worker.onmessage = (_event: MessageEvent<CheckpointReply>) => finish();
        post({ type: "stop" });
      });
    },
  };
}
