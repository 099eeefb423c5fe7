/**
 * Many rows by `COPY` on PostgreSQL, for batches too large for one
 * `unnest` statement to be the cheap way (./unnest.ts): the rows stream into
 * a temporary staging table in COPY's text format, then one
 * `INSERT … SELECT … ORDER BY n` moves them into the table under the same
 * tail (`ON CONFLICT … DO NOTHING`, `RETURNING …`) as the unnest insert. COPY
 * itself cannot skip a key already stored, so the staging step is what keeps
 * a load counted once by the keys local ingestion gives; and rows move in
 * their order, so where a key comes twice the first row is the one kept, as
 * on the row path.
 *
 * The staging table lives in the write's transaction (`ON COMMIT DROP`): a
 * load runs inside a write, and nothing of it outlives that write.
 *
 * @module
 */
import type { Row, SqlParam } from "../rows.ts";
import type { PgQueryable } from "./connection.ts";
import type { UnnestColumns } from "./unnest.ts";

/**
 * Batches of at least this many rows take the COPY path where a store offers both (a large
 * `vantage sync` push, a bulk load). Measured on messages (README, Scale): COPY is 1.02–1.32×
 * the row path in batches of 20,000, but 0.86–0.98× in batches of 2,500 and 0.6–0.7× in batches
 * of 1,000, where making the staging table in each write costs more than it saves.
 */
export const COPY_MIN_ROWS = 5000;

/** Rows per chunk streamed to the server: large enough that a chunk is not a tiny write. */
const ROWS_PER_CHUNK = 500;

/**
 * One field in COPY's text format: `\N` for null; in text, the backslash and the characters
 * that end a field or a row escaped, and NUL (which PostgreSQL's text cannot hold) as U+FFFD,
 * as every other statement of the store stores it.
 */
export function copyField(value: SqlParam): string {
  if (value === null) return "\\N";
  if (typeof value === "number") return String(value);
  // deno-lint-ignore no-control-regex -- NUL is one of the characters this escapes.
  return value.replace(/[\\\t\n\r\u0000]/g, (c) => {
    switch (c) {
      case "\\":
        return "\\\\";
      case "\t":
        return "\\t";
      case "\n":
        return "\\n";
      case "\r":
        return "\\r";
      default:
        return "\ufffd";
    }
  });
}

/** Rows as COPY text, `ROWS_PER_CHUNK` lines a chunk, each row led by its 1-based position. */
export function* copyChunks(rows: ReadonlyArray<readonly SqlParam[]>): Generator<string> {
  for (let from = 0; from < rows.length; from += ROWS_PER_CHUNK) {
    let chunk = "";
    for (let i = from; i < Math.min(rows.length, from + ROWS_PER_CHUNK); i++) {
      chunk += `${i + 1}\t${rows[i].map(copyField).join("\t")}\n`;
    }
    yield chunk;
  }
}

/** An insert of many rows of one table through a COPY into a staging table. */
export interface CopyInsert {
  /** Loads `rows` (each in the columns' order) inside a write; answers what `RETURNING` gave. */
  run(q: PgQueryable, rows: ReadonlyArray<readonly SqlParam[]>): Promise<Row[]>;
}

/**
 * The COPY insert of rows of `columns` into `table`, in the rows' order; `tail` follows the
 * `INSERT … SELECT` (`ON CONFLICT …`, `RETURNING …`), as for {@linkcode unnestInsert}.
 *
 * @example
 * ```ts ignore
 * const load = copyInsert("t", { a: "text", b: "bigint" }, "ON CONFLICT DO NOTHING");
 * await pool.write((w) => load.run(w, [["x", 1], ["y", 2]]));
 * ```
 */
export function copyInsert(table: string, columns: UnnestColumns, tail = ""): CopyInsert {
  const names = Object.keys(columns).join(", ");
  const staging = `vantage_copy_${table}`;
  const typed = Object.entries(columns).map(([name, type]) => `${name} ${type}`).join(", ");
  // IF NOT EXISTS and TRUNCATE: two loads in one write share the write's staging table.
  const create = `CREATE TEMP TABLE IF NOT EXISTS ${staging} (n bigint, ${typed}) ON COMMIT DROP;
    TRUNCATE ${staging}`;
  const copy = `COPY ${staging} (n, ${names}) FROM STDIN`;
  const insert = `INSERT INTO ${table} (${names})
    SELECT ${names} FROM ${staging} ORDER BY n ${tail}`;
  return {
    run(q, rows) {
      if (rows.length === 0) return Promise.resolve([]);
      return q.write(async (w) => {
        // Unprepared: a prepared statement would outlive the table it names.
        await w.exec(create);
        await w.copyIn(copy, copyChunks(rows));
        return await w.query(insert);
      });
    },
  };
}
