/**
 * The daemon's OpenTelemetry intake: one OTLP export decoded, mapped and
 * stored, counted for the health facts, and damage met on the write
 * recorded for the data home. The decoder (protobufjs and the OTLP schema)
 * loads with the first export, so a daemon no agent exports to never pays
 * for it. An export that stored model calls, tool calls or API errors puts
 * its sessions in line for perception's telemetry rules, which run a moment
 * later, off the export's own request.
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import type { ModelPrice } from "../agent/usage/pricing.ts";
import type { OtlpEncoding } from "../agent/otlp/otlp_decode.ts";
import type { OtlpIntakeResult } from "../agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../agent/otlp/otlp_schema.ts";
import type { DatabaseSync } from "../store/database.ts";
import { noticeDamageIn } from "../store/store_health.ts";
import type { EventBus } from "./event_bus.ts";
import { SessionCheckQueue } from "./session_checks.ts";

/** What the intake asks of perception once a session's telemetry was stored. */
export interface TelemetryPerception {
  /** Runs a session's telemetry rules; the anomalies emitted. */
  onTelemetry(sessionId: string): number;
}

/** The telemetry intake of one daemon. */
export interface TelemetryIntake {
  /** Stores one export; throws `OtlpBadData` (storing nothing) for a body that is none. */
  take(signal: OtlpSignal, body: Uint8Array, encoding: OtlpEncoding): Promise<OtlpIntakeResult>;
  /** Exports stored since the daemon started. */
  readonly exports: number;
  /** Drops the sessions still waiting for their telemetry rules. */
  stop(): void;
}

/** What {@linkcode createTelemetryIntake} needs. */
export interface TelemetryIntakeOptions {
  /** The store. */
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
}

/**
 * Creates the intake.
 *
 * @example
 * ```ts ignore
 * const telemetry = createTelemetryIntake({ db, home: paths.home });
 * await telemetry.take("logs", body, "protobuf");
 * ```
 */
export function createTelemetryIntake(options: TelemetryIntakeOptions): TelemetryIntake {
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
  return {
    async take(signal, body, encoding) {
      const { takeOtlpExport } = await import("../agent/otlp/otlp_intake.ts");
      try {
        const result = takeOtlpExport(options.db, signal, body, encoding, {
          prices: options.prices,
        });
        exports++;
        const stored = result.stored;
        if (stored.model_calls + stored.tool_calls + stored.api_errors > 0) {
          waiting?.add(stored.sessions);
        }
        return result;
      } catch (error) {
        noticeDamageIn(options.home, error);
        throw error;
      }
    },
    get exports() {
      return exports;
    },
    stop() {
      waiting?.close();
    },
  };
}
