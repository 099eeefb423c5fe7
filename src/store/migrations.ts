/**
 * The schema, as numbered migrations applied in order at open. A migration
 * is never edited once shipped: a later change is a new number.
 *
 * @module
 */

/** One schema step. */
export interface Migration {
  /** Strictly increasing version number. */
  version: number;
  /** What the step adds, for the `schema_migrations` log. */
  name: string;
  /** The DDL, run inside one transaction. */
  sql: string;
}

/** Every migration Vantage ships, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "store metadata",
    sql: `
      CREATE TABLE store_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
];
