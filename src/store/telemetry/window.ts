/**
 * What the telemetry reads share: the window a read covers, the agent
 * filter, and nearest-rank percentiles (the smallest value with at least p%
 * of the values at or below it), computed in SQL with window functions so no
 * value list leaves the database. The reads' statements are built around a
 * window's conditions on either backend ({@linkcode WindowSql}), so
 * PostgreSQL's store (../postgres/telemetry/) runs the same ones.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { builtRow, builtRows, type SqlParams } from "../params.ts";
import { RowReader } from "../rows.ts";

/** A time window and the agents it covers. */
export interface TelemetryWindow {
  /** Start, ms (inclusive). */
  since: number;
  /** End, ms (exclusive). */
  until: number;
  /** Only these agents (undefined: all). */
  agents?: readonly string[];
}

/**
 * A window's conditions in a statement being built on either backend (see ../params.ts): its
 * values are the statement's first; a read adds its own with `p.add`.
 */
export interface WindowSql {
  /** The statement's parameters and its backend's spellings. */
  p: SqlParams;
  /** The time condition: `ts >= <since> AND ts < <until>`. */
  range: string;
  /** The agent filter with its leading AND, or "" for every agent. */
  agents: string;
}

/** A read's statement, built around a window's conditions (on either backend). */
export type WindowStatement = (w: WindowSql) => string;

/** The conditions of `window` over time column `ts`, its values added to `p` first. */
export function windowSql(window: TelemetryWindow, p: SqlParams, ts = "ts"): WindowSql {
  const range = `${ts} >= ${p.add(window.since)} AND ${ts} < ${p.add(window.until)}`;
  const agents = window.agents === undefined ? "" : `AND ${p.oneOf("agent", window.agents)}`;
  return { p, range, agents };
}

/** The rows `reader` reads from the statement `sql` builds around the window. */
export function windowRows<T extends object>(
  db: DatabaseSync,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: WindowStatement,
): T[] {
  return builtRows(db, reader, (p) => sql(windowSql(window, p)));
}

/** The one row an aggregate over the window answers (see {@linkcode windowRows}). */
export function windowRow<T extends object>(
  db: DatabaseSync,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: WindowStatement,
): T {
  return builtRow(db, reader, (p) => sql(windowSql(window, p)));
}

/** The SQL of a bucket start of `bucketMs` (at least 1 ms) for a row's `ts`. */
export function bucketOf(bucketMs: number): string {
  const step = Math.max(1, Math.trunc(bucketMs));
  return `(ts / ${step}) * ${step}`;
}

/** The 1-based rank of the p-th percentile (p in whole percent) among `n` sorted values. */
function rank(p: number, n: string): string {
  return `((${p} * ${n} + 99) / 100)`;
}

/** Percentiles of one value per group and bucket. */
export interface PercentileRow {
  /** Group (model or tool). */
  key: string;
  /** Bucket start, ms (0 when not bucketed). */
  bucket: number;
  /** Values counted. */
  n: number;
  /** Median. */
  p50: number | null;
  /** 95th percentile. */
  p95: number | null;
}

/** Reads {@linkcode PercentileRow} rows (on either backend). */
export const PERCENTILE = new RowReader<PercentileRow>("percentile", {
  key: "text",
  bucket: "number",
  n: "number",
  p50: "number?",
  p95: "number?",
});

/**
 * The statement of p50 and p95 of `value` per `key` (and bucket of `bucketMs`, 0 for none)
 * over rows of `table` in the window where the value is known (either backend).
 */
export function percentilesSql(
  table: "telemetry_model_calls" | "telemetry_tool_calls",
  key: string,
  value: string,
  bucketMs: number,
): WindowStatement {
  const bucket = bucketMs > 0 ? bucketOf(bucketMs) : "0";
  return (w) =>
    `WITH v AS (
      SELECT ${key} AS key, ${bucket} AS bucket, ${value} AS v FROM ${table}
      WHERE ${w.range} AND ${value} IS NOT NULL ${w.agents}
    ), r AS (
      SELECT key, bucket, v,
        row_number() OVER (PARTITION BY key, bucket ORDER BY v) AS rn,
        count(*) OVER (PARTITION BY key, bucket) AS n
      FROM v
    )
    SELECT key, bucket, n,
      max(CASE WHEN rn = ${rank(50, "n")} THEN v END) AS p50,
      max(CASE WHEN rn = ${rank(95, "n")} THEN v END) AS p95
    FROM r GROUP BY key, bucket, n ORDER BY ${w.p.bytewise("key")}, bucket`;
}
