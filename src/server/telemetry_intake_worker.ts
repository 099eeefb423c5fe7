/**
 * An OTLP intake worker (started by `OtlpIntakePool` in telemetry_intake_pool.ts):
 * it decodes and maps each export it is sent as it comes, and stores them on a
 * store connection of its own (`prepareOtlpExport`, `storeOtlpExportGroup`).
 * The pool's workers take turns to store; when its turn comes, a worker
 * stores every export it has read meanwhile (up to a bound) as one group, in
 * one transaction (group commit), and answers each export only after that
 * transaction committed. The parts of a group take turns with other writers,
 * so a hook on the main thread waits for one part of an export, not for all
 * of it; and while one worker stores, another decodes and maps on the second
 * core.
 *
 * Set up without a store file, it only decodes and maps, and answers with
 * the export's records (`mapped`) for the main thread to store: what a team
 * server does, whose store is PostgreSQL.
 *
 * The decoder (protobufjs) and the store load with the set-up message, not
 * when the worker starts (see src/core/module_worker.ts).
 *
 * @module
 */
import { workerScope } from "../core/module_worker.ts";
import type { OtlpEncoding } from "../agent/otlp/otlp_decode.ts";
import type {
  MappedOtlpExport,
  OtlpGroupOutcome,
  OtlpIntakeResult,
  OtlpSender,
  PreparedOtlpExport,
} from "../agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../agent/otlp/otlp_schema.ts";
import type { ModelPrice } from "../agent/usage/pricing.ts";

/** The worker's set-up, sent first. */
export interface OtlpWorkerSetup {
  type: "setup";
  /** The store file (absent: exports are only decoded and mapped, answered `mapped`). */
  database?: string;
  /** The data home, where store damage met here is recorded. */
  home: string;
  /** The user's price overrides. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Whether this connection runs checkpoints itself (false when `serve` has a checkpointer). */
  checkpoints: boolean;
  /**
   * The pool's store turn, shared by its workers: 0 when free, else the id of the worker
   * storing. One worker stores at a time, so an export is stored in one transaction unless
   * a writer from outside the pool (a hook) waits, and the other workers decode meanwhile.
   */
  turn: Int32Array;
  /** This worker's id in the pool (never 0). */
  id: number;
  /** Most exports stored as one group (in one transaction while no other writer waits). */
  group: number;
}

/** One export to take. */
export interface OtlpWorkerExport {
  type: "export";
  /** The export's number, echoed in the answer. */
  seq: number;
  /** Its signal. */
  signal: OtlpSignal;
  /** Its body (moved to the worker, not copied). */
  body: Uint8Array;
  /** The body's encoding. */
  encoding: OtlpEncoding;
  /** Who sent it (absent: the server's owner). */
  sender?: OtlpSender;
}

/** What the worker is sent. */
export type OtlpWorkerRequest = OtlpWorkerSetup | OtlpWorkerExport | { type: "stop" };

/** The worker's answers. */
export type OtlpWorkerReply =
  | { type: "taken"; seq: number; result: OtlpIntakeResult }
  | { type: "mapped"; seq: number; mapped: MappedOtlpExport }
  | {
    type: "failed";
    seq: number;
    /** The error's message. */
    message: string;
    /** Whether the body was no export request (400, nothing stored). */
    badData: boolean;
  }
  | { type: "stopped" };

const scope = workerScope<OtlpWorkerRequest, OtlpWorkerReply>();

/** What the set-up loaded. */
interface Loaded {
  intake: typeof import("../agent/otlp/otlp_intake.ts");
  errors: typeof import("../agent/otlp/otlp_errors.ts");
  health: typeof import("../store/store_health.ts");
  /** The store connection (absent: this worker only maps). */
  db?: import("../store/database.ts").DatabaseSync;
  setup: OtlpWorkerSetup;
}

let loaded: Promise<Loaded> | undefined;
/** Exports received and not yet read. */
const received: OtlpWorkerExport[] = [];
/** Exports read and waiting for the store turn, in the order they came. */
const waiting: Array<{ seq: number; prepared: PreparedOtlpExport }> = [];
/** Whether `run` is taking the exports in hand (it goes on until none is left). */
let running = false;
/** Whether the pool asked this worker to stop once every export in hand is answered. */
let stopAsked = false;
/** Ends a wait for the store turn when a message comes (set while waiting). */
let wake: (() => void) | undefined;

