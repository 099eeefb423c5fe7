/**
 * A team server's OpenTelemetry intake: OTLP exports decoded and mapped on
 * workers, stored through the PostgreSQL telemetry store in one write each.
 *
 * Where the work runs: decoding and mapping an export of 1,000 items takes
 * 60–80 ms of CPU, which on the main thread would hold up every hook behind
 * it; handing the mapped records back from a worker costs the main thread a
 * fraction of that (the structured clone of the batch). The write itself is
 * I/O on the pool, awaited, so it blocks nothing. So the workers of
 * telemetry_intake_pool.ts run here without a store file, and the main
 * thread stores what they hand back. Where workers cannot start, exports are
 * decoded on the main thread.
 *
 * An export is one transaction (the store's `storeTelemetryBatch`): a
 * database that goes away mid-export leaves nothing of it, and the client's
 * `unavailable` error reaches the OTLP route as 503, which exporters retry.
 * Its sessions then wait for perception's telemetry rules, as on SQLite.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import type { ModelPrice } from "../agent/usage/pricing.ts";
import type { MappedOtlpExport } from "../agent/otlp/otlp_intake.ts";
import type { TelemetryStore } from "../store/telemetry/telemetry_store.ts";
import type { EventBus } from "./event_bus.ts";
import { SessionCheckQueue } from "./session_checks.ts";
import type { TelemetryIntake } from "./telemetry_intake.ts";
import type { OtlpIntakePool } from "./telemetry_intake_pool.ts";

/** What the intake asks of perception on a server backend (its rules answer later). */
export interface AsyncTelemetryPerception {
  /** Runs a session's telemetry rules; the anomalies emitted. */
  onTelemetry(sessionId: string): Promise<number> | number;
}

/** What {@linkcode createPostgresTelemetryIntake} needs. */
export interface PostgresTelemetryIntakeOptions {
  /** The telemetry store on the server's pool. */
  telemetry: TelemetryStore<"async">;
  /** The data home (the workers' set-up names it; they open no store there). */
  home: string;
  /** The owner's price overrides, for calls counted from telemetry. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Where the telemetry rules run and what they emit is announced (none: they do not run). */
  checks?: {
    /** Perception, whose telemetry rules run. */
    perception: AsyncTelemetryPerception;
    /** Where emitted anomalies are published. */
    events: EventBus;
    /** Where a failing check is logged. */
    log: Logger;
    /** Pause before a waiting session is checked, ms (default 1000). */
    delayMs?: number;
  };
  /** Whether exports are decoded on workers (default true; false: on the calling thread). */
  workers?: boolean;
  /** Where a failure to start the workers is logged. */
  log?: Logger;
}

/**
 * Creates the intake.
 *
 * @example
 * ```ts ignore
 * const telemetry = createPostgresTelemetryIntake({ telemetry: store.telemetry, home });
 * await telemetry.take("logs", body, "protobuf", { person: "ada" });
 * await telemetry.stop();
 * ```
 */
export function createPostgresTelemetryIntake(
  options: PostgresTelemetryIntakeOptions,
): TelemetryIntake {
  let exports = 0;
  let stopped = false;
  const checks = options.checks;
  // The rules of one session after another: each reads and writes through the pool, and a
  // turn of 200 sessions at once would hold every connection hooks need.
  let checking: Promise<void> = Promise.resolve();
  const waiting = checks === undefined ? undefined : new SessionCheckQueue((sessionId) => {
    checking = checking.then(async () => {
      try {
        const emitted = await checks.perception.onTelemetry(sessionId);
        if (emitted > 0) checks.events.publish("anomaly", { session_id: sessionId, emitted });
      } catch (error) {
        checks.log.error("perception failed on telemetry", { error: String(error) });
      }
    });
  }, { delayMs: checks.delayMs });
  let pool: Promise<OtlpIntakePool | undefined> | undefined;
  const workers = (): Promise<OtlpIntakePool | undefined> => {
    if (options.workers === false) return Promise.resolve(undefined);
    return pool ??= import("./telemetry_intake_pool.ts").then(({ OtlpIntakePool }) => {
      try {
        return new OtlpIntakePool({ home: options.home });
      } catch (error) {
        options.log?.warn("OTLP exports are decoded on the main thread", {
          error: String(error),
        });
        return undefined;
      }
    });
  };
  return {
    async take(signal, body, encoding, sender) {
      if (stopped) throw new VantageError("unavailable", "the OTLP intake stopped");
      // The decoder loads with the first export, not with the server.
      const { mapOtlpExport, otlpResultOf } = await import("../agent/otlp/otlp_intake.ts");
      const running = await workers();
      const now = Date.now();
      const mapped: MappedOtlpExport = running !== undefined
        ? await running.map(signal, body, encoding, sender)
        : mapOtlpExport(signal, body, encoding, now, sender);
      const { callPrice } = await import("../agent/usage/usage_pricing.ts");
      const stored = await options.telemetry.storeTelemetryBatch(
        mapped.batch,
        (record) => callPrice(record, options.prices),
        now,
      );
      exports++;
      if (stored.model_calls + stored.tool_calls + stored.api_errors > 0) {
        waiting?.add(stored.sessions);
      }
      return otlpResultOf(mapped, stored);
    },
    get exports() {
      return exports;
    },
    async stop() {
      stopped = true;
      waiting?.close();
      await checking;
      await (await pool)?.stop();
    },
  };
}
