/**
 * A process's services on a PostgreSQL store: the store's areas, message search, document
 * search and read-only SQL come from the store. The SQLite-only services (the data home's
 * SQLite connection, its read-only twin, the SQLite message index) refuse with `unavailable`,
 * naming the part, so nothing can quietly answer from a different store than the rest.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { PostgresStore } from "../store/postgres/postgres_store.ts";
import {
  DATABASE,
  DOCUMENT_SEARCH,
  MESSAGE_INDEX,
  MESSAGE_SEARCH,
  QUERY_RUNNER,
  READ_ONLY_DATABASE,
  STORE,
} from "./service_keys.ts";
import type { Services } from "./services.ts";

/** A SQLite-only part asked for in a process serving from PostgreSQL, as the error its caller sees. */
export function notOnPostgres(what: string): VantageError {
  return new VantageError(
    "unavailable",
    `${what} is SQLite's and this process serves from PostgreSQL; use the SQLite store (no --store or VANTAGE_STORE) for it`,
    { details: { store: "postgres", part: what } },
  );
}

/**
 * Points `services` at an open PostgreSQL store (replacing the SQLite ones); closing the store
 * stays with its opener.
 *
 * @example
 * ```ts ignore
 * const services = providePostgresStore(vantageServices(paths), await openPostgresStore(url));
 * ```
 */
export function providePostgresStore(services: Services, opened: PostgresStore): Services {
  services.provide(STORE, () => opened.store);
  services.provide(MESSAGE_SEARCH, () => opened.messageSearch);
  services.provide(DOCUMENT_SEARCH, () => opened.docsSearch);
  // The store closes its query connections; the services must not close them first.
  services.provide(QUERY_RUNNER, () => opened.queries);
  const pending = [
    [DATABASE, "the data home's SQLite store"],
    [READ_ONLY_DATABASE, "the SQLite store's read-only connection"],
    [MESSAGE_INDEX, "the SQLite message index"],
  ] as const;
  for (const [key, what] of pending) {
    services.provide(key as typeof DATABASE, () => {
      throw notOnPostgres(what);
    });
  }
  return services;
}
