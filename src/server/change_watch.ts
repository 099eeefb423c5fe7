/**
 * Announces rows other writers add: new sessions, anomalies and build runs
 * may come from another process (`vantage build`, a sensor) as well as from
 * this one, so the server polls a few cheap high-water marks and publishes
 * what lies beyond them. Hook events and transcript messages are announced
 * where this server stores them and need no polling.
 *
 * @module
 */
import type { Eventually } from "../core/eventually.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import type { EventBus } from "./event_bus.ts";

/** The reads the watcher needs (given by the server, which owns the store). */
export interface ChangeSource {
  /** Current marks. */
  marks(): Eventually<{ session_rowid: number; anomaly_emitted_at: number; build_id: number }>;
  /** Sessions created after a rowid. */
  sessionsAfter(rowid: number, limit: number): Eventually<Array<Record<string, unknown>>>;
  /** Anomalies emitted after a time. */
  anomaliesAfter(ts: number, limit: number): Eventually<Array<Record<string, unknown>>>;
  /** Build runs after an id. */
  buildsAfter(id: number, limit: number): Eventually<Array<Record<string, unknown>>>;
}

/** A running watcher. */
export interface ChangeWatch {
  /** Checks once now (also what the timer does). */
  check(): Promise<void>;
  /** Stops polling. */
  stop(): void;
}

/** Most rows of one kind announced per check: a burst is summarized by its newest rows. */
const PER_CHECK = 50;

/**
 * Starts polling `source` every `intervalMs` and publishing to `bus`. A check that has not
 * finished (a server backend answering slowly) makes the next beat skip.
 */
export function watchChanges(source: ChangeSource, bus: EventBus, intervalMs = 1000): ChangeWatch {
  let marks: Awaited<ReturnType<ChangeSource["marks"]>> | undefined;
  const check = async (): Promise<void> => {
    const next = await source.marks();
    // The first look, or nobody listening: move the marks along without reading rows.
    if (marks === undefined || bus.subscribers === 0) {
      marks = next;
      return;
    }
    if (next.session_rowid > marks.session_rowid) {
      for (const row of await source.sessionsAfter(marks.session_rowid, PER_CHECK)) {
        bus.publish("session", row);
      }
    }
    if (next.anomaly_emitted_at > marks.anomaly_emitted_at) {
      for (const row of await source.anomaliesAfter(marks.anomaly_emitted_at, PER_CHECK)) {
        bus.publish("anomaly", row);
      }
    }
    if (next.build_id > marks.build_id) {
      for (const row of await source.buildsAfter(marks.build_id, PER_CHECK)) {
        bus.publish("build", { ...row, status: row.exit_code === 0 ? "passing" : "failing" });
      }
    }
    marks = next;
  };
  let checking = false;
  const beat = async () => {
    if (checking) return;
    checking = true;
    try {
      await check();
    } catch {
      // A busy, closing or absent store skips one beat; the next check catches up.
    } finally {
      checking = false;
    }
  };
  void beat();
  const timer = setInterval(beat, intervalMs);
  return { check, stop: () => clearInterval(timer) };
}

/** The change source of a store, on either backend. */
export function storeChangeSource(store: Store<StoreMode>): ChangeSource {
  return {
    marks: () => store.changeMarks(),
    sessionsAfter: (rowid, limit) =>
      store.agent.sessionsAfter(rowid, limit) as Eventually<Array<Record<string, unknown>>>,
    anomaliesAfter: (ts, limit) =>
      store.perception.anomaliesEmittedAfter(ts, limit) as Eventually<
        Array<Record<string, unknown>>
      >,
    buildsAfter: (id, limit) =>
      store.perception.buildRunsAfter(id, limit) as Eventually<Array<Record<string, unknown>>>,
  };
}
