/**
 * The daemon on a PostgreSQL store: a team server. It runs the same
 * operation catalog, HTTP surfaces and dashboard as the SQLite daemon, over
 * the store's area interfaces on a pool, and the same hook pipeline and
 * perception rules (their steps answer with promises here).
 *
 * What a laptop's daemon does and a team server does not: it watches no
 * files, tails no transcripts and runs no builds of its own — its people's
 * laptops do, and send what they saw (hooks, `vantage sync --to`, their
 * agents' OpenTelemetry exports). Document memory runs on the database too
 * (its engine's server path, src/docs/server_ingest/ and server_search/);
 * nothing reaches for the data home's SQLite file. New sessions, anomalies
 * and builds reach `/api/events` as on SQLite.
 *
 * The data home still holds the server's own token, its spool and its lock
 * (one serve per data home, as on SQLite).
 *
 * When the database goes away while serving, writes answer 503
 * `unavailable` naming it; a hook is not lost: the server holds it in a
 * spool of its own (`held/hooks.jsonl`, with the person its token named —
 * the hooks' own spool never vouches for a person) and answers 202, and
 * the held hooks are stored, exactly once, when the database is back.
 *
 * @module
 */
import { join } from "node:path";
import { readEnv } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import type { HookDelivery } from "../agent/hooks/hook_intake.ts";
import { appendToSpool, type SpoolEntry } from "../agent/hooks/spool.ts";
import { PerceptionEngine } from "../perception/engine.ts";
import { loadPriceOverrides } from "../agent/usage/price_overrides.ts";
import { providePostgresStore } from "../ops/postgres_services.ts";
import { queryTimeoutMs, vantageServices } from "../ops/runtime.ts";
import type { PostgresLocation } from "../store/postgres/store_url.ts";
import { acquireServerLock, type ServerLock } from "../store/server_lock.ts";
import { storeChangeSource, watchChanges } from "./change_watch.ts";
import { EventBus } from "./event_bus.ts";
import { healthFacts } from "./health.ts";
import { createHookPipeline, type HookPipeline } from "./hook_pipeline.ts";
import type { Logger } from "../core/log.ts";
import { listen } from "./listener.ts";
import { startSpoolReplay } from "./spool_replay.ts";
import { createPostgresTelemetryIntake } from "./postgres_telemetry_intake.ts";
import type { RunningServer, VantageServerOptions } from "./vantage_server.ts";

/** Options for {@linkcode startPostgresServer}. */
export interface PostgresServerOptions extends VantageServerOptions {
  /** The PostgreSQL store. */
  location: PostgresLocation;
  /** Connections in the pool at most (default 10, or the URL's `pool_size`). */
  poolSize?: number;
}

/** Whether `error` says the store cannot be reached (not that the request was wrong). */
function storeAway(error: unknown): boolean {
  return error instanceof VantageError && error.kind === "unavailable";
}

/** A live delivery as a held entry: the person its token named is kept with it. */
function heldEntry(delivery: HookDelivery): SpoolEntry {
  const entry: SpoolEntry = {
    delivery_id: delivery.delivery_id,
    agent: delivery.agent,
    received_at: delivery.received_at,
    payload: typeof delivery.payload === "string"
      ? delivery.payload
      : JSON.stringify(delivery.payload),
  };
  if (delivery.event !== undefined) entry.event = delivery.event;
  if (delivery.host !== undefined) entry.host = delivery.host;
  if (delivery.person !== undefined) entry.person = delivery.person;
  return entry;
}

/**
 * The pipeline with hooks held while the store is away: a live delivery whose store write
 * fails `unavailable` goes to the held spool and is answered `held`.
 */
function holdingWhileAway(pipeline: HookPipeline, held: string, log: Logger): HookPipeline {
  return {
    async take(delivery) {
      try {
        return await pipeline.take(delivery);
      } catch (error) {
        if (!storeAway(error)) throw error;
        await appendToSpool(held, heldEntry(delivery));
        log.warn("the store is away: hook held until it is back", {
          delivery_id: delivery.delivery_id.slice(0, 64),
        });
        return {
          stored: false,
          duplicate: false,
          held: true,
          reason: `held until the store is back: ${(error as Error).message}`,
        };
      }
    },
    takeNow: (delivery) => pipeline.takeNow(delivery),
    get stored() {
      return pipeline.stored;
    },
    attachTranscripts: (access) => pipeline.attachTranscripts(access),
  };
}

