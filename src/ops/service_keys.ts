/**
 * The services Vantage's own operations use, by key. An operation reads
 * them from its context (`context.services.get(DATABASE)`); a process
 * provides them (`runtime.ts`), and a test may provide its own.
 *
 * @module
 */
import type { VantagePaths } from "../core/config.ts";
import type { DatabaseSync } from "../store/database.ts";
import type { MessageSearch } from "../store/agent/agent_store.ts";
import type { ReadOnlyQueries } from "../store/query/readonly_query.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import type { PgDocsSearch } from "../store/postgres/docs/docs_store.ts";
import { type ServiceKey, serviceKey } from "./services.ts";

/** Where the data home and its files are. */
export const PATHS: ServiceKey<VantagePaths> = serviceKey<VantagePaths>("paths");

/** The read-write store connection (migrated at open). */
export const DATABASE: ServiceKey<DatabaseSync> = serviceKey<DatabaseSync>("database");

/**
 * The store as its areas' interfaces, on whichever backend this process serves from. An
 * operation awaits each answer, so the same operation runs on SQLite (answers at once) and on
 * a database server (answers later).
 */
export const STORE: ServiceKey<Store<StoreMode>> = serviceKey<Store<StoreMode>>("store");

/** Word search over transcript messages (SQLite: the index file; a server: its full-text index). */
export const MESSAGE_SEARCH: ServiceKey<MessageSearch<StoreMode>> = serviceKey<
  MessageSearch<StoreMode>
>("message search");

/**
 * Keyword search over documents kept by a database server (PostgreSQL's `tsvector` index).
 * Provided only on such a store: on SQLite, document search reads the data home's index file.
 */
export const DOCUMENT_SEARCH: ServiceKey<PgDocsSearch> = serviceKey<PgDocsSearch>(
  "document search",
);

/** A read-only connection: SQLite itself refuses any write through it. */
export const READ_ONLY_DATABASE: ServiceKey<DatabaseSync> = serviceKey<DatabaseSync>(
  "read-only database",
);

/** The message search index (a separate file the indexer worker keeps current). */
export const MESSAGE_INDEX: ServiceKey<DatabaseSync> = serviceKey<DatabaseSync>("message index");

/**
 * What runs read-only SQL queries (`exec_query`, `/api/query`): on SQLite a pool of query
 * processes, on PostgreSQL a read-only role's connections.
 */
export const QUERY_RUNNER: ServiceKey<ReadOnlyQueries> = serviceKey<ReadOnlyQueries>(
  "query runner",
);

/** The folders files may be read from and written into (`VANTAGE_ROOTS`). */
export const ROOTS: ServiceKey<readonly string[]> = serviceKey<readonly string[]>("roots");

/** The folder the caller works in (an MCP server runs in its agent's project folder). */
export const CWD: ServiceKey<string> = serviceKey<string>("cwd");

/** The clock, so tests can fix "now". */
export const CLOCK: ServiceKey<() => number> = serviceKey<() => number>("clock");

/**
 * Tells the process that messages were stored by something other than its own transcript
 * reading (a team server taking a `vantage sync` push), so its message search index takes them
 * now rather than at the next transcript it reads. A process without a search index worker
 * provides none.
 */
export const MESSAGES_STORED: ServiceKey<() => void> = serviceKey<() => void>("messages stored");
