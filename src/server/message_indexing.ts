/**
 * The message index the daemon keeps current on a worker (session search
 * reads it). A damaged index must not keep the daemon down: hooks,
 * documents and the dashboard go on, and session search goes without new
 * messages until `vantage repair` rebuilds it.
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import { maxMessageId } from "../store/agent/messages.ts";
import type { DatabaseSync } from "../store/database.ts";
import { MessageIndexer } from "../store/agent/message_index.ts";
import { messageIndexPath } from "../store/agent/schema.ts";
import { isDamageError, noticeDamageIn } from "../store/store_health.ts";

/** How long stopping waits for the index to catch up, ms. */
const CATCH_UP_MS = 5_000;

/** The running message indexing. */
export interface MessageIndexing {
  /** New messages were stored: index them (bursts coalesce). */
  kick(): void;
  /** Waits (a bounded time) for everything stored to be indexed, then stops the worker. */
  stop(): Promise<void>;
}

/** What {@linkcode startMessageIndexing} needs. */
export interface MessageIndexingOptions {
  /** The store. */
  db: DatabaseSync;
  /** The store's file. */
  database: string;
  /** The data home, where damage is recorded. */
  home: string;
  /** Where failures are logged. */
  log: Logger;
}

/**
 * Starts the index worker and indexes anything an earlier process stored
 * but did not index; without a usable index, kicks and stops do nothing.
 *
 * @example
 * ```ts ignore
 * const indexing = await startMessageIndexing({ db, database: paths.database, home, log });
 * indexing.kick();
 * ```
 */
export async function startMessageIndexing(
  options: MessageIndexingOptions,
): Promise<MessageIndexing> {
  const { db, database, home, log } = options;
  const file = messageIndexPath(database);
  let indexer: MessageIndexer | undefined;
  try {
    indexer = await MessageIndexer.start(database, () => maxMessageId(db), (message) => {
      log.error("message indexing failed", { error: message });
      noticeDamageIn(home, new Error(message), file);
    });
  } catch (error) {
    if (!isDamageError(error)) throw error;
    log.error("the message index is damaged; messages are not indexed until it is repaired", {
      file,
      error: String(error),
    });
    noticeDamageIn(home, error, file);
  }
  indexer?.kick();
  return {
    kick: () => indexer?.kick(),
    async stop() {
      if (indexer === undefined) return;
      await Promise.race([
        indexer.caughtUp(),
        new Promise((resolve) => setTimeout(resolve, CATCH_UP_MS)),
      ]).catch(() => {});
      indexer.close();
    },
  };
}
