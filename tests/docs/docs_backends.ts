/**
 * The document operations on each backend, for suites that run the same calls on both: a
 * fresh data home on SQLite, and a fresh database of the module's PostgreSQL cluster served
 * the way `serve --store postgres://…` serves it (skipped, with the reason printed, only
 * where PostgreSQL cannot be installed). Each backend has the same clock, the same roots and
 * the same scopes, so two answers can be compared whole.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation, type ExecuteResponse } from "../../src/ops/executor.ts";
import { providePostgresStore } from "../../src/ops/postgres_services.ts";
import { CLOCK, ROOTS, STORE, vantageServices } from "../../src/ops/runtime.ts";
import type { Services } from "../../src/ops/services.ts";
import type { DocsStore } from "../../src/store/docs/docs_store.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import type { StoreMode } from "../../src/store/repository.ts";
import { sharedPostgresCluster, TEST_CONNECT_TIMEOUT_S } from "../helpers/postgres_cluster.ts";

/** Every scope a document operation asks for. */
export const DOCS_SCOPES = ["dex:read", "docs:read", "docs:write", "session:write", "net"];

/** "Now" on both backends. */
export const DOCS_NOW = Date.parse("2026-12-01T12:00:00Z");

/** One backend's services with the catalog to call. */
export interface DocsBackend {
  /** "sqlite" or "postgres". */
  name: "sqlite" | "postgres";
  /** The process's services (the store among them). */
  services: Services;
  /** The document store, on this backend. */
  docs: DocsStore<StoreMode>;
  /** Runs an operation; the whole response. */
  call(id: string, args: Record<string, unknown>, scopes?: string[]): Promise<ExecuteResponse>;
  /** Runs an operation; its result, or throws with the failure. */
  run(
    id: string,
    args: Record<string, unknown>,
    scopes?: string[],
  ): Promise<Record<string, unknown>>;
  /** Closes it (the temporary data home stays with the caller). */
  close(): Promise<void>;
  /** PostgreSQL only: runs a statement on the database itself (to plant damage, to look). */
  sql?: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;
}

function backendOf(
  name: DocsBackend["name"],
  services: Services,
  closeMore: () => Promise<void>,
  sql?: DocsBackend["sql"],
): DocsBackend {
  const catalog = builtinCatalog();
  const call = (id: string, args: Record<string, unknown>, scopes = DOCS_SCOPES) =>
    executeOperation(catalog, id, args, { scopes }, { services });
  return {
    name,
    services,
    get docs() {
      return services.get(STORE).docs;
    },
    call,
    async run(id, args, scopes) {
      const response = await call(id, args, scopes);
      if ("result" in response) return response.result as Record<string, unknown>;
      throw new Error(`${name}: ${id} failed: ${JSON.stringify(response)}`);
    },
    async close() {
      services.close();
      await closeMore();
    },
    ...(sql === undefined ? {} : { sql }),
  };
}

/** The services a document suite runs on: a clock fixed at `now`, files anywhere in `tmpdir()`. */
function servicesIn(home: string, now: number): Services {
  return vantageServices(resolvePaths(home))
    .provide(CLOCK, () => () => now)
    .provide(ROOTS, () => [tmpdir()]);
}

/** A fresh SQLite data home below `dir`. */
export function openSqliteDocs(dir: string, now = DOCS_NOW): Promise<DocsBackend> {
  return Promise.resolve(backendOf("sqlite", servicesIn(join(dir, "sqlite-home"), now), () => {
    return Promise.resolve();
  }));
}

/**
 * A fresh database of the shared cluster, served as `serve --store` serves it; with `url`, that
 * database instead (a second server on the same database, as two processes of a team).
 */
export async function openPostgresDocs(
  dir: string,
  now = DOCS_NOW,
  url?: string,
): Promise<DocsBackend> {
  const location = parseStoreLocation(url ?? await sharedPostgresCluster().createDatabase());
  if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
  const opened = await openPostgresStore(location, {
    max: 4,
    connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
  });
  const services = providePostgresStore(servicesIn(join(dir, "postgres-home"), now), opened);
  return backendOf(
    "postgres",
    services,
    () => opened.close(),
    (text, params = []) => opened.pool.query(text, params as never) as never,
  );
}

/** Both backends, SQLite first. */
export async function openDocsBackends(dir: string, now = DOCS_NOW): Promise<DocsBackend[]> {
  return [await openSqliteDocs(dir, now), await openPostgresDocs(dir, now)];
}
