/**
 * Opening a PostgreSQL store: connect (failing fast, with one message that
 * names the server and what failed), migrate, and hand out the areas that
 * run on PostgreSQL so far. Team mode is being built area by area; what is
 * ready is listed in {@linkcode PG_READY_AREAS}, what is not in
 * {@linkcode PG_PENDING_AREAS}, so a caller can say exactly that instead of
 * pretending.
 *
 * @module
 */
import type { AgentStore, MessageSearch } from "../agent/agent_store.ts";
import type { DocsStore } from "../docs/docs_store.ts";
import type { PerceptionStore } from "../perception/perception_store.ts";
import type { Store } from "../store.ts";
import type { TelemetryStore } from "../telemetry/telemetry_store.ts";
import { pgAgentStore, pgMessageSearch } from "./agent/agent_store.ts";
import {
  checkReachable,
  openPgPool,
  type PgPool,
  type PgPoolOptions,
  type PgQueryable,
} from "./connection.ts";
import { migratePostgres } from "./migrate.ts";
import { withPending } from "./pending_area.ts";
import { changeMarks, getStoreMeta, setStoreMeta } from "./store_meta.ts";
import { pgTeamStore } from "./team/team_store.ts";
import { pgPerceptionStore } from "./perception/perception_store.ts";
import type { PostgresLocation } from "./store_url.ts";
import { pgTelemetryStore } from "./telemetry/telemetry_store.ts";

/** The store areas that run on PostgreSQL, as people name them. */
export const PG_READY_AREAS: readonly string[] = [
  "agent activity",
  "perception",
  "telemetry",
  "team people",
];

/** The store areas (and the parts above them) that do not run on PostgreSQL yet. */
export const PG_PENDING_AREAS: readonly string[] = [
  "document memory",
  "read-only SQL",
];

/** An open PostgreSQL store: its pool and the areas ready on it. */
export interface PostgresStore {
  /** The pool every area queries. */
  readonly pool: PgPool;
  /** The server's version, as it reports it. */
  readonly serverVersion: string;
  /** The migrations this open applied (none when the database was up to date). */
  readonly migrated: readonly number[];
  /** Agent activity. */
  readonly agent: AgentStore<"async">;
  /** Word search over transcript messages. */
  readonly messageSearch: MessageSearch<"async">;
  /** Builds, file changes, git moves, anomalies, project state. */
  readonly perception: PerceptionStore<"async">;
  /** OpenTelemetry intake and its reads. */
  readonly telemetry: TelemetryStore<"async">;
  /** Every area as one {@linkcode Store} (what operations run on); pending parts reject. */
  readonly store: Store<"async">;
  /** Closes the pool. */
  close(): Promise<void>;
}

/**
 * Connects to the store at `location`, checks the server answers, and migrates it. Throws
 * the store error that says what failed (`unavailable` for a server that cannot be reached or
 * refuses, naming the URL with its password redacted); nothing stays open after a failure.
 *
 * @example
 * ```ts ignore
 * import { openPostgresStore } from "./postgres_store.ts";
 * import { parseStoreLocation } from "./store_url.ts";
 * const location = parseStoreLocation("postgres://vantage@db.internal/team");
 * if (location.kind === "postgres") {
 *   const store = await openPostgresStore(location);
 *   await store.agent.getSession("abc");
 *   await store.close();
 * }
 * ```
 */
export async function openPostgresStore(
  location: PostgresLocation,
  options: PgPoolOptions = {},
): Promise<PostgresStore> {
  const pool = openPgPool(location, options);
  try {
    const serverVersion = await checkReachable(pool);
    const migrated = await migratePostgres(pool);
    return {
      pool,
      serverVersion,
      migrated,
      agent: pgAgentStore(pool),
      messageSearch: pgMessageSearch(pool),
      perception: pgPerceptionStore(pool),
      telemetry: pgTelemetryStore(pool),
      store: pgStore(pool),
      close: () => pool.close(),
    };
  } catch (error) {
    await pool.close(0);
    throw error;
  }
}

/**
 * The whole store on a pool (or one write's connection): a transaction hands its work the
 * same store bound to that write's connection. Document memory, not ported yet, rejects with
 * `unavailable` (see pending_area.ts).
 */
export function pgStore(q: PgQueryable): Store<"async"> {
  return {
    agent: pgAgentStore(q),
    perception: pgPerceptionStore(q),
    docs: withPending<DocsStore<"async">>({}, "document memory"),
    telemetry: pgTelemetryStore(q),
    team: pgTeamStore(q),
    changeMarks: () => changeMarks(q),
    getStoreMeta: (key) => getStoreMeta(q, key),
    setStoreMeta: (key, value) => setStoreMeta(q, key, value),
    transaction: (work) => q.write((w) => work(pgStore(w))),
  };
}
