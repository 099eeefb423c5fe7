/**
 * Opening a PostgreSQL store: connect (failing fast, with one message that
 * names the server and what failed), migrate, and hand out every area of the
 * store on the pool ({@linkcode PG_READY_AREAS} names them as people do).
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
import { type PgDocsSearch, pgDocsSearch, pgDocsStore } from "./docs/docs_store.ts";
import { migratePostgres } from "./migrate.ts";
import { PgQueryRunner, unavailableQueries } from "./query/pg_query_runner.ts";
import { prepareQueryRoles, type QueryRolesState } from "./query/query_roles.ts";
import { VantageError } from "../../core/errors.ts";
import type { ReadOnlyQueries } from "../query/readonly_query.ts";
import { changeMarks, getStoreMeta, setStoreMeta } from "./store_meta.ts";
import { pgTeamStore } from "./team/team_store.ts";
import { pgPerceptionStore } from "./perception/perception_store.ts";
import type { PostgresLocation } from "./store_url.ts";
import { pgTelemetryStore } from "./telemetry/telemetry_store.ts";

/** The store areas that run on PostgreSQL, as people name them: every area. */
export const PG_READY_AREAS: readonly string[] = [
  "agent activity",
  "perception",
  "telemetry",
  "team people",
  "read-only SQL",
  "OpenTelemetry intake",
  "document memory",
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
  /** Document memory's store. */
  readonly docs: DocsStore<"async">;
  /** Keyword search over documents, and how the server can hold vectors. */
  readonly docsSearch: PgDocsSearch;
  /** Every area as one {@linkcode Store} (what operations run on); pending parts reject. */
  readonly store: Store<"async">;
  /**
   * Read-only SQL (`exec_query`), run as the read-only role of the caller's scopes; when the
   * roles could not be made, every query is refused `unavailable` with {@linkcode queriesOff}.
   */
  readonly queries: ReadOnlyQueries;
  /** Why read-only SQL is off (one line, for the server's log at start), or undefined. */
  readonly queriesOff: string | undefined;
  /** Closes the pool and the queries' connections. */
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
  options: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const pool = openPgPool(location, options);
  try {
    const serverVersion = await checkReachable(pool);
    const migrated = await migratePostgres(pool);
    const roles = await queryRolesOf(pool);
    const queries = roles.ready
      ? new PgQueryRunner({
        location,
        roles: roles.roles,
        ...(options.queryTimeoutMs !== undefined ? { timeoutMs: options.queryTimeoutMs } : {}),
        ...(options.connectTimeoutS !== undefined
          ? { connectTimeoutS: options.connectTimeoutS }
          : {}),
      })
      : unavailableQueries(roles.reason, options.queryTimeoutMs);
    return {
      pool,
      serverVersion,
      migrated,
      agent: pgAgentStore(pool),
      messageSearch: pgMessageSearch(pool),
      perception: pgPerceptionStore(pool),
      telemetry: pgTelemetryStore(pool),
      docs: pgDocsStore(pool),
      docsSearch: pgDocsSearch(pool),
      store: pgStore(pool),
      queries,
      queriesOff: roles.ready ? undefined : roles.reason,
      close: async () => {
        await queries.close();
        await pool.close();
      },
    };
  } catch (error) {
    await pool.close(0);
    throw error;
  }
}

/** Options of {@linkcode openPostgresStore}: the pool's, and read-only SQL's time limit. */
export interface PostgresStoreOptions extends PgPoolOptions {
  /** Deadline of a read-only SQL query, ms (default the SQLite runner's). */
  queryTimeoutMs?: number;
}

/**
 * The query roles, made or checked. The server being away fails the open as any other step
 * would; anything else that stops the roles (no right to make a schema, …) turns read-only
 * SQL off with the reason, and the rest of the store serves.
 */
async function queryRolesOf(pool: PgPool): Promise<QueryRolesState> {
  try {
    return await prepareQueryRoles(pool);
  } catch (error) {
    if (error instanceof VantageError && error.kind === "unavailable") throw error;
    return {
      ready: false,
      reason: `read-only SQL is off: its read-only roles could not be set up: ${
        error instanceof Error ? error.message : String(error)
      }`,
    };
  }
}

/**
 * The whole store on a pool (or one write's connection): a transaction hands its work the
 * same store bound to that write's connection. Document memory's store answers here; the
 * document operations above it refuse on PostgreSQL until the engine runs on it (see
 * ../../ops/postgres_services.ts).
 */
export function pgStore(q: PgQueryable): Store<"async"> {
  return {
    agent: pgAgentStore(q),
    perception: pgPerceptionStore(q),
    docs: pgDocsStore(q),
    telemetry: pgTelemetryStore(q),
    team: pgTeamStore(q),
    changeMarks: () => changeMarks(q),
    getStoreMeta: (key) => getStoreMeta(q, key),
    setStoreMeta: (key, value) => setStoreMeta(q, key, value),
    transaction: (work) => q.write((w) => work(pgStore(w))),
  };
}
