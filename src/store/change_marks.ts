/**
 * The change feed's marks: the high-water marks of the tables whose new
 * rows the server announces (sessions, anomaly emissions, build runs),
 * written by any process. The server polls them and, when one moved, reads
 * what is new through each area's "after" read (`sessionsAfter`,
 * `anomaliesEmittedAfter`, `buildRunsAfter`).
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";
import { RowReader } from "./rows.ts";
import { prepared } from "./statements.ts";

/** The high-water marks of the tables whose new rows the server announces. */
export interface ChangeMarks {
  /** Newest session rowid. */
  session_rowid: number;
  /** Latest anomaly emission, ms. */
  anomaly_emitted_at: number;
  /** Newest build run id. */
  build_id: number;
}

/** How the marks are read (every backend answers these three columns). */
export const CHANGE_MARKS = new RowReader<ChangeMarks>("change marks", {
  session_rowid: "number",
  anomaly_emitted_at: "number",
  build_id: "number",
});

/** The three marks, each an index lookup: cheap enough to poll every second. */
const READ_MARKS = `SELECT coalesce((SELECT max(rowid) FROM sessions), 0) AS session_rowid,
  coalesce((SELECT max(last_emitted_at) FROM anomalies), 0) AS anomaly_emitted_at,
  coalesce((SELECT max(id) FROM build_runs), 0) AS build_id`;

/** Reads the change marks. */
export function changeMarks(db: DatabaseSync): ChangeMarks {
  return CHANGE_MARKS.one(prepared(db, READ_MARKS).get());
}
