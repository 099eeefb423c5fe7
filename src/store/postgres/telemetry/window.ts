/**
 * What the PostgreSQL telemetry reads share, as SQLite's (../../telemetry/window.ts): the
 * window a read covers with its agent filter, bucket starts, and nearest-rank percentiles
 * computed in SQL with window functions. Text keys sort in byte order (`COLLATE "C"`), as
 * SQLite sorts them, whatever the database's locale.
 *
 * @module
 */
import type { PercentileRow, TelemetryWindow } from "../../telemetry/window.ts";
import { RowReader } from "../../rows.ts";
import { Params } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";

/** A window's conditions: `range` (`ts >= $1 AND ts < $2`), `agents` (`AND agent = ANY(…)` or ""). */
export interface WindowSql {
  /** The parameters so far; add more with `p.add`. */
  p: Params;
  /** The time range condition. */
  range: string;
  /** The agent filter, with its leading AND (empty for every agent). */
  agents: string;
}

/** The window's parameters and conditions. */
export function windowSql(window: TelemetryWindow): WindowSql {
  const p = new Params();
  const range = `ts >= ${p.add(window.since)} AND ts < ${p.add(window.until)}`;
  const agents = window.agents === undefined
    ? ""
    : `AND agent = ANY(${p.add(window.agents)}::text[])`;
  return { p, range, agents };
}

/** The rows `reader` reads from the query `sql` builds around the window. */
export async function windowRows<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: (w: WindowSql) => string,
): Promise<T[]> {
  const w = windowSql(window);
  const text = sql(w);
  return reader.all(await q.query(text, w.p.values));
}

/** The one row an aggregate over the window answers. */
export async function windowRow<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: (w: WindowSql) => string,
): Promise<T> {
  const w = windowSql(window);
  const text = sql(w);
  return reader.one((await q.query(text, w.p.values))[0]);
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
  q: PgQueryable,
  table: "telemetry_model_calls" | "telemetry_tool_calls",
  key: string,
  value: string,
  window: TelemetryWindow,
  bucketMs: number,
): Promise<PercentileRow[]> {
  const bucket = bucketMs > 0 ? bucketOf(bucketMs) : "0";
  return windowRows(q, PERCENTILE, window, (w) =>
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
    FROM r GROUP BY key, bucket, n ORDER BY key COLLATE "C", bucket`);
}