/**
 * Starts the daemon on a PostgreSQL store: takes the data home's lock, connects and migrates
 * (a wrong or unreachable server fails here with the line that says why, before anything
 * listens), then serves.
 *
 * @example
 * ```ts ignore
 * const server = await startPostgresServer({ paths, host: "127.0.0.1", port: 0, log, location,
 *   handler: (daemon) => createHandler({ ... }) });
 * await server.shutdown();
 * ```
 */
export async function startPostgresServer(options: PostgresServerOptions): Promise<RunningServer> {
  const lock = await acquireServerLock(options.paths.home);
  try {
    return await startHolding(options, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function startHolding(
  options: PostgresServerOptions,
  lock: ServerLock,
): Promise<RunningServer> {
  const { paths, log } = options;
  const started = Date.now();
  const { openPostgresStore } = await import("../store/postgres/postgres_store.ts");
  const opened = await openPostgresStore(options.location, {
    ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
    queryTimeoutMs: queryTimeoutMs(),
  });
  if (opened.migrated.length > 0) {
    log.info("migrated the PostgreSQL store", { versions: opened.migrated });
  }
  if (opened.queriesOff !== undefined) log.warn(opened.queriesOff);
  const store = opened.store;
  const services = providePostgresStore(vantageServices(paths), opened);
  const events = new EventBus();
  const perception = new PerceptionEngine<"async">({
    store,
    log,
    inject: readEnv("VANTAGE_DISABLE_INJECTION") !== "1",
    sensors: false,
  });
  const held = join(paths.home, "held", "hooks.jsonl");
  const pipeline = holdingWhileAway(
    createHookPipeline({ store, perception, events, log, home: paths.home }),
    held,
    log,
  );
  const spool = await startSpoolReplay({
    spool: paths.spool,
    take: (entry) => pipeline.takeNow(entry),
    log,
    intervalMs: options.spoolIntervalMs,
    replay: { counts: (error) => !storeAway(error) },
  });
  // Hooks held while the store was away, each with its person; retried until it is back.
  const heldReplay = await startSpoolReplay({
    spool: held,
    take: async (entry) => {
      // A token revoked just before the store went away may have passed from the cache: what
      // it sent after its revocation is dropped, never stored as that person's.
      if (entry.person !== undefined) {
        const person = await store.team.findPerson(entry.person);
        if (
          person === undefined ||
          (person.revoked_at !== null && person.revoked_at <= entry.received_at)
        ) {
          return {
            stored: false,
            duplicate: false,
            reason: `a held hook of '${entry.person}' was dropped: their token was revoked first`,
          };
        }
      }
      return await pipeline.takeNow(entry);
    },
    log,
    intervalMs: options.spoolIntervalMs,
    replay: { keepPerson: true, counts: (error) => !storeAway(error) },
  });
  // Agents' OTLP exports, each stored in one write; their sessions' telemetry rules run a
  // moment later, as on SQLite.
  const telemetry = createPostgresTelemetryIntake({
    telemetry: store.telemetry,
    home: paths.home,
    prices: loadPriceOverrides(paths.home),
    checks: { perception, events, log },
    log,
  });
  // New sessions, anomalies and builds to /api/events, as a laptop's daemon announces them.
  const watch = watchChanges(storeChangeSource(store), events);
  const handler = options.handler({
    hooks: pipeline,
    telemetry,
    events,
    services,
    health: () => ({
      ...healthFacts({
        home: paths.home,
        started,
        hooksStored: () => pipeline.stored,
        telemetryExports: () => telemetry.exports,
        liveSubscribers: () => events.subscribers,
      })(),
      store: { kind: "postgres", server: opened.pool.redacted, version: opened.serverVersion },
    }),
  });
  let listener;
  try {
    listener = await listen(options.host, options.port, handler);
  } catch (error) {
    watch.stop();
    spool.stop();
    heldReplay.stop();
    await telemetry.stop();
    await opened.close();
    throw error;
  }
  await lock.record(listener.port);
  const running = listener;

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    stopping ??= (async () => {
      watch.stop();
      spool.stop();
      heldReplay.stop();
      events.close();
      await running.close();
      await spool.replay(); // Anything spooled while we were stopping still lands.
      await heldReplay.replay();
      await telemetry.stop();
      services.close();
      await opened.close();
    })().finally(() => lock.release());

  return {
    port: running.port,
    handler,
    initialScan: Promise.resolve(),
    shutdown,
    finished: running.finished.then(() => stopping),
    events,
  };
}
