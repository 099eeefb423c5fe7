/**
 * The team area's schema on PostgreSQL, mirroring SQLite's (../team/schema.ts): the people a
 * team server issued tokens to, each with the SHA-256 of their token, never the token.
 *
 * A migration is never edited once shipped: a change is a new number.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The team area's PostgreSQL migrations, oldest first. */
export const PG_TEAM_MIGRATIONS: readonly Migration[] = [
  {
    version: 22,
    name: "team people: per-person bearer tokens (their SHA-256 only), roles and revocation",
    sql: `
      CREATE TABLE team_people (
        name       text COLLATE "C" PRIMARY KEY,
        role       text NOT NULL CHECK (role IN ('member', 'admin')),
        token_hash text COLLATE "C" NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        revoked_at bigint
      );
    `,
  },
];
