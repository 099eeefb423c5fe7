/**
 * High-water marks of the tables whose new rows the server announces over its event stream,
 * and the rows that came after a mark.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";

/** The high-water marks of the tables whose new rows the server announces. */
export interface ChangeMarks {
  /** Newest session rowid. */
  session_rowid: number;
  /** Latest anomaly emission, ms. */
  anomaly_emitted_at: number;
  /** Newest build run id. */
  build_id: number;
}

/** Reads the change marks: three index lookups, cheap enough to poll every second. */
export function changeMarks(db: DatabaseSync): ChangeMarks {
  return db.prepare(
    `SELECT coalesce((SELECT max(rowid) FROM sessions), 0) AS session_rowid,
       coalesce((SELECT max(last_emitted_at) FROM anomalies), 0) AS anomaly_emitted_at,
       coalesce((SELECT max(id) FROM build_runs), 0) AS build_id`,
  ).get() as unknown as ChangeMarks;
}

/** Sessions created after a rowid, oldest first. */
export function sessionsAfter(
  db: DatabaseSync,
  rowid: number,
  limit: number,
): Array<{ session_id: string; agent: string; project: string | null; started_at: number }> {
  return db.prepare(
    `SELECT session_id, agent, project, started_at FROM sessions WHERE rowid > ?
     ORDER BY rowid LIMIT ?`,
  ).all(rowid, limit) as never;
}

/** Anomalies emitted after a time, oldest first. */
export function anomaliesEmittedAfter(
  db: DatabaseSync,
  ts: number,
  limit: number,
): Array<
  {
    session_id: string;
    project: string | null;
    kind: string;
    severity: string;
    last_emitted_at: number;
  }
> {
  return db.prepare(
    `SELECT session_id, project, kind, severity, last_emitted_at FROM anomalies
     WHERE last_emitted_at > ? ORDER BY last_emitted_at LIMIT ?`,
  ).all(ts, limit) as never;
}

/** Build runs recorded after an id, oldest first. */
export function buildRunsAfter(
  db: DatabaseSync,
  id: number,
  limit: number,
): Array<
  { id: number; tag: string; project: string | null; exit_code: number; started_at: number }
> {
  return db.prepare(
    `SELECT id, tag, coalesce(project, cwd) AS project, exit_code, started_at FROM build_runs
     WHERE id > ? ORDER BY id LIMIT ?`,
  ).all(id, limit) as never;
}