async function load(setup: OtlpWorkerSetup): Promise<Loaded> {
  const [intake, errors, health, database] = await Promise.all([
    import("../agent/otlp/otlp_intake.ts"),
    import("../agent/otlp/otlp_errors.ts"),
    import("../store/store_health.ts"),
    import("../store/database.ts"),
  ]);
  if (setup.database === undefined) return { intake, errors, health, setup };
  const db = database.openDatabase(setup.database);
  if (!setup.checkpoints) database.setCheckpointInterval(db, 0);
  return { intake, errors, health, db, setup };
}

/**
 * Takes every export in hand: reads each as it comes, and whenever this worker holds the store
 * turn, stores all those read so far (at most the set-up's `group`) as one group. While it waits for
 * the turn, exports that come meanwhile are read, so the group it then stores is larger.
 */
async function run(): Promise<void> {
  let ready: Loaded;
  try {
    if (loaded === undefined) {
      throw new Error("the OTLP worker was sent an export before its set-up");
    }
    ready = await loaded;
  } catch (error) {
    for (const request of received.splice(0)) fail(request.seq, error, undefined);
    if (stopAsked) await stop();
    running = false;
    return;
  }
  for (;;) {
    while (received.length > 0) read(ready, received.shift()!);
    if (waiting.length > 0 && ready.db !== undefined) {
      const { turn, id } = ready.setup;
      const holder = Atomics.compareExchange(turn, 0, 0, id);
      if (holder !== 0) {
        await turnOrMessage(turn, holder);
        continue;
      }
      const group = waiting.splice(0, Math.max(1, ready.setup.group));
      let outcomes: OtlpGroupOutcome[];
      try {
        outcomes = await ready.intake.storeOtlpExportGroup(
          ready.db,
          group.map((one) => one.prepared),
          ready.setup.prices,
        );
      } catch (error) {
        outcomes = group.map(() => ({ error }));
      } finally {
        giveTurn(turn, id);
      }
      // Answered only now: every transaction holding a part of these exports has committed.
      group.forEach(({ seq }, i) => {
        const outcome = outcomes[i];
        if ("result" in outcome) scope.postMessage({ type: "taken", seq, result: outcome.result });
        else fail(seq, outcome.error, ready);
      });
      continue;
    }
    if (stopAsked) await stop();
    running = false;
    return;
  }
}

/** Reads one export: answered at once by a worker that only maps, else put in line to store. */
function read(ready: Loaded, request: OtlpWorkerExport): void {
  try {
    if (ready.db === undefined) {
      const mapped = ready.intake.mapOtlpExport(
        request.signal,
        request.body,
        request.encoding,
        Date.now(),
        request.sender,
      );
      scope.postMessage({ type: "mapped", seq: request.seq, mapped });
      return;
    }
    // Everything that needs no store is done before this worker's turn to write.
    const prepared = ready.intake.prepareOtlpExport(
      request.signal,
      request.body,
      request.encoding,
      Date.now(),
      undefined,
      request.sender,
    );
    waiting.push({ seq: request.seq, prepared });
  } catch (error) {
    fail(request.seq, error, ready);
  }
}

function fail(seq: number, error: unknown, ready: Loaded | undefined): void {
  if (ready !== undefined) ready.health.noticeDamageIn(ready.setup.home, error);
  scope.postMessage({
    type: "failed",
    seq,
    message: error instanceof Error ? error.message : String(error),
    badData: ready !== undefined && error instanceof ready.errors.OtlpBadData,
  });
}

/** Resolves when `holder` gives the store turn back, or when a message comes first. */
function turnOrMessage(turn: Int32Array, holder: number): Promise<void> {
  const wait = Atomics.waitAsync(turn, 0, holder);
  if (!wait.async) return Promise.resolve();
  const message = new Promise<void>((resolve) => wake = resolve);
  return Promise.race([wait.value.then(() => {}), message]).finally(() => wake = undefined);
}

/** Gives the store turn back and wakes a worker waiting for it. */
function giveTurn(turn: Int32Array, id: number): void {
  if (Atomics.compareExchange(turn, 0, id, 0) === id) Atomics.notify(turn, 0);
}

async function stop(): Promise<void> {
  try {
    (await loaded)?.db?.close();
  } catch {
    // Closing is best effort on the way out.
  }
  scope.postMessage({ type: "stopped" });
}

scope.onmessage = (event) => {
  const request = event.data;
  if (request.type === "setup") {
    loaded = load(request);
    // A set-up that fails is reported with each export it was meant for.
    loaded.catch(() => {});
    return;
  }
  if (request.type === "export") received.push(request);
  else stopAsked = true;
  wake?.();
  if (!running) {
    running = true;
    void run();
  }
};
