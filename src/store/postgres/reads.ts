/**
 * Running one statement on PostgreSQL and reading what it answers: its rows through the
 * {@linkcode RowReader} of their type — the reader SQLite's store reads the same rows with,
 * so both backends check every column the same way — or, for a write, whether it changed
 * anything. Each store function of this folder is then its statement and its parameters.
 *
 * @module
 */
import type { BuiltStatement } from "../params.ts";
import type { RowReader } from "../rows.ts";
import { Params, pgPlaceholder } from "./binding.ts";
import type { PgQueryable, PgValue } from "./connection.ts";

/**
 * Every row a statement answers, read by `reader`.
 *
 * @example
 * ```ts ignore
 * import { RowReader } from "../rows.ts";
 * import { readRows } from "./reads.ts";
 * const N = new RowReader<{ n: number }>("number", { n: "number" });
 * await readRows(pool, N, "SELECT generate_series(1, $1) AS n", [2]); // [{ n: 1 }, { n: 2 }]
 * ```
 */
export async function readRows<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  sql: string,
  params: readonly PgValue[] = [],
): Promise<T[]> {
  return reader.all(await q.query(sql, params));
}

/**
 * The one row a statement always answers (an aggregate's); fails naming the row type when
 * there is none.
 *
 * @example
 * ```ts ignore
 * import { RowReader } from "../rows.ts";
 * import { readRow } from "./reads.ts";
 * const COUNT = new RowReader<{ n: number }>("count", { n: "number" });
 * (await readRow(pool, COUNT, "SELECT count(*) AS n FROM sessions")).n; // 0
 * ```
 */
export async function readRow<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  sql: string,
  params: readonly PgValue[] = [],
): Promise<T> {
  return reader.one((await q.query(sql, params))[0]);
}

/**
 * The first row of a statement that may find nothing.
 *
 * @example
 * ```ts ignore
 * import { RowReader } from "../rows.ts";
 * import { readOptionalRow } from "./reads.ts";
 * const ID = new RowReader<{ id: string }>("session id", { id: "text" });
 * await readOptionalRow(pool, ID, "SELECT session_id AS id FROM sessions LIMIT 1"); // undefined
 * ```
 */
export async function readOptionalRow<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  sql: string,
  params: readonly PgValue[] = [],
): Promise<T | undefined> {
  return reader.optional((await q.query(sql, params))[0]);
}

/**
 * Runs a write whose `RETURNING` answers a row for each row it wrote; answers whether it
 * wrote any (an insert `ON CONFLICT DO NOTHING` that met its key answers false).
 *
 * @example
 * ```ts ignore
 * import { wroteAny } from "./reads.ts";
 * const sql = "INSERT INTO injections (session_id, snapshot, ts) VALUES ($1, '', 0) " +
 *   "ON CONFLICT DO NOTHING RETURNING ts";
 * await wroteAny(pool, sql, ["s1"]); // true, then false
 * ```
 */
export async function wroteAny(
  q: PgQueryable,
  sql: string,
  params: readonly PgValue[],
): Promise<boolean> {
  return (await q.query(sql, params)).length > 0;
}

/** A value a row of a PostgreSQL table holds (what `insertRow` writes). */
type StoredValue = Exclude<PgValue, ReadonlyArray<unknown>>;

/**
 * Inserts one row of `reader`'s type into `table`, its columns those of the reader's shape:
 * the table's columns are named once, by the type's reader.
 *
 * @example
 * ```ts ignore
 * import { insertRow } from "./reads.ts";
 * await insertRow(pool, GIT_MOVE, "git_moves", move);
 * ```
 */
export async function insertRow<T extends { [K in keyof T]: StoredValue }>(
  q: PgQueryable,
  reader: RowReader<T>,
  table: string,
  row: T,
): Promise<void> {
  await q.query(reader.insertSql(table, pgPlaceholder), reader.valuesOf(row));
}

/**
 * The rows `reader` reads from a statement built around its parameters (one whose logic both
 * backends share, see ../params.ts), built with PostgreSQL's.
 *
 * @example
 * ```ts ignore
 * import { builtRows } from "./reads.ts";
 * await builtRows(pool, N, (p) => `SELECT ${p.add(7)}::int AS n`); // [{ n: 7 }]
 * ```
 */
export async function builtRows<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  build: BuiltStatement,
): Promise<T[]> {
  const p = new Params();
  const sql = build(p);
  return reader.all(await q.query(sql, p.values));
}

/**
 * The one row an aggregate built by `build` answers (see {@linkcode builtRows}).
 *
 * @example
 * ```ts ignore
 * import { builtRow } from "./reads.ts";
 * await builtRow(pool, N, (p) => `SELECT ${p.add(7)}::int AS n`); // { n: 7 }
 * ```
 */
export async function builtRow<T extends object>(
  q: PgQueryable,
  reader: RowReader<T>,
  build: BuiltStatement,
): Promise<T> {
  const p = new Params();
  const sql = build(p);
  return reader.one((await q.query(sql, p.values))[0]);
}

/**
 * Bytes as SQLite's store answers them, a plain `Uint8Array`: the client answers a `bytea` as
 * a Node `Buffer`, which compares unequal to the same bytes in a `Uint8Array`.
 *
 * @example
 * ```ts
 * import { plainBytes } from "./reads.ts";
 * plainBytes(new Uint8Array([1, 2])); // Uint8Array [1, 2]
 * ```
 */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
