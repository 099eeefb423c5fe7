/**
 * How the PostgreSQL store's functions become an area's interface, as
 * SQLite's do (../repository.ts): each function takes what it queries on
 * first, and {@linkcode bindQueryable} binds a pool or one write's
 * connection — and how a statement shared with SQLite is spelled here:
 * {@linkcode Params}, which numbers the `$n` parameters of a statement built
 * from filters, and {@linkcode PG_UPSERT}, which writes the shared upserts.
 *
 * @module
 */
import type { SqlParams } from "../params.ts";
import type { UpsertDialect } from "../upserts.ts";
import type { PgQueryable, PgValue } from "./connection.ts";

/** Store functions of one area, each taking what it queries on first. */
// Any argument list: each function keeps its own (see PgBound), which `unknown[]` would not admit.
// deno-lint-ignore no-explicit-any
export type PgFunctions = Record<string, (q: PgQueryable, ...args: any[]) => Promise<unknown>>;

/** The same functions with their queryable bound. */
export type PgBound<F extends PgFunctions> = {
  [K in keyof F]: F[K] extends (q: PgQueryable, ...args: infer A) => infer R ? (...args: A) => R
    : never;
};

/**
 * Binds store functions to a queryable.
 *
 * @example
 * ```ts ignore
 * import { bindQueryable } from "./binding.ts";
 * const one = async (q: PgQueryable, n: number) => (await q.query("SELECT $1::int AS n", [n]))[0];
 * const store = bindQueryable(pool, { one });
 * await store.one(1); // { n: 1 }
 * ```
 */
export function bindQueryable<F extends PgFunctions>(q: PgQueryable, functions: F): PgBound<F> {
  const bound: Record<string, unknown> = {};
  for (const [name, run] of Object.entries(functions)) {
    bound[name] = (...args: unknown[]) => run(q, ...args);
  }
  // Each entry above is its function of `functions` with `q` as the first argument.
  return bound as PgBound<F>;
}

/**
 * The parameters of a statement built piece by piece (see ../params.ts, whose filters both
 * backends share): {@linkcode Params.add} answers the placeholder of the value it adds.
 *
 * @example
 * ```ts
 * import { Params } from "./binding.ts";
 * const p = new Params();
 * `agent = ${p.add("codex")} AND ts >= ${p.add(5)}`; // "agent = $1 AND ts >= $2"
 * p.values; // ["codex", 5]
 * ```
 */
export class Params implements SqlParams {
  /** The values, in placeholder order. */
  readonly values: PgValue[] = [];

  /** Adds a value (an array too); answers its placeholder (`$n`). */
  add(value: PgValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** `column = ANY($n::text[])`: the list is one parameter (empty: no row meets it). */
  oneOf(column: string, values: readonly string[]): string {
    return `${column} = ANY(${this.add(values)}::text[])`;
  }

  /** `expr COLLATE "C"`, whatever the database's locale. */
  bytewise(expr: string): string {
    return `${expr} COLLATE "C"`;
  }

  /** `strpos(text, needle)`. */
  position(text: string, needle: string): string {
    return `strpos(${text}, ${needle})`;
  }

  /** `(column::jsonb ->> 'key')`. */
  jsonText(column: string, key: string): string {
    return `(${column}::jsonb ->> '${key}')`;
  }

  /** `trunc(expr)::bigint` (a plain cast would round). */
  integer(expr: string): string {
    return `trunc(${expr})::bigint`;
  }

  /** The row `(a, b)`: text cannot hold the NUL SQLite's pair is joined with. */
  pair(a: string, b: string): string {
    return `(${a}, ${b})`;
  }
}

/**
 * PostgreSQL's placeholder of a statement's n-th parameter (`$n`): what a statement shared
 * with SQLite (../rows.ts `insertSql`, …) is built with here.
 *
 * @example
 * ```ts
 * import { pgPlaceholder } from "./binding.ts";
 * pgPlaceholder(2); // "$2"
 * ```
 */
export function pgPlaceholder(n: number): string {
  return `$${n}`;
}

/** PostgreSQL's spelling of the upserts both backends share (../upserts.ts). */
export const PG_UPSERT: UpsertDialect = {
  placeholder: pgPlaceholder,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  least: (a, b) => `least(${a}, ${b})`,
};
