/**
 * A store connection that notes every statement it runs (its SQL, once per
 * run), for tests that count what a code path reads. Statements are prepared
 * once per connection and then run many times, so runs, not preparations,
 * are the reads.
 */
import type { SQLInputValue, StatementSync } from "node:sqlite";
import type { DatabaseSync } from "../../src/store/database.ts";

/** `db` with every statement run noted in `statements`. */
export function countingRuns(db: DatabaseSync): { db: DatabaseSync; statements: string[] } {
  const statements: string[] = [];
  const noting = (statement: StatementSync, sql: string): StatementSync =>
    new Proxy(statement, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        const bound = value.bind(target);
        if (property !== "all" && property !== "get" && property !== "iterate") return bound;
        return (...args: SQLInputValue[]) => {
          statements.push(sql);
          return bound(...args);
        };
      },
    });
  const proxy = new Proxy(db, {
    get(target, property) {
      if (property === "prepare") return (sql: string) => noting(target.prepare(sql), sql);
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, statements };
}
