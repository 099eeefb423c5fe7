/**
 * Anomaly suppression: the same problem (fingerprint) is said once, then stays silent for ten
 * minutes — unless it was resolved in between (the finding disappeared: the agent re-read the
 * file, the command passed), in which case it may be said again at once.
 *
 * A pure state machine over an append-only emission log: the caller persists the entries this
 * returns and passes the log back next time. Previews (MCP `get_anomalies`, dashboards) call it
 * and simply do not persist, so polling never consumes the window.
 *
 * @module
 */

import type { AnomalyFinding } from "./anomaly_types.ts";

/** One line of the emission log. */
export interface EmissionEntry {
  /** Identity of the finding (`AnomalyFinding.fingerprint`). */
  fingerprint: string;
  /** `emitted`: delivered to the agent; `resolved`: the condition cleared. */
  event: "emitted" | "resolved";
  /** ms since the epoch. */
  ts: number;
  /** For `emitted`: when this episode of the problem was first said. */
  first_emitted_at?: number;
}

/** Where one fingerprint stands, folded from the log. */
export interface SuppressionState {
  /** Time of the latest emission. */
  last_emitted_at?: number;
  /** First emission of the current episode. */
  first_emitted_at?: number;
  /** Resolved after its last emission. */
  resolved: boolean;
}

/** A finding cleared for delivery. */
export type EmittedFinding = AnomalyFinding & { first_emitted_at: number };

/** What {@linkcode applySuppression} decided. */
export interface SuppressionResult {
  /** Deliver these now. */
  emit: EmittedFinding[];
  /** Present but inside their silence window. */
  silenced: AnomalyFinding[];
  /** Append these to the log (emissions and resolutions), in order. */
  entries: EmissionEntry[];
}

/** Options for {@linkcode applySuppression}. */
export interface SuppressionOptions {
  /** Silence window. Default 10 minutes. */
  windowMs?: number;
  /** Fingerprints known to be resolved (in addition to those whose finding disappeared). */
  resolved?: Iterable<string>;
}

/** Default silence window. */
export const SUPPRESSION_WINDOW_MS = 10 * 60_000;

/**
 * Folds an emission log (in append order) into per-fingerprint state.
 *
 * @example
 * ```ts
 * foldEmissionLog([{ fingerprint: "a", event: "emitted", ts: 1, first_emitted_at: 1 }]).get("a");
 * // { last_emitted_at: 1, first_emitted_at: 1, resolved: false }
 * ```
 */
export function foldEmissionLog(log: readonly EmissionEntry[]): Map<string, SuppressionState> {
  const states = new Map<string, SuppressionState>();
  for (const entry of log) {
    const state = states.get(entry.fingerprint) ?? { resolved: false };
    if (entry.event === "emitted") {
      state.last_emitted_at = entry.ts;
      state.first_emitted_at = entry.first_emitted_at ?? state.first_emitted_at ?? entry.ts;
      state.resolved = false;
    } else if (state.last_emitted_at !== undefined) {
      state.resolved = true;
    }
    states.set(entry.fingerprint, state);
  }
  return states;
}

/**
 * Decides which findings to deliver now.
 *
 * - never said → emit;
 * - said, then resolved → emit at once (a new episode: `first_emitted_at` restarts);
 * - said less than `windowMs` ago and not resolved → silent;
 * - said longer ago → emit again, keeping the episode's `first_emitted_at`.
 *
 * Fingerprints that were emitted, not resolved, and are absent from `findings` get a
 * `resolved` entry: their condition cleared.
 *
 * @example
 * ```ts
 * const first = applySuppression(findings, [], now);
 * log.push(...first.entries);
 * applySuppression(findings, log, now + 60_000).emit; // [] — silent for 10 minutes
 * ```
 */
export function applySuppression(
  findings: readonly AnomalyFinding[],
  log: readonly EmissionEntry[],
  now: number,
  options: SuppressionOptions = {},
): SuppressionResult {
  const windowMs = options.windowMs ?? SUPPRESSION_WINDOW_MS;
  const states = foldEmissionLog(log);
  const entries: EmissionEntry[] = [];
  const explicitlyResolved = new Set(options.resolved ?? []);
  for (const fp of explicitlyResolved) {
    const state = states.get(fp);
    if (state?.last_emitted_at !== undefined && !state.resolved) {
      state.resolved = true;
      entries.push({ fingerprint: fp, event: "resolved", ts: now });
    }
  }
  const present = new Set(findings.map((f) => f.fingerprint));
  for (const [fp, state] of states) {
    if (state.last_emitted_at !== undefined && !state.resolved && !present.has(fp)) {
      state.resolved = true;
      entries.push({ fingerprint: fp, event: "resolved", ts: now });
    }
  }
  const emit: EmittedFinding[] = [];
  const silenced: AnomalyFinding[] = [];
  const handled = new Set<string>();
  for (const finding of findings) {
    if (handled.has(finding.fingerprint)) continue;
    handled.add(finding.fingerprint);
    const state = states.get(finding.fingerprint);
    let first: number | undefined;
    if (state?.last_emitted_at === undefined || state.resolved) {
      first = now;
    } else if (now - state.last_emitted_at >= windowMs) {
      first = state.first_emitted_at ?? now;
    }
    if (first === undefined) {
      silenced.push(finding);
      continue;
    }
    emit.push({ ...finding, first_emitted_at: first });
    entries.push({
      fingerprint: finding.fingerprint,
      event: "emitted",
      ts: now,
      first_emitted_at: first,
    });
  }
  return { emit, silenced, entries };
}
