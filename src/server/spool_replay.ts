/**
 * Replaying the spool: hooks a client could not hand over in time wait in
 * the spool file; the daemon stores them at start, every few seconds while
 * it runs, and once more as it stops, so a payload spooled meanwhile lands.
 *
 * @module
 */
import type { Eventually } from "../core/eventually.ts";
import type { Logger } from "../core/log.ts";
import { type ReplayOptions, replaySpool, type SpoolEntry } from "../agent/hooks/spool.ts";
import type { HookTaken } from "./hook_pipeline.ts";

/** The running replay. */
export interface SpoolReplay {
  /** Replays whatever is spooled now (never throws: failures are logged). */
  replay(): Promise<void>;
  /** Stops the periodic replay; {@linkcode SpoolReplay.replay} still works. */
  stop(): void;
}

/** What {@linkcode startSpoolReplay} needs. */
export interface SpoolReplayOptions {
  /** The spool file. */
  spool: string;
  /** Stores one spooled delivery (SQLite: at once). */
  take(entry: SpoolEntry): Eventually<HookTaken>;
  /** Where rejections and failures are logged. */
  log: Logger;
  /** How often to replay, ms (default 5000). */
  intervalMs?: number;
  /** How entries are read and failures counted (see `ReplayOptions`). */
  replay?: ReplayOptions;
}

/**
 * Replays the spool once, then keeps replaying it on an interval.
 *
 * @example
 * ```ts ignore
 * const spool = await startSpoolReplay({ spool: paths.spool, take: pipeline.takeNow, log });
 * spool.stop();
 * await spool.replay(); // the last one
 * ```
 */
export async function startSpoolReplay(options: SpoolReplayOptions): Promise<SpoolReplay> {
  const { log } = options;
  const replay = async (): Promise<void> => {
    try {
      const counts = await replaySpool(options.spool, async (entry) => {
        const result = await options.take(entry);
        if (!result.stored && !result.duplicate) {
          log.warn("spooled hook rejected", { reason: result.reason });
        }
      }, (entry, error) => {
        log.error("spooled hook failed; kept for the next replay", {
          delivery_id: entry.delivery_id.slice(0, 64),
          error: String(error),
        });
      }, options.replay);
      if (counts.entries > 0 || counts.failed > 0) {
        log.info("replayed spooled hooks", { ...counts });
      }
    } catch (error) {
      log.error("spool replay failed", { error: String(error) });
    }
  };
  await replay();
  let replaying = false;
  const timer = setInterval(async () => {
    if (replaying) return;
    replaying = true;
    await replay();
    replaying = false;
  }, options.intervalMs ?? 5_000);
  return { replay, stop: () => clearInterval(timer) };
}
