/**
 * The team area's schema: the people a team server knows, each with the
 * SHA-256 of their token (the token itself is shown once, when issued, and
 * never stored).
 *
 * Tables, as the migrations below leave them:
 *
 * - `team_people`: one row per person: `name` (unique, the key their
 *   hooks, sessions and documents are attributed to), `role` (`member` or
 *   `admin`), `token_hash` (hex SHA-256 of their bearer token), `created_at`,
 *   and `revoked_at` (null while the token is valid).
 *
 * Revocations also advance `team.revocations` in `store_meta`, so a process
 * that caches token lookups sees at once that one of its entries may be
 * stale, whichever process revoked it.
 *
 * A migration is never edited once shipped: a change is a new number, added
 * to this list (numbers are unique across areas; see ../migrations.ts).
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The team area's migrations, oldest first. */
export const TEAM_MIGRATIONS: readonly Migration[] = [
  {
    version: 22,
    name: "team people: per-person bearer tokens (their SHA-256 only), roles and revocation",
    sql: `
      CREATE TABLE team_people (
        name       TEXT PRIMARY KEY,
        role       TEXT NOT NULL CHECK (role IN ('member', 'admin')),
        token_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
    `,
  },
];
