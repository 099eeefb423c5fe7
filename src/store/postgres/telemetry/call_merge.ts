/**
 * How a call described by several telemetry records becomes one row on PostgreSQL: inserted,
 * or merged into the row of its key field by field (an event's value overwrites, a span's
 * fills only what is empty) — SQLite's upsert (../../telemetry/call_merge.ts) in PostgreSQL's
 * dialect. SQLite's merge now runs in memory per export part; this one still upserts record
 * by record.
 *
 * @module
 */
import type { FieldAuthority } from "../../../model/telemetry_records.ts";

/** The tables whose rows are merged calls. */
export type CallTable = "telemetry_model_calls" | "telemetry_tool_calls";

/** What a call record's merged fields hold. */
type FieldValue = string | number | boolean | undefined;

/** The values of `fields` of a call record, in order: undefined as NULL, booleans as 0/1. */
export function fieldValues<K extends string>(
  call: { readonly [F in K]?: FieldValue },
  fields: readonly K[],
): Array<string | number | null> {
  return fields.map((field) => {
    const value: FieldValue = call[field];
    if (value === undefined) return null;
    return typeof value === "boolean" ? (value ? 1 : 0) : value;
  });
}

/** What a merge answers: what deciding how to count the call needs. */
const RETURNED: Readonly<Record<CallTable, string>> = {
  telemetry_model_calls: `agent, session_id, ts, model, request_id, outside_transcript,
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
    usage_key, counted`,
  telemetry_tool_calls: "session_id, counted",
};

function mergeSql(table: CallTable, columns: readonly string[], authority: FieldAuthority): string {
  const time = table === "telemetry_tool_calls"
    ? `greatest(${table}.ts, excluded.ts)`
    : authority === "event"
    ? "excluded.ts"
    : `${table}.ts`;
  const merged = columns.map((c) =>
    authority === "event"
      ? `${c} = coalesce(excluded.${c}, ${table}.${c})`
      : `${c} = coalesce(${table}.${c}, excluded.${c})`
  ).join(", ");
  const placeholders = columns.map((_, i) => `$${i + 5}`).join(", ");
  return `INSERT INTO ${table} (call_key, agent, session_id, ts, ${columns.join(", ")})
    VALUES ($1, $2, $3, $4, ${placeholders})
    ON CONFLICT (call_key) DO UPDATE SET ts = ${time}, ${merged}
    RETURNING ${RETURNED[table]}`;
}

/** The upserts of one table's records, by authority (built once per table). */
export function pgMergeStatements(
  table: CallTable,
  columns: readonly string[],
): Readonly<Record<FieldAuthority, string>> {
  return { event: mergeSql(table, columns, "event"), span: mergeSql(table, columns, "span") };
}
