/**
 * Upserts described as tables: each column with the rule that merges a new row's value into
 * the stored one, written as SQL for either backend. The sessions' upserts (what a transcript
 * says, what a hook says, a batch's totals, telemetry's facts) are defined this way once, so
 * SQLite and PostgreSQL merge a session by the same rules; each backend writes them with its
 * own placeholders and its own names for the greater and the lesser of two values.
 *
 * @module
 */

/** How an upsert merges a column's new value into the stored row. */
export type MergeRule =
  /** Written by the insert only (a key, a session's agent). */
  | "insert"
  /** The stored value, else the new one. */
  | "first"
  /** The new value, else the stored one. */
  | "latest"
  /** The new value. */
  | "replace"
  /** The stored value plus the new one (a counter). */
  | "sum"
  /** The greater of the two. */
  | "greatest"
  /** The lesser of the two. */
  | "least"
  /** The earlier of two start times where 0 means "not known yet": an unknown never wins. */
  | "earliest_start";

/**
 * A table's upsert: its conflict key, and its columns in parameter order, each with its rule;
 * a column given as `[rule, literal]` inserts that SQL literal instead of a parameter.
 */
export interface UpsertTable {
  /** The table. */
  table: string;
  /** The column (or columns) of the unique key a new row may meet. */
  key: string;
  /** The columns, in the order of the statement's parameters. */
  columns: Readonly<Record<string, MergeRule | readonly [MergeRule, string]>>;
}

/** How a backend writes what SQLite and PostgreSQL spell differently in an upsert. */
export interface UpsertDialect {
  /** The placeholder of the n-th parameter. */
  placeholder(n: number): string;
  /** The greater of two values. */
  greatest(a: string, b: string): string;
  /** The lesser of two values. */
  least(a: string, b: string): string;
}

/** SQLite's: `?`, and the two-argument `max` and `min`. */
export const SQLITE_UPSERT: UpsertDialect = {
  placeholder: () => "?",
  greatest: (a, b) => `max(${a}, ${b})`,
  least: (a, b) => `min(${a}, ${b})`,
};

/** The update of `column` by `rule` (undefined: the insert's only). */
function merged(
  rule: MergeRule,
  table: string,
  column: string,
  d: UpsertDialect,
): string | undefined {
  const stored = `${table}.${column}`;
  const fresh = `excluded.${column}`;
  switch (rule) {
    case "insert":
      return undefined;
    case "first":
      return `coalesce(${stored}, ${fresh})`;
    case "latest":
      return `coalesce(${fresh}, ${stored})`;
    case "replace":
      return fresh;
    case "sum":
      return `${stored} + ${fresh}`;
    case "greatest":
      return d.greatest(stored, fresh);
    case "least":
      return d.least(stored, fresh);
    case "earliest_start":
      return `CASE WHEN ${stored} <= 0 THEN ${fresh} WHEN ${fresh} <= 0 THEN ${stored} ELSE ${
        d.least(stored, fresh)
      } END`;
  }
}

/**
 * The upsert statement of `u` in dialect `d`.
 *
 * @example
 * ```ts
 * import { SQLITE_UPSERT, upsertSql } from "./upserts.ts";
 * upsertSql({ table: "t", key: "k", columns: { k: "insert", n: "sum" } }, SQLITE_UPSERT);
 * // "INSERT INTO t (k, n) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET n = t.n + excluded.n"
 * ```
 */
export function upsertSql(u: UpsertTable, d: UpsertDialect): string {
  const names = Object.keys(u.columns);
  const values: string[] = [];
  const updates: string[] = [];
  let params = 0;
  for (const name of names) {
    const column = u.columns[name];
    const [rule, literal] = typeof column === "string" ? [column, undefined] : column;
    values.push(literal ?? d.placeholder(++params));
    const update = merged(rule, u.table, name, d);
    if (update !== undefined) updates.push(`${name} = ${update}`);
  }
  return `INSERT INTO ${u.table} (${names.join(", ")}) VALUES (${values.join(", ")})
    ON CONFLICT (${u.key}) DO UPDATE SET ${updates.join(", ")}`;
}
