/**
 * How a call described by several telemetry records becomes one row on PostgreSQL: inserted,
 * or merged into the row of its key field by field (an event's value overwrites, a span's
 * fills only what is empty; the time kept as the table says) — the upsert that SQLite's
 * in-memory merge (../../telemetry/call_merge.ts) stands for, built from the same table
 * description ({@linkcode CallTable}: its fields, its time rule and its row reader). Calls
 * are merged record by record here; the merged row is answered whole.
 *
 * @module
 */
import type { FieldAuthority } from "../../../model/telemetry_records.ts";
import {
  type CallRecord,
  type CallTable,
  sqlValue,
  type StoredCall,
} from "../../telemetry/call_merge.ts";
import type { SqlParam } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readRow } from "../reads.ts";

/** The upsert of one record of `table` by a record of `authority`. */
function mergeSql<R extends CallRecord, S extends StoredCall>(
  table: CallTable<R, S>,
  authority: FieldAuthority,
): string {
  const { name, fields } = table;
  const time = table.time === "latest"
    ? `greatest(${name}.ts, excluded.ts)`
    : authority === "event"
    ? "excluded.ts"
    : `${name}.ts`;
  const merged = fields.map((c) =>
    authority === "event"
      ? `${c} = coalesce(excluded.${c}, ${name}.${c})`
      : `${c} = coalesce(${name}.${c}, excluded.${c})`
  ).join(", ");
  const placeholders = fields.map((_, i) => `$${i + 5}`).join(", ");
  return `INSERT INTO ${name} (call_key, agent, session_id, ts, ${fields.join(", ")})
    VALUES ($1, $2, $3, $4, ${placeholders})
    ON CONFLICT (call_key) DO UPDATE SET ts = ${time}, ${merged}
    RETURNING ${table.columns.join(", ")}`;
}

/** The merges of one call table's records, built once per table. */
export interface CallMerge<R extends CallRecord, S extends StoredCall> {
  /** Merges one record into its call's row; answers the merged row. */
  merge(q: PgQueryable, record: R): Promise<S>;
}

/**
 * The merges of records of `table` (their statements built once, per authority).
 *
 * @example
 * ```ts ignore
 * import { MODEL_CALLS } from "../../telemetry/model_calls.ts";
 * import { callMerge } from "./call_merge.ts";
 * const row = await callMerge(MODEL_CALLS).merge(pool, record); // the call's row, merged
 * ```
 */
export function callMerge<R extends CallRecord, S extends StoredCall>(
  table: CallTable<R, S>,
): CallMerge<R, S> {
  const statements = { event: mergeSql(table, "event"), span: mergeSql(table, "span") };
  return {
    merge: (q, record) => {
      const values: SqlParam[] = [record.call_key, record.agent, record.session_id, record.ts];
      for (const field of table.fields) values.push(sqlValue(record[field]));
      return readRow(q, table.reader, statements[record.authority], values);
    },
  };
}
