/**
 * The merged model calls and tool calls of one export, and how each is
 * counted in its session (see telemetry_writes.ts for the rules).
 *
 * A part's records are merged into rows in memory exactly as the upsert
 * `INSERT … ON CONFLICT (call_key) DO UPDATE` did record by record (an
 * event's value overwrites, a span's fills what is empty; a model call takes
 * an event's time, a tool call its latest): first among themselves
 * ({@linkcode PreparedCalls}, no store needed), then, for the calls a row
 * already holds (read up front, a few hundred keys a statement), again from
 * the stored row. The counting decisions are taken on the merged rows, and
 * each row that changed is written once: one statement a call instead of
 * three or four.
 *
 * @module
 */
import { insertUsage } from "./agent_writes.ts";
import type { CallPrice, UsageInput } from "./agent_records.ts";
import type { DatabaseSync } from "./database.ts";
import { telemetryStatement } from "./telemetry_statements.ts";
import { findTranscriptUsageKey, withdrawTelemetryUsage } from "./telemetry_settle.ts";
import type { FieldAuthority, ModelCallInput, ToolCallInput } from "./telemetry_records.ts";

/** A value as SQLite stores it. */
type SqlValue = string | number | null;

/**
 * A merged call as stored, its columns in {@linkcode CallTable.columns} order: key, agent,
 * session, time, the record fields, then the counting state.
 */
type CallRow = SqlValue[];

/** The usage key telemetry's own count of a call is stored under. */
export function telemetryUsageKey(callKey: string): string {
  return `otel:${callKey}`;
}

/** Where the columns every call table has are in a row. */
const KEY = 0, AGENT = 1, SESSION = 2, TS = 3, FIRST_FIELD = 4;

/** What a merged-call table holds. */
interface CallTable {
  name: "telemetry_model_calls" | "telemetry_tool_calls";
  /** The fields a record carries. */
  fields: readonly string[];
  /** The counting state no record sets, with its value in a new row (usage_key and/or counted). */
  state: ReadonlyArray<readonly [string, SqlValue]>;
  /** The time a merge keeps: an event's (model calls) or the latest (tool calls). */
  time: "event" | "latest";
  /** Every column, in row order. */
  columns: readonly string[];
}

function callTable(
  name: CallTable["name"],
  fields: readonly string[],
  state: CallTable["state"],
  time: CallTable["time"],
): CallTable {
  const columns = ["call_key", "agent", "session_id", "ts", ...fields, ...state.map(([c]) => c)];
  return { name, fields, state, time, columns };
}

const MODEL_CALLS = callTable(
  "telemetry_model_calls",
  [
    "model",
    "request_id",
    "prompt_id",
    "trace_id",
    "span_id",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "cost_usd",
    "duration_ms",
    "ttft_ms",
    "finish_reason",
    "success",
    "query_source",
    "outside_transcript",
    "user_id",
    "host_name",
  ],
  [["usage_key", null], ["counted", 0]],
  "event",
);

const TOOL_CALLS = callTable(
  "telemetry_tool_calls",
  [
    "tool_name",
    "tool_use_id",
    "prompt_id",
    "duration_ms",
    "success",
    "error_type",
    "error",
    "decision",
    "decision_source",
    "trace_id",
    "span_id",
    "user_id",
    "host_name",
  ],
  [["counted", 0]],
  "latest",
);

/** The index of `column` in the rows of `table`. */
function at(table: CallTable, column: string): number {
  return table.columns.indexOf(column);
}

const M = {
  model: at(MODEL_CALLS, "model"),
  requestId: at(MODEL_CALLS, "request_id"),
  input: at(MODEL_CALLS, "input_tokens"),
  output: at(MODEL_CALLS, "output_tokens"),
  cacheRead: at(MODEL_CALLS, "cache_read_tokens"),
  cacheWrite: at(MODEL_CALLS, "cache_write_tokens"),
  reasoning: at(MODEL_CALLS, "reasoning_tokens"),
  outside: at(MODEL_CALLS, "outside_transcript"),
  usageKey: at(MODEL_CALLS, "usage_key"),
  counted: at(MODEL_CALLS, "counted"),
};
const TOOL_COUNTED = at(TOOL_CALLS, "counted");

/** A record's value as bound to a statement: booleans as 1 or 0, absent as NULL. */
function sqlValue(value: unknown): SqlValue {
  if (value === undefined || value === null) return null;
  return typeof value === "boolean" ? (value ? 1 : 0) : value as string | number;
}

