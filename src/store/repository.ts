/**
 * The shape every area's store interface takes, and how the SQLite
 * implementation fills it.
 *
 * An area (agent activity, perception, document memory) describes what the
 * rest of Vantage asks of it as one interface — `AgentStore`,
 * `PerceptionStore`, `DocsStore` — written once for every backend. SQLite
 * runs in the same thread and answers at once; a database server such as
 * PostgreSQL answers later. So each interface takes a {@linkcode StoreMode}
 * and every method answers an {@linkcode Answer}: `AgentStore<"sync">` is
 * SQLite's, `AgentStore<"async">` a server's, and code written against
 * `AgentStore<StoreMode>` that awaits each answer runs on either.
 *
 * The SQLite implementation of an area is its repository functions, each
 * taking the connection first (what callers import today), bound to one
 * connection by {@linkcode bindConnection}: the compiler checks that the
 * bound functions are exactly what the interface asks for.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";

/** How a backend answers: at once (`sync`, SQLite in process) or later (`async`, a server). */
export type StoreMode = "sync" | "async";

/**
 * What a store method answers in a mode: the value itself, or a promise of it.
 *
 * @example
 * ```ts
 * import type { Answer } from "./repository.ts";
 * const now: Answer<number, "sync"> = 1;
 * const later: Answer<number, "async"> = Promise.resolve(1);
 * ```
 */
export type Answer<T, M extends StoreMode> = M extends "sync" ? T : Promise<T>;

/** Repository functions of one area, each taking a SQLite connection first. */
// Any argument list: each function keeps its own (see Bound), which `unknown[]` would not admit.
// deno-lint-ignore no-explicit-any
export type ConnectionFunctions = Record<string, (db: DatabaseSync, ...args: any[]) => unknown>;

/** Repository functions with their connection bound: the same functions minus their first argument. */
export type Bound<F extends ConnectionFunctions> = {
  [K in keyof F]: F[K] extends (db: DatabaseSync, ...args: infer A) => infer R ? (...args: A) => R
    : never;
};

/**
 * Binds repository functions to one connection.
 *
 * @example
 * ```ts
 * import { openDatabase, type DatabaseSync } from "./database.ts";
 * import { bindConnection } from "./repository.ts";
 * const one = (db: DatabaseSync, n: number) => db.prepare("SELECT ? AS n").get(n);
 * const store = bindConnection(openDatabase(":memory:"), { one });
 * store.one(1); // { n: 1 }
 * ```
 */
export function bindConnection<F extends ConnectionFunctions>(
  db: DatabaseSync,
  functions: F,
): Bound<F> {
  const bound: Record<string, unknown> = {};
  for (const [name, run] of Object.entries(functions)) {
    bound[name] = (...args: unknown[]) => run(db, ...args);
  }
  // Each entry above is its function of `functions` with `db` as the first argument.
  return bound as Bound<F>;
}
