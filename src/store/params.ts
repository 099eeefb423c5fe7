/**
 * A statement built piece by piece, on any backend: each value added answers its own
 * placeholder, numbered (`?1` on SQLite, `$1` on PostgreSQL), and the few things the two
 * dialects spell differently are asked of it too, so a statement whose logic is the same on
 * both (a filter's conditions, a telemetry read) is written once, by code both backends
 * share, and each backend runs it with its own {@linkcode SqlParams}. SQLite's numbered
 * placeholders bind the values given in order, as its plain `?` does.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { RowReader, SqlParam } from "./rows.ts";
import { prepared } from "./statements.ts";

/** The values of a statement being built, and the spellings its backend's SQL needs. */
export interface SqlParams {
  /** Adds a value; answers its placeholder. */
  add(value: SqlParam): string;
  /** The condition that `column` is one of `values` (none: a condition no row meets). */
  oneOf(column: string, values: readonly string[]): string;
  /** `expr` sorted byte by byte, as SQLite sorts text (for an `ORDER BY`). */
  bytewise(expr: string): string;
  /** Where `needle` first starts in `text`, from 1 (0: nowhere). */
  position(text: string, needle: string): string;
  /** The value of the top-level `key` of the JSON object in text column `column`, as text. */
  jsonText(column: string, key: string): string;
  /** A number cut to a whole number, toward zero, as an integer. */
  integer(expr: string): string;
  /** One value standing for the pair of text values `a` and `b` (for a distinct count). */
  pair(a: string, b: string): string;
}

/**
 * SQLite's parameters: `?1`, `?2`, … in the order added; a list as one placeholder per
 * value.
 *
 * @example
 * ```ts
 * import { SqliteParams } from "./params.ts";
 * const p = new SqliteParams();
 * `ts >= ${p.add(5)} AND ${p.oneOf("agent", ["codex", "claude_code"])}`;
 * // "ts >= ?1 AND agent IN (?2, ?3)"
 * p.values; // [5, "codex", "claude_code"]
 * ```
 */
export class SqliteParams implements SqlParams {
  /** The values, in placeholder order. */
  readonly values: SqlParam[] = [];

  /** Adds a value; answers its placeholder (`?n`). */
  add(value: SqlParam): string {
    this.values.push(value);
    return `?${this.values.length}`;
  }

  /** `column IN (?n, …)`; `IN (NULL)` for no values, which no row meets. */
  oneOf(column: string, values: readonly string[]): string {
    return `${column} IN (${values.map((value) => this.add(value)).join(", ") || "NULL"})`;
  }

  /** `expr` itself: SQLite sorts text byte by byte. */
  bytewise(expr: string): string {
    return expr;
  }

  /** `instr(text, needle)`. */
  position(text: string, needle: string): string {
    return `instr(${text}, ${needle})`;
  }

  /** `CAST(json_extract(column, '$."key"') AS TEXT)`. */
  jsonText(column: string, key: string): string {
    return `CAST(json_extract(${column}, '$."${key}"') AS TEXT)`;
  }

  /** `CAST(expr AS INTEGER)`, which cuts toward zero. */
  integer(expr: string): string {
    return `CAST(${expr} AS INTEGER)`;
  }

  /** `a || char(0) || b`. */
  pair(a: string, b: string): string {
    return `${a} || char(0) || ${b}`;
  }
}

/** A statement built around its parameters (see {@linkcode SqlParams}). */
export type BuiltStatement = (p: SqlParams) => string;

/**
 * The rows `reader` reads from the statement `build` makes, run on SQLite connection `db`
 * with its values.
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { builtRows } from "./params.ts";
 * import { RowReader } from "./rows.ts";
 * const N = new RowReader<{ n: number }>("number", { n: "number" });
 * builtRows(new DatabaseSync(":memory:"), N, (p) => `SELECT ${p.add(7)} AS n`); // [{ n: 7 }]
 * ```
 */
export function builtRows<T extends object>(
  db: DatabaseSync,
  reader: RowReader<T>,
  build: BuiltStatement,
): T[] {
  const p = new SqliteParams();
  const sql = build(p);
  return reader.all(prepared(db, sql).all(...p.values));
}

/**
 * The one row an aggregate built by `build` answers on SQLite connection `db` (see
 * {@linkcode builtRows}).
 *
 * @example
 * ```ts
 * import { DatabaseSync } from "node:sqlite";
 * import { builtRow } from "./params.ts";
 * import { RowReader } from "./rows.ts";
 * const N = new RowReader<{ n: number }>("count", { n: "number" });
 * builtRow(new DatabaseSync(":memory:"), N, (p) => `SELECT ${p.add(7)} AS n`); // { n: 7 }
 * ```
 */
export function builtRow<T extends object>(
  db: DatabaseSync,
  reader: RowReader<T>,
  build: BuiltStatement,
): T {
  const p = new SqliteParams();
  const sql = build(p);
  return reader.one(prepared(db, sql).get(...p.values));
}