/** The stored rows of `keys` (each once) in `table`, read with one statement. */
function storedRows(
  db: DatabaseSync,
  table: CallTable,
  keys: readonly string[],
): Map<string, CallRow> {
  const found = new Map<string, CallRow>();
  if (keys.length === 0) return found;
  // The keys as one JSON list: one prepared statement whatever their number.
  const lookup = telemetryStatement(
    db,
    `SELECT ${table.columns.join(", ")} FROM ${table.name}
     WHERE call_key IN (SELECT value FROM json_each(?))`,
  );
  for (
    const stored of lookup.all(JSON.stringify(keys)) as unknown as Array<
      Record<string, SqlValue>
    >
  ) {
    found.set(stored.call_key as string, table.columns.map((column) => stored[column]));
  }
  return found;
}

/**
 * One part's records of one call table, merged among themselves (each row as the part's
 * records would leave it were nothing stored yet): what {@linkcode mergeCalls} needs no
 * store for.
 */
export interface PreparedCalls {
  table: CallTable;
  /** The records, in order. */
  records: ReadonlyArray<ModelCallInput | ToolCallInput>;
  /** A row per call key, in the order of the first record naming it. */
  rows: Map<string, CallRow>;
}

/** Merges model call records among themselves (see {@linkcode PreparedCalls}). */
export function prepareModelCalls(records: readonly ModelCallInput[]): PreparedCalls {
  return prepareCalls(MODEL_CALLS, records);
}

/** Merges tool call records among themselves (see {@linkcode PreparedCalls}). */
export function prepareToolCalls(records: readonly ToolCallInput[]): PreparedCalls {
  return prepareCalls(TOOL_CALLS, records);
}

function prepareCalls(
  table: CallTable,
  records: ReadonlyArray<ModelCallInput | ToolCallInput>,
): PreparedCalls {
  const rows = new Map<string, CallRow>();
  const { fields, state } = table;
  for (const record of records) {
    const values = record as unknown as Record<string, unknown>;
    const row = rows.get(record.call_key);
    if (row !== undefined) {
      mergeInto(row, table, record.authority, record.ts, values);
      continue;
    }
    const created: CallRow = [record.call_key, record.agent, record.session_id, record.ts];
    for (const field of fields) created.push(sqlValue(values[field]));
    for (const [, value] of state) created.push(value);
    rows.set(record.call_key, created);
  }
  return { table, records, rows };
}

/** Merged calls of one table: the rows as stored before, and as the batch leaves them. */
interface MergedCalls {
  table: CallTable;
  /** Stored rows before the batch, by key. */
  before: Map<string, CallRow>;
  /** Every row a record named, in the order of the first record naming it. */
  rows: Map<string, CallRow>;
}

/**
 * Merges prepared calls into what is stored: a call no row holds yet keeps its prepared row;
 * a stored one is merged again, record by record, from its stored row.
 */
function mergeCalls(db: DatabaseSync, prepared: PreparedCalls): MergedCalls {
  const { table, rows } = prepared;
  const before = storedRows(db, table, [...rows.keys()]);
  if (before.size > 0) {
    const redone = new Map<string, CallRow>();
    for (const record of prepared.records) {
      const stored = before.get(record.call_key);
      if (stored === undefined) continue;
      let row = redone.get(record.call_key);
      if (row === undefined) {
        row = [...stored];
        redone.set(record.call_key, row);
      }
      mergeInto(
        row,
        table,
        record.authority,
        record.ts,
        record as unknown as Record<string, unknown>,
      );
    }
    // Replacing a key's row keeps its place in the map.
    for (const [key, row] of redone) rows.set(key, row);
  }
  return { table, before, rows };
}

/** One record merged into its stored row, as the upsert's `DO UPDATE SET` does. */
function mergeInto(
  row: CallRow,
  table: CallTable,
  authority: FieldAuthority,
  ts: number,
  values: Record<string, unknown>,
): void {
  if (table.time === "latest") row[TS] = Math.max(row[TS] as number, ts);
  else if (authority === "event") row[TS] = ts;
  const { fields } = table;
  for (let i = 0; i < fields.length; i++) {
    const value = sqlValue(values[fields[i]]);
    if (authority === "event") {
      if (value !== null) row[FIRST_FIELD + i] = value;
    } else if (row[FIRST_FIELD + i] === null) {
      row[FIRST_FIELD + i] = value;
    }
  }
}

/** Writes every merged row that is new or differs from what was stored. */
function writeCalls(db: DatabaseSync, merged: MergedCalls): void {
  const { columns, name } = merged.table;
  const values = `VALUES (${columns.map(() => "?").join(", ")})`;
  const insert = telemetryStatement(db, `INSERT INTO ${name} (${columns.join(", ")}) ${values}`);
  const update = telemetryStatement(
    db,
    `UPDATE ${name} SET ${columns.slice(1).map((c) => `${c} = ?`).join(", ")}
     WHERE call_key = ?`,
  );
  for (const [key, row] of merged.rows) {
    const stored = merged.before.get(key);
    if (stored === undefined) {
      insert.run(...row);
    } else if (row.some((value, i) => value !== stored[i])) {
      update.run(...row.slice(1), key);
    }
  }
}

