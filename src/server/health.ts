/**
 * The daemon's health facts for `/api/health`: degraded while damage is
 * recorded (found by a verification, met by any process of this data home,
 * or by the structural check at start), with uptime and counters beside.
 *
 * @module
 */
import { readStoreHealth, summarizeHealth } from "../store/store_health.ts";

/** The live counters the facts report. */
export interface HealthSources {
  /** The data home. */
  home: string;
  /** When the daemon started, ms. */
  started: number;
  /** Hooks stored so far. */
  hooksStored(): number;
  /** OTLP exports stored so far. */
  telemetryExports(): number;
  /** Open live-event streams. */
  liveSubscribers(): number;
  /** Hooks forwarded to a team server (`serve --upstream`), when forwarding. */
  upstream?(): Record<string, unknown>;
}

/**
 * The health facts of a daemon, read fresh on every call.
 *
 * @example
 * ```ts ignore
 * const health = healthFacts({ home, started: Date.now(), hooksStored: () => 0,
 *   telemetryExports: () => 0, liveSubscribers: () => 0 });
 * health().status; // "ok"
 * ```
 */
export function healthFacts(sources: HealthSources): () => Record<string, unknown> {
  return () => {
    const summary = summarizeHealth(readStoreHealth(sources.home));
    return {
      status: summary.status,
      reasons: summary.reasons,
      uptime_ms: Date.now() - sources.started,
      hooks_stored: sources.hooksStored(),
      telemetry_exports: sources.telemetryExports(),
      pid: Deno.pid,
      live_subscribers: sources.liveSubscribers(),
      ...(sources.upstream === undefined ? {} : { upstream: sources.upstream() }),
    };
  };
}
