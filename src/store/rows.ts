/**
 * Typed row mappers. `node:sqlite` answers a query with plain records of
 * `null | number | bigint | string | Uint8Array`; a {@linkcode RowReader}
 * turns such a record into a typed row, checking every column it names, so
 * a query and its row type cannot drift apart unnoticed: a missing column or
 * a value of the wrong kind fails at once with an error naming the row type
 * and the column, instead of travelling on under a cast.
 *
 * The shape a reader is built from is checked against its row type at
 * compile time ({@linkcode RowShape}), and it also gives the SELECT list
 * ({@linkcode RowReader.columns}), so the columns are written once.
 *
 * Imports no Node built-in, so workers may use it.
 *
 * @module
 */
import type { SQLOutputValue } from "node:sqlite";
import { VantageError } from "../core/errors.ts";

/** A row as `node:sqlite` returns it. */
export type Row = Record<string, SQLOutputValue>;

/**
 * A statement parameter every backend binds as it is (text, a number or NULL): what the
 * shared functions that list a record's parameters in a statement's column order answer.
 */
export type SqlParam = string | number | null;

/** How one column is read: its kind, and `?` when it may be NULL. */
export type ColumnKind = "text" | "text?" | "number" | "number?" | "bytes" | "bytes?";

/**
 * The column kind that reads a field of type `V`, or `never` when no kind
 * gives exactly `V` (a string-literal union, say, which SQLite cannot
 * promise: such a field is read as text and narrowed by the caller).
 */
export type KindOf<V> = [V] extends [string] ? (string extends V ? "text" : never)
  : [V] extends [string | null] ? (string extends V ? "text?" : never)
  : [V] extends [number] ? (number extends V ? "number" : never)
  : [V] extends [number | null] ? (number extends V ? "number?" : never)
  : [V] extends [Uint8Array] ? "bytes"
  : [V] extends [Uint8Array | null] ? "bytes?"
  : never;

/**
 * The columns of a row type with the kind each is read as. An optional field
 * is read like a required one (a query that selects it always gives a value,
 * maybe NULL); a query that leaves it out reads with a reader of the type
 * without it.
 */
export type RowShape<T> = { readonly [K in keyof T]-?: KindOf<Exclude<T[K], undefined>> };

function fits(value: SQLOutputValue | undefined, kind: ColumnKind): boolean {
  switch (kind) {
    case "text":
      return typeof value === "string";
    case "text?":
      return typeof value === "string" || value === null;
    case "number":
      return typeof value === "number";
    case "number?":
      return typeof value === "number" || value === null;
    case "bytes":
      return value instanceof Uint8Array;
    case "bytes?":
      return value instanceof Uint8Array || value === null;
  }
}

function describe(value: SQLOutputValue | undefined): string {
  if (value === undefined) return "missing";
  if (value === null) return "NULL";
  if (value instanceof Uint8Array) return "a BLOB";
  return `a ${typeof value}`;
}

/**
 * Reads rows of one type from query results.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { RowReader } from "./rows.ts";
 * const PERSON = new RowReader<{ name: string; age: number | null }>("person", {
 *   name: "text",
 *   age: "number?",
 * });
 * const db = new DatabaseSync(":memory:");
 * const row = db.prepare(`SELECT 'Ada' AS name, NULL AS age`).get();
 * PERSON.optional(row); // { name: "Ada", age: null }
 * PERSON.columns; // "name, age"
 * db.exec(`CREATE TABLE people (name TEXT, age INTEGER)`);
 * db.prepare(PERSON.insertSql("people")).run(...PERSON.valuesOf({ name: "Ada", age: 36 }));
 * ```
 */
export class RowReader<T extends object> {
  readonly #entries: ReadonlyArray<readonly [string, ColumnKind]>;

  /**
   * @param name What a row is, for error messages (`session`, `build run`).
   * @param shape Each column and the kind it is read as, in SELECT order.
   */
  constructor(readonly name: string, shape: RowShape<T>) {
    // Object.entries types a mapped type's values loosely; RowShape allows only ColumnKinds.
    const entries: Array<[string, ColumnKind]> = Object.entries(shape);
    this.#entries = entries;
  }

  /** The column names, comma-separated, in shape order: a SELECT list. */
  get columns(): string {
    return this.#entries.map(([column]) => column).join(", ");
  }

