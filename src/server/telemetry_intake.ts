/**
 * The daemon's OpenTelemetry intake: one OTLP export decoded, mapped and
 * stored, counted for the health facts, and damage met on the write
 * recorded for the data home. The decoder (protobufjs and the OTLP schema)
 * loads with the first export, so a daemon no agent exports to never pays
 * for it.
 *
 * @module
 */
import type { ModelPrice } from "../agent/usage/pricing.ts";
import type { OtlpEncoding } from "../agent/otlp/otlp_decode.ts";
import type { OtlpIntakeResult } from "../agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../agent/otlp/otlp_schema.ts";
import type { DatabaseSync } from "../store/database.ts";
import { noticeDamageIn } from "../store/store_health.ts";

/** The telemetry intake of one daemon. */
export interface TelemetryIntake {
  /** Stores one export; throws `OtlpBadData` (storing nothing) for a body that is none. */
  take(signal: OtlpSignal, body: Uint8Array, encoding: OtlpEncoding): Promise<OtlpIntakeResult>;
  /** Exports stored since the daemon started. */
  readonly exports: number;
}

/** What {@linkcode createTelemetryIntake} needs. */
export interface TelemetryIntakeOptions {
  /** The store. */
  db: DatabaseSync;
  /** The data home, where damage met on a write is recorded. */
  home: string;
  /** The user's price overrides, for calls counted from telemetry. */
  prices?: Readonly<Record<string, ModelPrice>>;
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
  return {
    async take(signal, body, encoding) {
      const { takeOtlpExport } = await import("../agent/otlp/otlp_intake.ts");
      try {
        const result = takeOtlpExport(options.db, signal, body, encoding, {
          prices: options.prices,
        });
        exports++;
        return result;
      } catch (error) {
        noticeDamageIn(options.home, error);
        throw error;
      }
    },
    get exports() {
      return exports;
    },
  };
}
