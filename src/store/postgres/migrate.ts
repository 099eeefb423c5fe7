/**
 * The PostgreSQL store's schema: each area's migrations (its own module
 * beside this one, mirroring SQLite's tables) in one list, and the runner
 * that applies what a database lacks. Several servers may start against one
 * database at once: the runner holds a transaction-scoped advisory lock, so
 * one of them migrates and the others find the work done when they get the
 * lock. Versions are the SQLite area's numbers where a step mirrors one;
 * the list is its own, so the two backends may take different steps.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import type { Migration } from "../migrations.ts";
import { PG_AGENT_MIGRATIONS } from "./agent_schema.ts";
import type { PgQueryable } from "./connection.ts";
import { PG_DOCS_MIGRATIONS } from "./docs_schema.ts";
import { PG_PERCEPTION_MIGRATIONS } from "./perception_schema.ts";
import { PG_TEAM_MIGRATIONS } from "./team_schema.ts";
import { PG_TELEMETRY_MIGRATIONS } from "./telemetry_schema.ts";

/** Store-wide settings (belonging to no area). */
const PG_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "store metadata",
    sql: `CREATE TABLE store_meta (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);`,
  },
];

/** Every PostgreSQL migration, in version order. */
export const PG_MIGRATIONS: readonly Migration[] = [
  ...PG_STORE_MIGRATIONS,
  ...PG_AGENT_MIGRATIONS,
  ...PG_PERCEPTION_MIGRATIONS,
  ...PG_DOCS_MIGRATIONS,
  ...PG_TELEMETRY_MIGRATIONS,
  ...PG_TEAM_MIGRATIONS,
].sort((a, b) => a.version - b.version);

/** The advisory lock every Vantage migration run takes ('vant' in ASCII). */
export const MIGRATION_LOCK = 0x76616e74;

/**
 * Applies the migrations `db` lacks, in one transaction under the migration lock; answers the
 * versions applied (none when another server got there first). A database migrated by a newer
 * Vantage (versions this one does not know) is refused, not written to.
 *
 * @example
 * ```ts ignore
 * import { migratePostgres } from "./migrate.ts";
 * await migratePostgres(pool); // [1, 2, 3, 18] the first time, [] after
 * ```
 */
export function migratePostgres(
  db: PgQueryable,
  migrations: readonly Migration[] = PG_MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  return db.write(async (q) => {
    await q.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await q.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at bigint NOT NULL
    )`);
    const rows = await q.query("SELECT version FROM schema_migrations");
    const done = new Set(rows.map((row) => Number(row.version)));
    const known = new Set(migrations.map((m) => m.version));
    const unknown = [...done].filter((version) => !known.has(version));
    if (unknown.length > 0) {
      throw new VantageError(
        "unavailable",
        `the PostgreSQL store was migrated by a newer Vantage (schema versions ${
          unknown.join(", ")
        } are unknown here): upgrade Vantage`,
      );
    }
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await q.exec(migration.sql);
      await q.query(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
        [
          migration.version,
          migration.name,
          now(),
        ],
      );
      applied.push(migration.version);
    }
    return applied;
  });
}
