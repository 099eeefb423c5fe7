/**
 * The whole store on each backend, for suites that run the same cases on both: SQLite in
 * memory, and a fresh database of the module's PostgreSQL cluster (skipped, with the reason
 * printed, only where PostgreSQL cannot be installed).
 */
import { openDatabase } from "../../src/store/database.ts";
import { openPgPool } from "../../src/store/postgres/connection.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { pgStore } from "../../src/store/postgres/postgres_store.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import type { StoreMode } from "../../src/store/repository.ts";
import { sqliteStore, type Store } from "../../src/store/store.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "./postgres_cluster.ts";

/** One backend's whole store, opened fresh. */
export interface OpenStore {
  /** The store (SQLite answers at once, PostgreSQL later: cases await every answer). */
  store: Store<StoreMode>;
  /** Rows of a table, counted by the backend itself. */
  count(table: string): Promise<number>;
  /** The PostgreSQL URL of this database (undefined on SQLite). */
  url?: string;
  /** Closes it. */
  close(): Promise<void>;
}

/** A backend a suite runs its cases on. */
export interface StoreBackend {
  /** "sqlite" or "postgres". */
  name: string;
  /** True where the backend cannot run here (PostgreSQL not installable). */
  ignore: boolean;
  /** Opens a fresh, migrated, empty store. */
  open(): Promise<OpenStore>;
}

function openSqlite(): Promise<OpenStore> {
  const db = openDatabase(":memory:");
  return Promise.resolve({
    store: sqliteStore(db),
    count: (table) =>
      Promise.resolve(Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()!.n)),
    close: () => Promise.resolve(db.close()),
  });
}

async function openPostgres(): Promise<OpenStore> {
  const url = await sharedPostgresCluster().createDatabase();
  const location = parseStoreLocation(url);
  if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
  const pool = openPgPool(location, { max: 4, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
  await migratePostgres(pool);
  return {
    store: pgStore(pool),
    url,
    count: async (table) => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`))[0].n),
    close: () => pool.close(),
  };
}

/** SQLite and PostgreSQL, for a suite named `suite` (named in the skip reason). */
export function storeBackends(suite: string): StoreBackend[] {
  return [
    { name: "sqlite", ignore: false, open: openSqlite },
    { name: "postgres", ignore: skipWithoutPostgres(suite), open: openPostgres },
  ];
}

/** A synchronous store's answers as promises: what code written for either backend awaits. */
export function awaited<T extends object>(
  store: T,
): { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<R> : never } {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(store)) {
    out[name] = (...args: unknown[]) => Promise.resolve().then(() => fn(...args));
  }
  // Every method of `store` is wrapped above with the same arguments.
  return out as never;
}

/** One backend of a suite that works on its own view of the store (its areas, awaited). */
export interface ViewBackend<B> {
  /** "sqlite" or "postgres". */
  name: string;
  /** True where the backend cannot run here. */
  ignore: boolean;
  /** Opens a fresh, migrated, empty store and gives the suite's view of it. */
  open(): Promise<B & Pick<OpenStore, "count" | "close">>;
}

/** {@linkcode storeBackends}, each store opened as `view` sees it. */
export function storeBackendsAs<B>(
  suite: string,
  view: (opened: OpenStore) => B,
): ViewBackend<B>[] {
  return storeBackends(suite).map((backend) => ({
    name: backend.name,
    ignore: backend.ignore,
    async open() {
      const opened = await backend.open();
      return { ...view(opened), count: opened.count, close: opened.close };
    },
  }));
}
