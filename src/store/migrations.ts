/**
 * The schema, as numbered migrations applied in order at open (see
 * database.ts's `migrate`). Each area keeps its own steps beside its
 * repository functions — agent activity in agent/schema.ts, perception in
 * perception/schema.ts, document memory in docs/schema.ts, telemetry in
 * telemetry/schema.ts, a team server's people in team/schema.ts — and this
 * module puts them in one list. A migration is never edited once shipped: a
 * later change is a new number, unique across every area, in the area's
 * list. Which migrations a store has run is recorded per version, so a
 * store made by any earlier version opens and catches up.
 *
 * @module
 */
import { AGENT_MIGRATIONS } from "./agent/schema.ts";
import { DOCS_MIGRATIONS } from "./docs/schema.ts";
import { PERCEPTION_MIGRATIONS } from "./perception/schema.ts";
import { TEAM_MIGRATIONS } from "./team/schema.ts";
import { TELEMETRY_MIGRATIONS } from "./telemetry/schema.ts";

/** One schema step. */
export interface Migration {
  /** Strictly increasing version number, unique across areas. */
  version: number;
  /** What the step adds, for the `schema_migrations` log. */
  name: string;
  /** The DDL, run inside one transaction. */
  sql: string;
}

/** The store-wide migrations (settings that belong to no area). */
const STORE_MIGRATIONS: readonly Migration[] = [
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

/** Every migration Vantage ships, in version order. */
export const MIGRATIONS: readonly Migration[] = [
  ...STORE_MIGRATIONS,
  ...AGENT_MIGRATIONS,
  ...PERCEPTION_MIGRATIONS,
  ...DOCS_MIGRATIONS,
  ...TELEMETRY_MIGRATIONS,
  ...TEAM_MIGRATIONS,
].sort((a, b) => a.version - b.version);
