/**
 * The long-running `serve` process put together: the store, the hook
 * endpoint with spool replay, the transcript tailer, and the HTTP listener,
 * with a graceful shutdown that finishes writes and checkpoints the WAL.
 *
 * @module
 */
import type { VantagePaths } from "../core/config.ts";
import type { Logger } from "../core/log.ts";
import {
  awaitsToolOutcome,
  type HookDelivery,
  type IntakeResult,
  type PreparedDelivery,
  prepareHookDelivery,
  storePreparedEvent,
} from "../agent/hooks/hook_intake.ts";
import { loadPriceOverrides } from "../agent/usage/price_overrides.ts";
import { replaySpool } from "../agent/hooks/spool.ts";
import { TranscriptTailer } from "../agent/transcripts/transcript_tailer.ts";
import type { AgentName } from "../model/agent_records.ts";
import { builtinCatalog } from "../ops/builtin.ts";
import { VANTAGE_NAMING } from "../mcp/operation_names.ts";
import type { Catalog } from "../ops/catalog.ts";
import { DATABASE, vantageServices } from "../ops/runtime.ts";
import { maxMessageId } from "../store/agent_reads.ts";
import { findToolOutcome } from "../store/tool_outcomes.ts";
import {
  anomaliesEmittedAfter,
  buildRunsAfter,
  changeMarks,
  sessionsAfter,
} from "../store/dashboard_reads.ts";
import { startCheckpointer } from "../store/checkpointer.ts";
import { checkpoint, savepoint, setCheckpointInterval, writing } from "../store/database.ts";
import { watchChanges } from "./change_watch.ts";
import { EventBus } from "./event_bus.ts";
import { readEnv } from "../core/config.ts";
import { PerceptionEngine } from "../perception/engine.ts";
import { MessageIndexer } from "../store/message_index.ts";
import { messageIndexPath } from "../store/message_index_schema.ts";
import {
  isDamageError,
  noticeDamageIn,
  readStoreHealth,
  summarizeHealth,
} from "../store/store_health.ts";
import { checkStructureAtStart } from "../docs/store_structure.ts";
import { createHandler, type Handler } from "../http/handler.ts";
import type { OtlpIntakePool } from "../agent/otlp/otlp_intake_pool.ts";
import { acquireServerLock, type ServerLock } from "../store/server_lock.ts";

/**
 * How long a live tool result without its outcome waits for the tailer to read the transcript
 * its hook names, ms: well inside the hook's own 300 ms, as reading the few new lines takes a
 * few ms.
 */
const OUTCOME_WAIT_MS = 120;

/** Options for {@link startVantageServer}. */
export interface VantageServerOptions {
  /** Data home and files. */
  paths: VantagePaths;
  /** Bind address. */
  host: string;
  /** Port (0 picks a free one). */
  port: number;
  /** Bearer token for non-loopback binds. */
  token?: string;
  /** Tail agent transcripts (default true). */
  tail?: boolean;
  /** Only these agents' transcripts. */
  agents?: readonly AgentName[];
  /** How often to replay the spool, ms (default 5000). */
  spoolIntervalMs?: number;
  /** Where to log. */
  log: Logger;
  /** The catalog served at /api/ops and /mcp (default: the built-in one). */
  catalog?: Catalog;
}

/** A running server. */
export interface RunningServer {
  /** The port it listens on. */
  port: number;
  /** The request handler (for tests that skip the socket). */
  handler: Handler;
  /** Resolves when the start-up transcript scan is done. */
  initialScan: Promise<void>;
  /** Stops accepting, finishes in-flight work, checkpoints the WAL. */
  shutdown(): Promise<void>;
  /** Resolves once the server has shut down. */
  finished: Promise<void>;
  /** Live events published to /api/events. */
  events: EventBus;
}