/**
 * Merges and stores an export's model call records and counts each merged call: in its
 * transcript's usage row when the transcript has it, in none when it is a side request or its
 * session has a transcript without it, else in telemetry's own usage row.
 */
export function storeModelCalls(
  db: DatabaseSync,
  prepared: PreparedCalls,
  hasTranscript: (sessionId: string) => boolean,
  priceOf: (record: UsageInput) => CallPrice,
): number {
  if (prepared.records.length === 0) return 0;
  const merged = mergeCalls(db, prepared);
  const usage: UsageInput[] = [];
  const newlyCounted: CallRow[] = [];
  for (const row of merged.rows.values()) {
    const record = countModelCall(db, row, hasTranscript);
    if (record === undefined) continue;
    usage.push(record);
    if (row[M.counted] === 0) newlyCounted.push(row);
  }
  if (usage.length > 0) {
    // Merging takes each count's larger value, so a span and an event of one call count once.
    insertUsage(db, usage, priceOf);
    for (const row of newlyCounted) {
      row[M.usageKey] = telemetryUsageKey(row[KEY] as string);
      row[M.counted] = 1;
    }
  }
  writeCalls(db, merged);
  return prepared.records.length;
}

/**
 * Which usage row counts a merged model call: the transcript's when it has the call (linked
 * on the row), none for a side request or when the session has a transcript without it, else
 * telemetry's own — answered as the usage record to write.
 */
function countModelCall(
  db: DatabaseSync,
  row: CallRow,
  hasTranscript: (sessionId: string) => boolean,
): UsageInput | undefined {
  const agent = row[AGENT] as string;
  const sessionId = row[SESSION] as string;
  const usageKey = row[M.usageKey] as string | null;
  const requestId = row[M.requestId] as string | null;
  const counted = row[M.counted];
  const transcriptKey = requestId === null
    ? undefined
    : findTranscriptUsageKey(db, agent, requestId);
  if (transcriptKey !== undefined) {
    if (counted === 1 && usageKey !== null) withdrawTelemetryUsage(db, usageKey);
    if (usageKey !== transcriptKey) {
      row[M.usageKey] = transcriptKey;
      row[M.counted] = 0;
    }
    return undefined;
  }
  if (row[M.outside] === 1) {
    // A side request: no transcript will ever count it, and so neither does telemetry.
    if (counted === 1 && usageKey !== null) {
      withdrawTelemetryUsage(db, usageKey);
      row[M.usageKey] = null;
      row[M.counted] = 0;
    }
    return undefined;
  }
  if (counted === 0 && (usageKey !== null || hasTranscript(sessionId))) return undefined;
  const input = (row[M.input] as number | null) ?? 0;
  const output = (row[M.output] as number | null) ?? 0;
  const cacheRead = (row[M.cacheRead] as number | null) ?? 0;
  const cacheWrite = (row[M.cacheWrite] as number | null) ?? 0;
  if (input + output + cacheRead + cacheWrite === 0) {
    return undefined; // Nothing to count yet (a span that carries no usage).
  }
  const usage: UsageInput = {
    agent,
    session_id: sessionId,
    ts: row[TS] as number,
    usage_key: telemetryUsageKey(row[KEY] as string),
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: (row[M.reasoning] as number | null) ?? 0,
  };
  if (row[M.model] !== null) usage.model = row[M.model] as string;
  return usage;
}

/**
 * Merges and stores an export's tool call records; a call no transcript of its session
 * counts yet is counted in its session's tool calls (one statement per session).
 */
export function storeToolCalls(
  db: DatabaseSync,
  prepared: PreparedCalls,
  hasTranscript: (sessionId: string) => boolean,
): number {
  if (prepared.records.length === 0) return 0;
  const merged = mergeCalls(db, prepared);
  const added = new Map<string, number>();
  for (const row of merged.rows.values()) {
    const sessionId = row[SESSION] as string;
    if (row[TOOL_COUNTED] === 1 || hasTranscript(sessionId)) continue;
    // No transcript of this session was read: the call is known from telemetry alone.
    row[TOOL_COUNTED] = 1;
    added.set(sessionId, (added.get(sessionId) ?? 0) + 1);
  }
  writeCalls(db, merged);
  const count = telemetryStatement(
    db,
    "UPDATE sessions SET tool_calls = tool_calls + ? WHERE session_id = ?",
  );
  for (const [sessionId, n] of added) count.run(n, sessionId);
  return prepared.records.length;
}
