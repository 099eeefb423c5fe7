/**
 * What the telemetry reads share: the window a read covers, the agent
 * filter, and nearest-rank percentiles (the smallest value with at least p%
 * of the values at or below it), computed in SQL with window functions so no
 * value list leaves the database.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A time window and the agents it covers. */
export interface TelemetryWindow {
  /** Start, ms (inclusive). */
  since: number;
  /** End, ms (exclusive). */
  until: number;
  /** Only these agents (undefined: all). */
  agents?: readonly string[];
}

/** The window's parameters and its agent filter: `ts >= ? AND ts < ? ${agents}`. */
function windowFilter(
  window: TelemetryWindow,
): { params: Array<string | number>; agents: string } {
  const params: Array<string | number> = [window.since, window.until];
  if (window.agents === undefined) return { params, agents: "" };
  params.push(...window.agents);
  return { params, agents: `AND agent IN (${window.agents.map(() => "?").join(", ") || "NULL"})` };
}

/**
 * The rows `reader` reads from the query `sql` builds around the window's agent filter
 * (`ts >= ? AND ts < ? ${agents}`): the window's parameters are bound first, then `more`.
 */
export function windowRows<T extends object>(
  db: DatabaseSync,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: (agents: string) => string,
  ...more: SQLInputValue[]
): T[] {
  const { params, agents } = windowFilter(window);
  return reader.all(prepared(db, sql(agents)).all(...params, ...more));
}

/** The one row an aggregate over the window answers (see {@linkcode windowRows}). */
export function windowRow<T extends object>(
  db: DatabaseSync,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: (agents: string) => string,
): T {
  const { params, agents } = windowFilter(window);
  return reader.one(prepared(db, sql(agents)).get(...params));
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

const PERCENTILE = new RowReader<PercentileRow>("percentile", {
  key: "text",
  bucket: "number",
  n: "number",
  p50: "number?",
  p95: "number?",
});

/**
 * p50 and p95 of `value` per `key` (and bucket of `bucketMs`, 0 for none) over rows of `table`
 * in the window where the value is known.
 */
export function percentiles(
  db: DatabaseSync,
  table: "telemetry_model_calls" | "telemetry_tool_calls",
  key: string,
  value: string,
  window: TelemetryWindow,
  bucketMs: number,
): PercentileRow[] {
  const bucket = bucketMs > 0 ? bucketOf(bucketMs) : "0";
  return windowRows(db, PERCENTILE, window, (agents) =>
    `WITH v AS (
      SELECT ${key} AS key, ${bucket} AS bucket, ${value} AS v FROM ${table}
      WHERE ts >= ? AND ts < ? AND ${value} IS NOT NULL ${agents}
    ), r AS (
      SELECT key, bucket, v,
        row_number() OVER (PARTITION BY key, bucket ORDER BY v) AS rn,
        count(*) OVER (PARTITION BY key, bucket) AS n
      FROM v
    )
    SELECT key, bucket, n,
      max(CASE WHEN rn = ${rank(50, "n")} THEN v END) AS p50,
      max(CASE WHEN rn = ${rank(95, "n")} THEN v END) AS p95
    FROM r GROUP BY key, bucket ORDER BY key, bucket`);
}