/** The health `/api/health` reports beside its counters. */
function storeHealthOf(home: string): { status: "ok" | "degraded"; reasons: string[] } {
  const summary = summarizeHealth(readStoreHealth(home));
  return { status: summary.status, reasons: summary.reasons };
}

/**
 * Starts the server, first taking the data home's lock (one `serve` per
 * home: a `conflict` names the running one). The lock is let go last on
 * shutdown, after the listener closed, or at once if starting fails.
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
  const services = vantageServices(paths);
  const db = services.get(DATABASE);
  // Checkpoints run on a worker, so no hook waits while the WAL is copied into the store.
  const checkpointer = startCheckpointer(paths.database);
  if (checkpointer !== undefined) setCheckpointInterval(db, 0);
  const prices = loadPriceOverrides(paths.home);
  const started = Date.now();
  let hooksStored = 0;
  let telemetryExports = 0;
  const events = new EventBus();
  const perception = new PerceptionEngine({
    db,
    log,
    inject: readEnv("VANTAGE_DISABLE_INJECTION") !== "1",
    // Watching the whole home (an agent started there) would cost more than it tells.
    refuseWatching: [paths.userHome],
  });

  // Set once the tailer exists: spooled hooks replayed at start-up arrive before it does.
  let noticeTranscript: (path: string) => void = () => {};
  let readTranscriptNow: (path: string, waitMs: number) => Promise<void> = () => Promise.resolve();

  const takePrepared = (prepared: PreparedDelivery): IntakeResult & { output?: unknown } => {
    if (!prepared.ok) return { stored: false, duplicate: false, reason: prepared.reason };
    let result: IntakeResult & { output?: unknown };
    let emitted = 0;
    try {
      // One write for the event and what perception records about it: a hook waits for the
      // writer lock once, however busy the store is.
      result = writing(db, () => {
        const taken: IntakeResult & { output?: unknown } = storePreparedEvent(
          db,
          prepared.delivery_id,
          prepared.event,
        );
        if (!taken.stored) return taken;
        try {
          // A failure here undoes only perception's own writes: the event is stored either way.
          const answer = savepoint(db, () => perception.onHookEvent(taken.event));
          if (answer.output !== undefined) taken.output = answer.output;
          emitted = answer.emitted;
        } catch (error) {
          // Perception must never cost the agent its hook.
          log.error("perception failed on a hook event", { error: String(error) });
        }
        return taken;
      });
    } catch (error) {
      noticeDamageIn(paths.home, error);
      throw error;
    }
    if (result.stored && result.event.transcript_path !== undefined) {
      noticeTranscript(result.event.transcript_path);
    }
    if (emitted > 0 && result.stored) {
      events.publish("anomaly", { session_id: result.event.session_id, emitted });
    }
    if (result.stored) {
      hooksStored++;
      const event = result.event;
      events.publish("hook", {
        agent: event.agent,
        session_id: event.session_id,
        event_type: event.event_type,
        ts: event.ts,
        ...(event.project ?? event.cwd ? { project: event.project ?? event.cwd } : {}),
        ...(event.tool_name !== undefined ? { tool_name: event.tool_name } : {}),
        ...(event.success !== undefined ? { success: event.success } : {}),
      });
    }
    return result;
  };

  // A spooled hook is stored at once: its transcript is read by the tailer, which completes an
  // outcome left unknown.
  const takeHookNow = (delivery: HookDelivery): IntakeResult & { output?: unknown } =>
    takePrepared(prepareHookDelivery(delivery));

  // A live tool result without its outcome (Codex) first lets the tailer read the transcript it
  // names: Codex writes the exit code there just before the hook fires. Bounded, so the hook
  // is answered within its budget whatever the tailer is doing.
  const takeHook = async (delivery: HookDelivery): Promise<IntakeResult & { output?: unknown }> => {
    const prepared = prepareHookDelivery(delivery);
    if (
      prepared.ok && awaitsToolOutcome(prepared.event) &&
      findToolOutcome(db, prepared.event.session_id, prepared.event.tool_use_id!) === undefined
    ) {
      await readTranscriptNow(prepared.event.transcript_path!, OUTCOME_WAIT_MS);
    }
    return takePrepared(prepared);
  };

  const replay = async (): Promise<void> => {
    try {
      const counts = await replaySpool(paths.spool, (entry) => {
        const result = takeHookNow(entry);
        if (!result.stored && !result.duplicate) {
          log.warn("spooled hook rejected", { reason: result.reason });
        }
      }, (entry, error) => {
        log.error("spooled hook failed; kept for the next replay", {
          delivery_id: entry.delivery_id.slice(0, 64),
          error: String(error),
        });
      });
      if (counts.entries > 0 || counts.failed > 0) {
        log.info("replayed spooled hooks", { ...counts });
      }
    } catch (error) {
      log.error("spool replay failed", { error: String(error) });
    }
  };
  await replay();
  let replaying = false;
  const spoolTimer = setInterval(async () => {
    if (replaying) return;
    replaying = true;
    await replay();
    replaying = false;
  }, options.spoolIntervalMs ?? 5_000);

  let indexer: MessageIndexer | undefined;
  try {
    indexer = await MessageIndexer.start(
      paths.database,
      () => maxMessageId(db),
      (message) => {
        log.error("message indexing failed", { error: message });
        noticeDamageIn(paths.home, new Error(message), messageIndexPath(paths.database));
      },
    );
  } catch (error) {
    // A damaged message index must not keep the server (hooks, documents, the dashboard) down:
    // session search goes without new messages until 'vantage repair' rebuilds it.
    if (!isDamageError(error)) throw error;
    const file = messageIndexPath(paths.database);
    log.error("the message index is damaged; messages are not indexed until it is repaired", {
      file,
      error: String(error),
    });
    noticeDamageIn(paths.home, error, file);
  }
  indexer?.kick(); // Index anything an earlier process stored but did not index.
  const tailer = new TranscriptTailer(db, {
    home: paths.userHome,
    prices,
    agents: options.agents,
    // Small batches keep each transaction short, so hooks are answered promptly during a backfill.
    batchBytes: 1024 * 1024,
    onIngest: (file, counts) => {
      indexer?.kick();
      // Tool results whose outcome the transcript just told: their sessions' rules run again.
      for (const completed of counts.completed) {
        try {
          const emitted = writing(db, () => perception.onToolOutcome(completed));
          if (emitted > 0) {
            events.publish("anomaly", { session_id: completed.session_id, emitted });
          }
        } catch (error) {
          log.error("perception failed on a tool outcome", { error: String(error) });
        }
      }
      if (counts.messages > 0 || counts.usage > 0) {
        events.publish("messages", {
          file,
          sessions: [...counts.sessions].slice(0, 20),
          messages: counts.messages,
          usage: counts.usage,
          tool_calls: counts.tool_calls,
        });
      }
    },
    onError: (file, error) => {
      log.warn("transcript ingest failed", { file, error: String(error) });
      noticeDamageIn(paths.home, error);
    },
  });
  noticeTranscript = (path) => tailer.notice(path);
  if (options.tail !== false) readTranscriptNow = (path, waitMs) => tailer.readNow(path, waitMs);

  const watch = watchChanges({
    marks: () => changeMarks(db),
    sessionsAfter: (rowid, limit) => sessionsAfter(db, rowid, limit),
    anomaliesAfter: (ts, limit) => anomaliesEmittedAfter(db, ts, limit),
    buildsAfter: (id, limit) => buildRunsAfter(db, id, limit),
  }, events);

  // Exports are decoded, mapped and stored on workers (started with the first export: a server
  // no agent exports to never loads protobufjs), so the main thread stays free for hooks; where
  // workers cannot start, on this thread.
  let otlpPool: Promise<OtlpIntakePool | undefined> | undefined;
  const otlpWorkers = (): Promise<OtlpIntakePool | undefined> =>
    otlpPool ??= import("../agent/otlp/otlp_intake_pool.ts").then(({ OtlpIntakePool }) => {
      try {
        return new OtlpIntakePool({
          database: paths.database,
          home: paths.home,
          prices,
          checkpoints: checkpointer === undefined,
        });
      } catch (error) {
        log.warn("OTLP exports are taken on the main thread", { error: String(error) });
        return undefined;
      }
    });

  const handler = createHandler({
    guard: { bindHost: options.host, port: options.port, token: options.token },
    takeHook,
    // Degraded while damage is recorded: found by a verification, met by any process of this
    // data home, or by the structural check below.
    health: () => ({
      ...storeHealthOf(paths.home),
      uptime_ms: Date.now() - started,
      hooks_stored: hooksStored,
      telemetry_exports: telemetryExports,
      pid: Deno.pid,
      live_subscribers: events.subscribers,
    }),
    catalog: options.catalog ?? builtinCatalog({ naming: VANTAGE_NAMING }),
    services,
    events,
    promptsDir: paths.prompts,
    log,
    otlp: {
      take: async (signal, body, encoding) => {
        const pool = await otlpWorkers();
        if (pool !== undefined) {
          // The worker records store damage it meets itself.
          const result = await pool.take(signal, body, encoding);
          telemetryExports++;
          return result;
        }
        const { takeOtlpExport } = await import("../agent/otlp/otlp_intake.ts");
        try {
          const result = takeOtlpExport(db, signal, body, encoding, { prices });
          telemetryExports++;
          return result;
        } catch (error) {
          noticeDamageIn(paths.home, error);
          throw error;
        }
      },
    },
  });

  const abort = new AbortController();
  let listening: (port: number) => void;
  const listeningPort = new Promise<number>((resolve) => listening = resolve);
  const server = Deno.serve({
    hostname: options.host,
    port: options.port,
    signal: abort.signal,
    onListen: ({ port }) => listening(port),
  }, handler);
  const port = await listeningPort;
  await lock.record(port);

  // The structural check reads every page of the store and index files: seconds on a large
  // store, so on a worker, after the server already answers.
  const structureCheck = new AbortController();
  const structure = checkStructureAtStart(db, structureCheck.signal).then((checks) => {
    for (const check of checks) {
      if (check.status === "damaged") {
        log.error("store damage found at start", { file: check.path, problems: check.problems });
      }
    }
  }, (error) => {
    if (!structureCheck.signal.aborted) {
      log.error("the structural check at start failed", { error: String(error) });
    }
  });

  const initialScan = options.tail === false ? Promise.resolve() : tailer.start().then(
    (counts) => {
      if (counts.lines > 0) {
        log.info("transcripts ingested", {
          files: counts.sessions.size,
          messages: counts.messages,
          malformed: counts.malformed,
        });
      }
    },
    (error) => log.error("transcript scan failed", { error: String(error) }),
  );

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    stopping ??= (async () => {
      structureCheck.abort();
      await structure;
      clearInterval(spoolTimer);
      watch.stop();
      perception.close();
      // Open event streams never end by themselves: close them so the listener can drain.
      events.close();
      abort.abort();
      await server.finished.catch(() => {});
      await (await otlpPool)?.stop();
      await tailer.stop();
      await replay(); // Anything spooled while we were stopping still lands.
      if (indexer !== undefined) {
        await Promise.race([
          indexer.caughtUp(),
          new Promise((resolve) => setTimeout(resolve, 5_000)),
        ]).catch(() => {});
        indexer.close();
      }
      await checkpointer?.stop();
      checkpoint(db);
      services.close();
    })().finally(() => lock.release());

  return {
    port,
    handler,
    initialScan,
    shutdown,
    finished: server.finished.then(() => stopping),
    events,
  };
}