  /**
   * The column names qualified by a table alias (`s.session_id, s.agent, …`), but for
   * `computed` ones, which the query computes itself.
   */
  columnsOf(alias: string, computed: readonly string[] = []): string {
    return this.#entries.filter(([column]) => !computed.includes(column))
      .map(([column]) => `${alias}.${column}`).join(", ");
  }

  /**
   * An INSERT of one row of this type into `table`, its columns in shape order: the
   * statement whose parameters {@linkcode RowReader.valuesOf} gives, so a table whose
   * rows are written as read names its columns once. `mark` writes the placeholder of the
   * n-th parameter (SQLite's `?` by default; PostgreSQL's is `$n`).
   */
  insertSql(table: string, mark: (n: number) => string = () => "?"): string {
    const marks = this.#entries.map((_, i) => mark(i + 1)).join(", ");
    return `INSERT INTO ${table} (${this.columns}) VALUES (${marks})`;
  }

  /** A row's values in shape order: the parameters of {@linkcode RowReader.insertSql}. */
  valuesOf(row: T): Array<Exclude<T[keyof T], undefined> | null> {
    // The shape names only T's fields; an absent optional one is bound as NULL.
    const fields = row as Record<string, Exclude<T[keyof T], undefined> | undefined>;
    return this.#entries.map(([column]) => fields[column] ?? null);
  }

  /** The row a query always returns (an aggregate's): fails when there is none. */
  one(row: Row | undefined): T {
    if (row === undefined) {
      throw new VantageError("internal_error", `the store returned no ${this.name} row`);
    }
    return this.#read(row);
  }

  /** The row of a query that may find nothing. */
  optional(row: Row | undefined): T | undefined {
    return row === undefined ? undefined : this.#read(row);
  }

  /** Every row of a result. */
  all(rows: readonly Row[]): T[] {
    const out: T[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.#read(rows[i]);
    return out;
  }

  #read(row: Row): T {
    const out: Row = {};
    for (const [column, kind] of this.#entries) {
      const value = row[column];
      if (!fits(value, kind)) {
        throw new VantageError(
          "internal_error",
          `the store's ${this.name} row has ${describe(value)} in column ${column}, not ${kind}`,
          { details: { row: this.name, column } },
        );
      }
      out[column] = value;
    }
    // Every column of T's shape was checked above to hold a value of its field's type.
    return out as T;
  }
}

/**
 * Some columns of a shape, in the order given: the shape of a query that selects part of a
 * row.
 *
 * @example
 * ```ts
 * import { pickColumns, type RowShape } from "./rows.ts";
 * const PERSON: RowShape<{ name: string; age: number }> = { name: "text", age: "number" };
 * pickColumns(PERSON, ["age"]); // { age: "number" }
 * ```
 */
export function pickColumns<T, K extends keyof T & string>(
  shape: RowShape<T>,
  columns: readonly K[],
): RowShape<Pick<T, K>> {
  const picked: Partial<RowShape<Pick<T, K>>> = {};
  for (const column of columns) picked[column] = shape[column];
  // Every column of Pick<T, K> was set above (K is exactly the columns given).
  return picked as RowShape<Pick<T, K>>;
}

/**
 * The numbers in one column of every row, checked: the ids of `SELECT id …`.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { numberColumn } from "./rows.ts";
 * const db = new DatabaseSync(":memory:");
 * numberColumn(db.prepare("SELECT 1 AS id UNION SELECT 2").all(), "id"); // [1, 2]
 * ```
 */
export function numberColumn(rows: readonly Row[], column: string): number[] {
  return rows.map((row) => {
    const value = row[column];
    if (typeof value !== "number") throw columnMismatch(column, "number", value);
    return value;
  });
}

/**
 * The strings in one column of every row, checked.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { textColumn } from "./rows.ts";
 * const db = new DatabaseSync(":memory:");
 * textColumn(db.prepare("SELECT 'a' AS term").all(), "term"); // ["a"]
 * ```
 */
export function textColumn(rows: readonly Row[], column: string): string[] {
  return rows.map((row) => {
    const value = row[column];
    if (typeof value !== "string") throw columnMismatch(column, "text", value);
    return value;
  });
}

function columnMismatch(column: string, kind: ColumnKind, value: SQLOutputValue | undefined) {
  return new VantageError(
    "internal_error",
    `the store returned ${describe(value)} in column ${column}, not ${kind}`,
    { details: { column } },
  );
}
