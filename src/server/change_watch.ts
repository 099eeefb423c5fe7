/**
 * Announces rows other writers add: new sessions, anomalies and build runs
 * may come from another process (`vantage build`, a sensor) as well as from
 * this one, so the server polls a few cheap high-water marks and publishes
 * what lies beyond them. Hook events and transcript messages are announced
 * where this server stores them and need no polling.
 *
 * @module
 */
import type { EventBus } from "./event_bus.ts";

/** The reads the watcher needs (given by the server, which owns the store). */
export interface ChangeSource {
  /** Current marks. */
  marks(): { session_rowid: number; anomaly_emitted_at: number; build_id: number };
  /** Sessions created after a rowid. */
  sessionsAfter(rowid: number, limit: number): Array<Record<string, unknown>>;
  /** Anomalies emitted after a time. */
  anomaliesAfter(ts: number, limit: number): Array<Record<string, unknown>>;
  /** Build runs after an id. */
  buildsAfter(id: number, limit: number): Array<Record<string, unknown>>;
}

/** A running watcher. */
export interface ChangeWatch {
  /** Checks once now (also what the timer does). */
  check(): void;
  /** Stops polling. */
  stop(): void;
}

/** Most rows of one kind announced per check: a burst is summarized by its newest rows. */
const PER_CHECK = 50;

/** Starts polling `source` every `intervalMs` and publishing to `bus`. */
export function watchChanges(source: ChangeSource, bus: EventBus, intervalMs = 1000): ChangeWatch {
  let marks = source.marks();
  const check = (): void => {
    // Nobody listening: move the marks along without reading rows.
    if (bus.subscribers === 0) {
      marks = source.marks();
      return;
    }
    const next = source.marks();
    if (next.session_rowid > marks.session_rowid) {
      for (const row of source.sessionsAfter(marks.session_rowid, PER_CHECK)) {
        bus.publish("session", row);
      }
    }
    if (next.anomaly_emitted_at > marks.anomaly_emitted_at) {
      for (const row of source.anomaliesAfter(marks.anomaly_emitted_at, PER_CHECK)) {
        bus.publish("anomaly", row);
      }
    }
    if (next.build_id > marks.build_id) {
      for (const row of source.buildsAfter(marks.build_id, PER_CHECK)) {
        bus.publish("build", { ...row, status: row.exit_code === 0 ? "passing" : "failing" });
      }
    }
    marks = next;
  };
  const timer = setInterval(() => {
    try {
      check();
    } catch {
      // A busy or closing store skips one beat; the next check catches up.
    }
  }, intervalMs);
  return { check, stop: () => clearInterval(timer) };
}
