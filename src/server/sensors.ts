/**
 * What the daemon senses with: perception (the anomaly rules, the context
 * answers, and the project sensors it starts as projects become active:
 * file watcher, git poller, project indexer), and the store watch that
 * announces rows other writers add (sessions, anomalies, build runs).
 *
 * @module
 */
import { readEnv } from "../core/config.ts";
import type { Logger } from "../core/log.ts";
import { PerceptionEngine } from "../perception/engine.ts";
import type { DatabaseSync } from "../store/database.ts";
import { storeChangeSource, watchChanges } from "./change_watch.ts";
import type { EventBus } from "./event_bus.ts";
import type { HookPerception } from "./hook_pipeline.ts";
import type { TelemetryPerception } from "./telemetry_intake.ts";
import type { OutcomePerception } from "./transcript_tailing.ts";
import { sqliteStore } from "../store/store.ts";

/** The running sensors. */
export interface Sensors {
  /** Perception, for the hook pipeline, the tailers and the telemetry intake. */
  readonly perception: HookPerception & OutcomePerception & TelemetryPerception;
  /** Stops the store watch and every project sensor. */
  stop(): void;
}

/** What {@linkcode startSensors} needs. */
export interface SensorsOptions {
  /** The store. */
  db: DatabaseSync;
  /** Where the store watch publishes. */
  events: EventBus;
  /** Folders never watched (the user's home: watching it would cost more than it tells). */
  refuseWatching: readonly string[];
  /** Where failures are logged. */
  log: Logger;
}

/**
 * Starts perception (context answers unless `VANTAGE_DISABLE_INJECTION=1`)
 * and the store watch.
 *
 * @example
 * ```ts ignore
 * const sensors = startSensors({ db, events, refuseWatching: [paths.userHome], log });
 * sensors.perception.onHookEvent(event);
 * ```
 */
export function startSensors(options: SensorsOptions): Sensors {
  const { db } = options;
  const perception = new PerceptionEngine({
    store: sqliteStore(db),
    db,
    log: options.log,
    inject: readEnv("VANTAGE_DISABLE_INJECTION") !== "1",
    refuseWatching: options.refuseWatching,
  });
  const watch = watchChanges(storeChangeSource(sqliteStore(db)), options.events);
  return {
    perception,
    stop() {
      watch.stop();
      perception.close();
    },
  };
}
