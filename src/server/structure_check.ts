/**
 * The structural check at start: it reads every page of the store and its
 * index files, seconds on a large store, so it runs on a worker after the
 * daemon already answers, and what it finds damaged is logged (and recorded
 * as the store's health by the check itself).
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import { checkStructureAtStart } from "../docs/store_structure.ts";
import type { DatabaseSync } from "../store/database.ts";

/** A running check. */
export interface StructureCheck {
  /** Cancels the check (if still running) and waits until it has let go of the files. */
  stop(): Promise<void>;
}

/**
 * Starts the check in the background.
 *
 * @example
 * ```ts ignore
 * const check = startStructureCheck(db, log);
 * await check.stop();
 * ```
 */
export function startStructureCheck(db: DatabaseSync, log: Logger): StructureCheck {
  const abort = new AbortController();
  const done = checkStructureAtStart(db, abort.signal).then((checks) => {
    for (const check of checks) {
      if (check.status === "damaged") {
        log.error("store damage found at start", { file: check.path, problems: check.problems });
      }
    }
  }, (error) => {
    if (!abort.signal.aborted) {
      log.error("the structural check at start failed", { error: String(error) });
    }
  });
  return {
    async stop() {
      abort.abort();
      await done;
    },
  };
}
