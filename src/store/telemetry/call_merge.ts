/**
 * How a call described by several telemetry records becomes one row, merged
 * field by field: an event's value overwrites, a span's fills only what is
 * empty; a model call takes an event's time, a tool call its latest. Claude
 * Code's `api_request` event and `llm_request` span share a request id; a
 * `tool_decision`, a `tool_result` and a `claude_code.tool` span share a
 * tool call id.
 *
 * The merge runs in memory: first among a part's own records
 * ({@linkcode prepareCalls}, no store needed, so an intake worker does it
 * before its turn to write), then, for the calls a row already holds (read
 * up front with one statement), again from the stored row, record by record,
 * exactly as an upsert per record would. The counting decisions are taken on
 * the merged rows (model_calls.ts, tool_calls.ts), and each row that changed
 * is written once: one statement a call instead of three or four.
 *
 * @module
 */
import type { FieldAuthority } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../database.ts";
import type { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A value as SQLite stores it. */
export type SqlValue = string | number | null;

/**
 * A merged call as stored, its values in {@linkcode CallTable.columns} order: key, agent,
 * session, time, the record fields, then the counting state.
 */
export type CallRow = SqlValue[];

/** Where the columns every call table has are in a {@linkcode CallRow}. */
export const KEY = 0, AGENT = 1, SESSION = 2, TS = 3;

/** Where a call's record fields start in a {@linkcode CallRow}. */
const FIRST_FIELD = 4;

/** What every call record has. */
export interface CallRecord {
  /** Merge key. */
  call_key: string;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Time, ms. */
  ts: number;
  /** Whether its values overwrite (an event's) or only fill (a span's). */
  authority: FieldAuthority;
}

/** A stored call row, as its table's reader reads it. */
export type StoredCall = { readonly [column: string]: SqlValue };

/** What a merged-call table holds: `R` its records, `S` its stored rows. */
export interface CallTable<R extends CallRecord, S extends StoredCall> {
  /** The table. */
  name: "telemetry_model_calls" | "telemetry_tool_calls";
  /** The fields a record carries, in row order after the time. */
  fields: ReadonlyArray<keyof R & keyof S & string>;
  /** The counting state no record sets, each with its value in a new row. */
  state: ReadonlyArray<readonly [keyof S & string, SqlValue]>;
  /** The time a merge keeps: an event's (model calls) or the latest (tool calls). */
  time: "event" | "latest";
  /** Every column, in row order. */
  columns: ReadonlyArray<keyof S & string>;
  /** Reads a stored row (its SELECT list is {@linkcode columns}). */
  reader: RowReader<S>;
}

/** Describes a merged-call table. */
export function callTable<R extends CallRecord, S extends StoredCall>(
  name: CallTable<R, S>["name"],
  fields: CallTable<R, S>["fields"],
  state: CallTable<R, S>["state"],
  time: CallTable<R, S>["time"],
  reader: RowReader<S>,
): CallTable<R, S> {
  const columns: Array<keyof S & string> = ["call_key", "agent", "session_id", "ts"];
  columns.push(...fields, ...state.map(([column]) => column));
  return { name, fields, state, time, columns, reader };
}

/** The index of `column` in the rows of `table`. */
export function columnIndex<R extends CallRecord, S extends StoredCall>(
  table: CallTable<R, S>,
  column: keyof S & string,
): number {
  return table.columns.indexOf(column);
}

/** A record's value as bound to a statement: booleans as 1 or 0, absent as NULL (both backends). */
export function sqlValue(value: unknown): SqlValue {
  if (typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  return null;
}

/**
 * One part's records of one call table, merged among themselves (each row as the part's
 * records would leave it were nothing stored yet).
 */
export interface PreparedCalls<R extends CallRecord, S extends StoredCall> {
  /** The table. */
  table: CallTable<R, S>;
  /** The records, in order. */
  records: readonly R[];
  /** A row per call key, in the order of the first record naming it. */
  rows: Map<string, CallRow>;
}

/** Merges a part's records of `table` among themselves (no store needed). */
export function prepareCalls<R extends CallRecord, S extends StoredCall>(
  table: CallTable<R, S>,
  records: readonly R[],
): PreparedCalls<R, S> {
  const rows = new Map<string, CallRow>();
  for (const record of records) {
    const row = rows.get(record.call_key);
    if (row !== undefined) {
      mergeInto(row, table, record);
      continue;
    }
    const created: CallRow = [record.call_key, record.agent, record.session_id, record.ts];
    for (const field of table.fields) created.push(sqlValue(record[field]));
    for (const [, value] of table.state) created.push(value);
    rows.set(record.call_key, created);
  }
  return { table, records, rows };
}

/** Merged calls of one table: the rows as stored before, and as the records leave them. */
export interface MergedCalls {
  /** The table's name and columns. */
  table: { name: string; columns: readonly string[] };
  /** Stored rows before the records, by key. */
  before: Map<string, CallRow>;
  /** Every row a record named, in the order of the first record naming it. */
  rows: Map<string, CallRow>;
}

/**
 * Merges prepared calls into what is stored: a call no row holds yet keeps its prepared row;
 * a stored one is merged again, record by record, from its stored row.
 */
export function mergeCalls<R extends CallRecord, S extends StoredCall>(
  db: DatabaseSync,
  calls: PreparedCalls<R, S>,
): MergedCalls {
  return mergeStoredCalls(calls, storedRows(db, calls.table, [...calls.rows.keys()]));
}

/**
 * {@linkcode mergeCalls} given the stored rows of the calls' keys (`before`, as a backend read
 * them), for a backend that reads them its own way.
 */
export function mergeStoredCalls<R extends CallRecord, S extends StoredCall>(
  calls: PreparedCalls<R, S>,
  before: Map<string, CallRow>,
): MergedCalls {
  const { table, rows } = calls;
  if (before.size > 0) {
    const redone = new Map<string, CallRow>();
    for (const record of calls.records) {
      const stored = before.get(record.call_key);
      if (stored === undefined) continue;
      let row = redone.get(record.call_key);
      if (row === undefined) {
        row = [...stored];
        redone.set(record.call_key, row);
      }
      mergeInto(row, table, record);
    }
    // Replacing a key's row keeps its place in the map.
    for (const [key, row] of redone) rows.set(key, row);
  }
  return { table, before, rows };
}

/** The stored rows of `keys` (each once) in `table`, read with one statement. */
function storedRows<R extends CallRecord, S extends StoredCall>(
  db: DatabaseSync,
  table: CallTable<R, S>,
  keys: readonly string[],
): Map<string, CallRow> {
  const found = new Map<string, CallRow>();
  if (keys.length === 0) return found;
  // The keys as one JSON list: one prepared statement, however many there are.
  const rows = prepared(
    db,
    `SELECT ${table.columns.join(", ")} FROM ${table.name}
     WHERE call_key IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(keys));
  for (const stored of table.reader.all(rows)) {
    const row = table.columns.map((column) => stored[column]);
    found.set(String(row[KEY]), row);
  }
  return found;
}

/** One record merged into a row, as an upsert's `DO UPDATE SET` would. */
function mergeInto<R extends CallRecord, S extends StoredCall>(
  row: CallRow,
  table: CallTable<R, S>,
  record: R,
): void {
  const event = record.authority === "event";
  if (table.time === "latest") row[TS] = Math.max(Number(row[TS]), record.ts);
  else if (event) row[TS] = record.ts;
  const { fields } = table;
  for (let i = 0; i < fields.length; i++) {
    const value = sqlValue(record[fields[i]]);
    if (event) {
      if (value !== null) row[FIRST_FIELD + i] = value;
    } else if (row[FIRST_FIELD + i] === null) {
      row[FIRST_FIELD + i] = value;
    }
  }
}

/** Writes every merged row that is new or differs from what was stored. */
export function writeCalls(db: DatabaseSync, merged: MergedCalls): void {
  const { columns, name } = merged.table;
  const insert = prepared(
    db,
    `INSERT INTO ${name} (${columns.join(", ")})
     VALUES (${columns.map(() => "?").join(", ")})`,
  );
  const update = prepared(
    db,
    `UPDATE ${name} SET ${columns.slice(1).map((c) => `${c} = ?`).join(", ")}
     WHERE call_key = ?`,
  );
  for (const [key, row] of merged.rows) {
    const stored = merged.before.get(key);
    if (stored === undefined) insert.run(...row);
    else if (row.some((value, i) => value !== stored[i])) update.run(...row.slice(1), key);
  }
}
