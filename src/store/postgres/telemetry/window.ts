/**
 * How the PostgreSQL telemetry reads run: each read's statement is SQLite's
 * (../../telemetry/*.ts, built around a window's conditions, see ../../telemetry/window.ts),
 * built here with PostgreSQL's parameters and spellings and read with the same row reader.
 *
 * @module
 */
import type { RowReader } from "../../rows.ts";
import { type TelemetryWindow, windowSql, type WindowStatement } from "../../telemetry/window.ts";
import type { PgQueryable } from "../connection.ts";
import { builtRow, builtRows } from "../reads.ts";

/** The rows `reader` reads from the statement `sql` builds around the window. */
export function windowRows<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: WindowStatement,
): Promise<T[]> {
  return builtRows(q, reader, (p) => sql(windowSql(window, p)));
}

/** The one row an aggregate over the window answers. */
export function windowRow<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  window: TelemetryWindow,
  sql: WindowStatement,
): Promise<T> {
  return builtRow(q, reader, (p) => sql(windowSql(window, p)));
}
