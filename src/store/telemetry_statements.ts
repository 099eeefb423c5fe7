/**
 * Prepared statements of the telemetry tables (and of the usage rows
 * telemetry and transcripts count calls in), kept per connection: an export
 * of a thousand spans runs the same few statements many times, and
 * preparing costs more than running.
 *
 * @module
 */
import type { StatementSync } from "node:sqlite";
import type { DatabaseSync } from "./database.ts";

const CACHE = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** The statement for `sql` on `db`, prepared once. */
export function telemetryStatement(db: DatabaseSync, sql: string): StatementSync {
  let statements = CACHE.get(db);
  if (statements === undefined) {
    statements = new Map();
    CACHE.set(db, statements);
  }
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
