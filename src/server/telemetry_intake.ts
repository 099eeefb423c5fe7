/**
 * The daemon's OpenTelemetry intake: OTLP exports decoded, mapped and
 * stored, counted for the health facts, and damage met on the write
 * recorded for the data home.
 *
 * Exports are taken on workers with store connections of their own
 * (telemetry_intake_pool.ts), so the main thread stays free for hooks and a
 * hook waits for one part of an export, not the whole of it. The workers,
 * and the decoder (protobufjs and the OTLP schema) with them, start with
 * the first export, so a daemon no agent exports to never pays for them.
 * Where workers cannot start, exports are taken on the main thread.
 *
 * An export that stored model calls, tool calls or API errors puts its
 * sessions in line for perception's telemetry rules, which run a moment
 * later on the main thread, off the export's own request.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { ModelPrice } from "../agent/usage/pricing.ts";
import type { OtlpEncoding } from "../agent/otlp/otlp_decode.ts";
import type { OtlpIntakeResult, OtlpSender } from "../agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../agent/otlp/otlp_schema.ts";
import type { DatabaseSync } from "../store/database.ts";
import { noticeDamageIn } from "../store/store_health.ts";
import type { EventBus } from "./event_bus.ts";
import { SessionCheckQueue } from "./session_checks.ts";
import type { OtlpIntakePool } from "./telemetry_intake_pool.ts";

/** What the intake asks of perception once a session's telemetry was stored. */
export interface TelemetryPerception {
  /** Runs a session's telemetry rules; the anomalies emitted. */
  onTelemetry(sessionId: string): number;
}

/** The telemetry intake of one daemon. */
export interface TelemetryIntake {
  /**
   * Stores one export as `sender`'s (default: the owner's); throws `OtlpBadData` (storing
   * nothing) for a body that is none, and a `VantageError` of kind `unavailable` when the
   * intake is stopping, has no worker left, or its store is away.
   */
  take(
    signal: OtlpSignal,
    body: Uint8Array,
    encoding: OtlpEncoding,
    sender?: OtlpSender,
  ): Promise<OtlpIntakeResult>;
  /** Exports stored since the daemon started. */
  readonly exports: number;
  /**
   * Stops the workers (exports being stored finish first) and drops the sessions still
   * waiting for their telemetry rules.
   */
  stop(): Promise<void>;
}

/** What {@linkcode createTelemetryIntake} needs. */
export interface TelemetryIntakeOptions {
  /** The store (exports are taken on it where workers cannot start). */
  db: DatabaseSync;
  /** The data home, where damage met on a write is recorded. */
  home: string;
  /** The user's price overrides, for calls counted from telemetry. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Where the telemetry rules run and what they emit is announced (none: they do not run). */
  checks?: {
    /** Perception, whose telemetry rules run. */
    perception: TelemetryPerception;
    /** Where emitted anomalies are published. */
    events: EventBus;
    /** Where a failing check is logged. */
    log: Logger;
    /** Pause before a waiting session is checked, ms (default 1000). */
    delayMs?: number;
  };
  /**
   * The store's file, which the workers open. Without it, every export is taken on the
   * calling thread, on `db`.
   */
  database?: string;
  /** Whether the workers' connections run checkpoints themselves (false beside a checkpointer). */
  checkpoints?: boolean;
  /** Where a failure to start the workers is logged. */
  log?: Logger;
}

/**
 * Creates the intake.
 *
 * @example
 * ```ts ignore
 * const telemetry = createTelemetryIntake({ db, home: paths.home, database: paths.database });
 * await telemetry.take("logs", body, "protobuf");
 * await telemetry.stop();
 * ```
 */
export function createTelemetryIntake(options: TelemetryIntakeOptions): TelemetryIntake {
  const { database } = options;
  let exports = 0;
  const checks = options.checks;
  const waiting = checks === undefined ? undefined : new SessionCheckQueue((sessionId) => {
    try {
      const emitted = checks.perception.onTelemetry(sessionId);
      if (emitted > 0) checks.events.publish("anomaly", { session_id: sessionId, emitted });
    } catch (error) {
      checks.log.error("perception failed on telemetry", { error: String(error) });
    }
  }, { delayMs: checks.delayMs });
  let stopped = false;
  let pool: Promise<OtlpIntakePool | undefined> | undefined;
  const workers = (): Promise<OtlpIntakePool | undefined> => {
    if (database === undefined) return Promise.resolve(undefined);
    return pool ??= import("./telemetry_intake_pool.ts").then(({ OtlpIntakePool }) => {
      try {
        return new OtlpIntakePool({
          database,
          home: options.home,
          prices: options.prices,
          checkpoints: options.checkpoints ?? true,
        });
      } catch (error) {
        options.log?.warn("OTLP exports are taken on the main thread", { error: String(error) });
        return undefined;
      }
    });
  };
  /** Puts the sessions of an export that stored calls or errors in line for their rules. */
  const stored = (result: OtlpIntakeResult): OtlpIntakeResult => {
    exports++;
    const counts = result.stored;
    if (counts.model_calls + counts.tool_calls + counts.api_errors > 0) {
      waiting?.add(counts.sessions);
    }
    return result;
  };
  return {
    async take(signal, body, encoding, sender) {
      if (stopped) throw new VantageError("unavailable", "the OTLP intake stopped");
      const running = await workers();
      if (running !== undefined) {
        // A worker records the store damage it meets itself.
        return stored(await running.take(signal, body, encoding, sender));
      }
      const { takeOtlpExport } = await import("../agent/otlp/otlp_intake.ts");
      try {
        return stored(takeOtlpExport(options.db, signal, body, encoding, {
          prices: options.prices,
          ...(sender !== undefined ? { sender } : {}),
        }));
      } catch (error) {
        noticeDamageIn(options.home, error);
        throw error;
      }
    },
    get exports() {
      return exports;
    },
    async stop() {
      stopped = true;
      waiting?.close();
      await (await pool)?.stop();
    },
  };
}
