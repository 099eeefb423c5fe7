/**
 * The daemon's lifecycle: the long-running `serve` process put together
 * from its parts — the store and its upkeep, the sensors, the hook pipeline
 * with spool replay, the telemetry intake, the message index, the transcript
 * tailers and the HTTP listener — started in an order where each part finds
 * what it needs, and stopped in the order that finishes every write before
 * the WAL is checkpointed and the data home's lock let go.
 *
 * The HTTP handler comes from the caller (`vantage serve` builds it with
 * `src/http/`), so the daemon knows nothing of routes.
 *
 * @module
 */
import { joinPath, type VantagePaths } from "../core/config.ts";
import type { Logger } from "../core/log.ts";
import { loadPriceOverrides } from "../agent/usage/price_overrides.ts";
import type { AgentName } from "../model/agent_records.ts";
import { DATABASE, MESSAGES_STORED, STORE, vantageServices } from "../ops/runtime.ts";
import type { Services } from "../ops/services.ts";
import { startCheckpointer } from "../store/checkpointer.ts";
import { checkpoint, setCheckpointInterval } from "../store/database.ts";
import { acquireServerLock, type ServerLock } from "../store/server_lock.ts";
import { EventBus } from "./event_bus.ts";
import { healthFacts } from "./health.ts";
import { createHookPipeline, type HookPipeline } from "./hook_pipeline.ts";
import { startHookUpstream } from "./hook_upstream.ts";
import { listen } from "./listener.ts";
import { startMessageIndexing } from "./message_indexing.ts";
import { startSensors } from "./sensors.ts";
import { startSpoolReplay } from "./spool_replay.ts";
import { startStructureCheck } from "./structure_check.ts";
import { createTelemetryIntake, type TelemetryIntake } from "./telemetry_intake.ts";
import { createTranscriptTailing } from "./transcript_tailing.ts";

/** A request handler. */
export type RequestHandler = (request: Request) => Promise<Response>;

/** What the daemon offers the HTTP handler it serves. */
export interface DaemonHandles {
  /** The hook pipeline (`/api/hooks`). */
  hooks: HookPipeline;
  /** The OpenTelemetry intake (`/v1/traces`, `/v1/metrics`, `/v1/logs`). */
  telemetry: TelemetryIntake;
  /** Live events (`/api/events`). */
  events: EventBus;
  /** Services the operations use (the store among them). */
  services: Services;
  /** Health facts (`/api/health`). */
  health(): Record<string, unknown>;
}

/** Options for {@link startVantageServer}. */
export interface VantageServerOptions {
  /** Data home and files. */
  paths: VantagePaths;
  /** Bind address. */
  host: string;
  /** Port (0 picks a free one). */
  port: number;
  /** Builds the HTTP handler over the daemon's parts. */
  handler(daemon: DaemonHandles): RequestHandler;
  /** Tail agent transcripts (default true). */
  tail?: boolean;
  /** Only these agents' transcripts. */
  agents?: readonly AgentName[];
  /** How often to replay the spool, ms (default 5000). */
  spoolIntervalMs?: number;
  /** A team server every stored hook is forwarded to (`serve --upstream`). */
  upstream?: { url: string; token: string; replayIntervalMs?: number };
  /** Where to log. */
  log: Logger;
}

/** A running server. */
export interface RunningServer {
  /** The port it listens on. */
  port: number;
  /** The request handler (for tests that skip the socket). */
  handler: RequestHandler;
  /** Resolves when the start-up transcript scan is done. */
  initialScan: Promise<void>;
  /** Stops accepting, finishes in-flight work, checkpoints the WAL. */
  shutdown(): Promise<void>;
  /** Resolves once the server has shut down. */
  finished: Promise<void>;
  /** Live events published to /api/events. */
  events: EventBus;
}

/**
 * Starts the server, first taking the data home's lock (one `serve` per
 * home: a `conflict` names the running one). The lock is let go last on
 * shutdown, after the listener closed, or at once if starting fails.
 *
 * @example
 * ```ts ignore
 * const server = await startVantageServer({ paths, host: "127.0.0.1", port: 0, log,
 *   handler: (daemon) => createHandler({ guard, hooks: daemon.hooks, events: daemon.events }) });
 * await server.shutdown();
 * ```
 */
