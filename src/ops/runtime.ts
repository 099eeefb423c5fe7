/**
 * How a Vantage process provides the services its operations use: paths
 * from the environment and the SQLite store opened on first use. The keys
 * live in `service_keys.ts` (re-exported here), so an operation can name a
 * service without loading what provides it.
 *
 * @module
 */
import { readEnv, resolvePaths, type VantagePaths } from "../core/config.ts";
import { documentRoots } from "../core/permissions.ts";
import { makePrivateFolderSync } from "../core/private_files.ts";
import { releaseConnection } from "../store/connection_releases.ts";
import { openDatabase } from "../store/database.ts";
import { closeDocsIndex } from "../store/docs/search_index.ts";
import { sqliteMessageSearch } from "../store/agent/agent_store.ts";
import { openMessageIndex } from "../store/agent/message_index.ts";
import { DEFAULT_QUERY_TIMEOUT_MS, QueryRunner } from "../store/query/readonly_query.ts";
import { sqliteStore } from "../store/store.ts";
import { noticeDamageIn } from "../store/store_health.ts";
import { FAILURE_OBSERVER } from "./executor.ts";
import {
  CLOCK,
  CWD,
  DATABASE,
  MESSAGE_INDEX,
  MESSAGE_SEARCH,
  PATHS,
  QUERY_RUNNER,
  READ_ONLY_DATABASE,
  ROOTS,
  STORE,
} from "./service_keys.ts";
import { Services } from "./services.ts";

export {
  CLOCK,
  CWD,
  DATABASE,
  MESSAGE_INDEX,
  MESSAGE_SEARCH,
  MESSAGES_STORED,
  PATHS,
  QUERY_RUNNER,
  READ_ONLY_DATABASE,
  ROOTS,
  STORE,
} from "./service_keys.ts";

/**
 * The services of a Vantage process, each built on first use and closed by
 * `services.close()`.
 */
export function vantageServices(paths: VantagePaths = resolvePaths()): Services {
  const services = new Services();
  services.provide(PATHS, () => paths);
  services.provide(CLOCK, () => Date.now);
  services.provide(ROOTS, () => documentRoots());
  services.provide(CWD, () => {
    try {
      return Deno.cwd();
    } catch {
      return paths.userHome;
    }
  });
  services.provide(DATABASE, () => {
    // The data home holds agents' prompts, transcripts and documents: its owner's only.
    makePrivateFolderSync(paths.home);
    return openDatabase(paths.database);
  }, (db) => {
    try {
      closeDocsIndex(db);
      // What features keep open per connection (the vector indexes' files), without loading them.
      releaseConnection(db);
    } finally {
      db.close();
    }
  });
  services.provide(MESSAGE_INDEX, () => {
    services.get(DATABASE); // creates the data folder
    return openMessageIndex(paths.database);
  }, (db) => db.close());
  // The SQLite store's areas on the same connection: what operations read and write through.
  services.provide(STORE, () => sqliteStore(services.get(DATABASE)));
  services.provide(
    MESSAGE_SEARCH,
    () => sqliteMessageSearch(services.get(DATABASE), services.get(MESSAGE_INDEX)),
  );
  // Damage any operation meets (a chunk failing its hash, SQLite's "malformed") becomes the
  // store's recorded health, which serve's /api/health and docs.status report.
  services.provide(
    FAILURE_OBSERVER,
    () => (_operation, error) => noticeDamageIn(paths.home, error),
  );
  services.provide(READ_ONLY_DATABASE, () => {
    // Make sure the file and schema exist before opening it read-only.
    services.get(DATABASE);
    return openDatabase(paths.database, { readOnly: true });
  }, (db) => db.close());
  services.provide(
    QUERY_RUNNER,
    () => {
      // A brand-new home gets its file and schema before the query processes open it read-only.
      services.get(DATABASE);
      return new QueryRunner({ databasePath: paths.database, timeoutMs: queryTimeoutMs() });
    },
    // Kills the query processes now; their exit is not waited for.
    (runner) => void runner.close(),
  );
  return services;
}

/**
 * The query time limit from `VANTAGE_QUERY_TIMEOUT_MS` (whole ms, at least
 * 100; tests shorten it), or the default when unset or not such a number.
 * `exec_query` never lets it exceed its own limit.
 */
export function queryTimeoutMs(): number {
  const raw = readEnv("VANTAGE_QUERY_TIMEOUT_MS");
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(value) && value >= 100 ? value : DEFAULT_QUERY_TIMEOUT_MS;
}
