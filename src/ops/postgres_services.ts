/**
 * A process's services on a PostgreSQL store: the store's areas, message search and read-only
 * SQL come from the store, and what still needs the data home's SQLite file (document memory,
 * the SQLite message index) refuses with `unavailable`, naming the part, instead of quietly
 * answering from a different store than the rest.
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

/** What is not on PostgreSQL yet, as the error a caller of it sees. */
export function notOnPostgres(what: string): VantageError {
  return new VantageError(
    "unavailable",
    `${what} is not on PostgreSQL yet; use the SQLite store (no --store or VANTAGE_STORE) for it`,
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
    // The document operations not yet written over the store's interfaces reach for it.
    [DATABASE, "this part of document memory"],
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