export async function startVantageServer(options: VantageServerOptions): Promise<RunningServer> {
  const lock = await acquireServerLock(options.paths.home);
  try {
    return await startHolding(options, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Everything but the lock: runs while this process holds it. */
async function startHolding(
  options: VantageServerOptions,
  lock: ServerLock,
): Promise<RunningServer> {
  const { paths, log } = options;
  const started = Date.now();
  const services = vantageServices(paths);
  const db = services.get(DATABASE);
  // Checkpoints run on a worker, so no hook waits while the WAL is copied into the store.
  const checkpointer = startCheckpointer(paths.database);
  if (checkpointer !== undefined) setCheckpointInterval(db, 0);
  const prices = loadPriceOverrides(paths.home);
  const events = new EventBus();
  const sensors = startSensors({ db, events, refuseWatching: [paths.userHome], log });
  const upstream = options.upstream === undefined ? undefined : startHookUpstream({
    url: options.upstream.url,
    token: options.upstream.token,
    spoolPath: joinPath(paths.home, "upstream-spool", "hooks.jsonl"),
    replayIntervalMs: options.upstream.replayIntervalMs,
    log,
  });
  const pipeline = createHookPipeline({
    store: services.get(STORE),
    db,
    perception: sensors.perception,
    events,
    log,
    home: paths.home,
    forward: upstream?.forward,
  });
  // Spooled hooks are stored before the tailer exists: it completes what they left unknown.
  const spool = await startSpoolReplay({
    spool: paths.spool,
    take: (entry) => pipeline.takeNow(entry),
    log,
    intervalMs: options.spoolIntervalMs,
  });
  const indexing = await startMessageIndexing({
    db,
    database: paths.database,
    home: paths.home,
    log,
  });
  // Messages a team member's `vantage sync` pushed are searchable as soon as they are stored.
  services.provide(MESSAGES_STORED, () => () => indexing.kick());
  const tailing = createTranscriptTailing({
    db,
    userHome: paths.userHome,
    home: paths.home,
    tail: options.tail !== false,
    agents: options.agents,
    prices,
    perception: sensors.perception,
    events,
    onMessages: () => indexing.kick(),
    log,
  });
  pipeline.attachTranscripts(tailing);
  // Telemetry runs its sessions' telemetry rules (API error bursts, costly calls, slow tools)
  // shortly after it is stored, once per session however many exports named it.
  const telemetry = createTelemetryIntake({
    db,
    home: paths.home,
    prices,
    database: paths.database,
    checkpoints: checkpointer === undefined,
    log,
    checks: { perception: sensors.perception, events, log },
  });

  const handler = options.handler({
    hooks: pipeline,
    telemetry,
    events,
    services,
    health: healthFacts({
      home: paths.home,
      started,
      hooksStored: () => pipeline.stored,
      telemetryExports: () => telemetry.exports,
      liveSubscribers: () => events.subscribers,
      upstream: upstream === undefined
        ? undefined
        : () => ({ url: options.upstream!.url, ...upstream.counts() }),
    }),
  });
  const listener = await listen(options.host, options.port, handler);
  await lock.record(listener.port);
  const structure = startStructureCheck(db, log);
  const initialScan = tailing.start();

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    stopping ??= (async () => {
      await structure.stop();
      spool.stop();
      sensors.stop();
      // Open event streams never end by themselves: close them so the listener can drain.
      events.close();
      await listener.close();
      await telemetry.stop();
      await tailing.stop();
      await spool.replay(); // Anything spooled while we were stopping still lands.
      await upstream?.stop(); // What was not forwarded yet waits in its spool.
      await indexing.stop();
      await checkpointer?.stop();
      checkpoint(db);
      services.close();
    })().finally(() => lock.release());

  return {
    port: listener.port,
    handler,
    initialScan,
    shutdown,
    finished: listener.finished.then(() => stopping),
    events,
  };
}
