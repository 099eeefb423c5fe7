/**
 * How a call described by several telemetry records becomes one row on PostgreSQL: SQLite's
 * in-memory merge (../../telemetry/call_merge.ts) — a part's records merged among themselves,
 * then again from the stored row of each call they name — with the stored rows read by one
 * statement and the merged rows written by two (the new ones inserted, the changed ones
 * updated, each over column arrays), so an export's calls cost a few round trips rather than
 * one or more per record.
 *
 * The caller holds its calls' sessions locked (a write's `lockSessions`), so no other writer
 * merges into the same calls between the read and the write.
 *
 * @module
 */
import {
  type CallRecord,
  type CallRow,
  type CallTable,
  KEY,
  type MergedCalls,
  mergeStoredCalls,
  type PreparedCalls,
  type StoredCall,
} from "../../telemetry/call_merge.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";
import { unnestInsert } from "../unnest.ts";

/** The PostgreSQL type of each column of a call table, by column name. */
export type CallColumnTypes = Readonly<Record<string, string>>;

/** The stored rows of `keys` in `table`, read with one statement. */
async function storedRows<R extends CallRecord, S extends StoredCall>(
  q: PgQueryable,
  table: CallTable<R, S>,
  keys: readonly string[],
): Promise<Map<string, CallRow>> {
  const found = new Map<string, CallRow>();
  if (keys.length === 0) return found;
  const rows = await readRows(
    q,
    table.reader,
    `SELECT ${table.columns.join(", ")} FROM ${table.name} WHERE call_key = ANY($1::text[])`,
    [keys],
  );
  for (const stored of rows) {
    const row = table.columns.map((column) => stored[column]);
    found.set(String(row[KEY]), row);
  }
  return found;
}

/** Merges prepared calls into what is stored (see SQLite's `mergeCalls`). */
export async function mergeCalls<R extends CallRecord, S extends StoredCall>(
  q: PgQueryable,
  calls: PreparedCalls<R, S>,
): Promise<MergedCalls> {
  return mergeStoredCalls(calls, await storedRows(q, calls.table, [...calls.rows.keys()]));
}

/** The statements that write merged rows of one call table. */
export interface CallWriter {
  /** Writes every merged row that is new or differs from what was stored. */
  write(q: PgQueryable, merged: MergedCalls): Promise<void>;
}

/**
 * The writer of merged rows of `table`, whose columns have `types` (PostgreSQL's, by column:
 * one for each of `table.columns`).
 *
 * @example
 * ```ts ignore
 * const writer = callWriter(TOOL_CALLS, { call_key: "text", agent: "text", … });
 * await writer.write(w, await mergeCalls(w, prepareToolCalls(records)));
 * ```
 */
export function callWriter<R extends CallRecord, S extends StoredCall>(
  table: CallTable<R, S>,
  types: CallColumnTypes,
): CallWriter {
  const { name, columns } = table;
  const typeOf = columns.map((column) => types[column]);
  const untyped = columns.filter((_, i) => typeOf[i] === undefined);
  if (untyped.length > 0 || Object.keys(types).length !== columns.length) {
    throw new Error(`${name}: column types do not match its columns (${untyped.join(", ")})`);
  }
  // A key inserted by a writer outside the caller's session locks (another session naming
  // the same call) is overwritten by the merged row rather than lost.
  const insert = unnestInsert(
    name,
    Object.fromEntries(columns.map((column, i) => [column, typeOf[i]])),
    `ON CONFLICT (call_key) DO UPDATE SET ${
      columns.slice(1).map((c) => `${c} = excluded.${c}`).join(", ")
    }`,
  );
  const arrays = typeOf.map((type, i) => `$${i + 1}::${type}[]`).join(", ");
  const update = `UPDATE ${name} SET ${
    columns.slice(1).map((c) => `${c} = changed.${c}`).join(", ")
  }
    FROM unnest(${arrays}) AS changed (${columns.join(", ")})
    WHERE ${name}.call_key = changed.call_key`;
  return {
    async write(q, merged) {
      const inserted: CallRow[] = [];
      const changed: CallRow[] = [];
      for (const [key, row] of merged.rows) {
        const stored = merged.before.get(key);
        if (stored === undefined) inserted.push(row);
        else if (row.some((value, i) => value !== stored[i])) changed.push(row);
      }
      await insert.run(q, inserted);
      if (changed.length > 0) {
        await q.query(update, columns.map((_, c) => changed.map((row) => row[c])));
      }
    },
  };
}
