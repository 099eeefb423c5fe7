/**
 * An area, or the part of one, that does not run on PostgreSQL yet. Team mode is built area
 * by area; a server on PostgreSQL must say plainly what it cannot do rather than answer
 * wrongly, so every method not implemented here rejects with `unavailable`, naming the area
 * and the method — the operation's caller sees that line, and the rest of the server works.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";

/**
 * `ready`'s methods, and for every other name a method that rejects with `unavailable`.
 *
 * @example
 * ```ts ignore
 * const docs = withPending<DocsStore<"async">>({}, "document memory");
 * await docs.documentTotals(); // rejects: document memory is not on PostgreSQL yet
 * ```
 */
export function withPending<T extends object>(ready: Partial<T>, area: string): T {
  return new Proxy(ready, {
    get(target, name, receiver) {
      if (typeof name !== "string" || name in target) return Reflect.get(target, name, receiver);
      // A promise-like check (`then`) must not find a method: the area is not a promise.
      if (name === "then") return undefined;
      return () =>
        Promise.reject(
          new VantageError(
            "unavailable",
            `${area} is not on PostgreSQL yet (${name}); run serve on SQLite for it`,
            { details: { area, method: name } },
          ),
        );
    },
  }) as T;
}
