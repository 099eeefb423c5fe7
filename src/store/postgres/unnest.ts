/**
 * Many rows in one statement on PostgreSQL: each column travels as one array parameter and
 * `unnest` makes the rows again, in their order (`WITH ORDINALITY`), so a batch costs one
 * round trip whatever its size, and where a key comes twice the first row is the one kept
 * (`ON CONFLICT DO NOTHING`), as SQLite's inserts keep it. The rows are the parameter lists
 * both backends share (`messageValues`, `signalRows`, …); a table is described once, by its
 * columns and their PostgreSQL types.
 *
 * @module
 */
import type { Row, SqlParam } from "../rows.ts";
import type { PgQueryable } from "./connection.ts";

/** The columns of an unnest insert, in the rows' order, each with its PostgreSQL type. */
export type UnnestColumns = Readonly<Record<string, string>>;

/** An insert of many rows of one table by one statement. */
export interface UnnestInsert {
  /** The statement: one array parameter per column, then what `tail` added. */
  readonly sql: string;
  /** Inserts `rows` (each in the columns' order); answers the rows `RETURNING` gave. */
  run(q: PgQueryable, rows: ReadonlyArray<readonly SqlParam[]>): Promise<Row[]>;
}

/**
 * The insert of rows of `columns` into `table`, from one array per column, in the rows'
 * order; `tail` follows it (`ON CONFLICT …`, `RETURNING …`).
 *
 * @example
 * ```ts
 * import { unnestInsert } from "./unnest.ts";
 * unnestInsert("t", { a: "text", b: "bigint" }, "ON CONFLICT DO NOTHING").sql;
 * // INSERT INTO t (a, b) SELECT a, b FROM unnest($1::text[], $2::bigint[]) …
 * ```
 */
export function unnestInsert(table: string, columns: UnnestColumns, tail = ""): UnnestInsert {
  const names = Object.keys(columns).join(", ");
  const types = Object.values(columns);
  const arrays = types.map((type, i) => `$${i + 1}::${type}[]`).join(", ");
  const sql = `INSERT INTO ${table} (${names})
    SELECT ${names} FROM unnest(${arrays}) WITH ORDINALITY AS batch (${names}, n)
    ORDER BY n ${tail}`;
  return {
    sql,
    async run(q, rows) {
      if (rows.length === 0) return [];
      return await q.query(sql, types.map((_, c) => rows.map((row) => row[c])));
    },
  };
}
