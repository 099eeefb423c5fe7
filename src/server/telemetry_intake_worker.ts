/**
 * An OTLP intake worker (started by `OtlpIntakePool` in telemetry_intake_pool.ts):
 * it decodes, maps and stores the exports it is sent, one at a time, on a
 * store connection of its own, with the very functions `serve` ran on its
 * main thread before (`prepareOtlpExport`, `storeOtlpExportTakingTurns`). Its
 * parts take turns with other writers, so a hook on the main thread waits
 * for one part of an export, not for all of it; and while one worker
 * stores, another decodes and maps on the second core.
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
import type { MappedOtlpExport, OtlpIntakeResult, OtlpSender } from "../agent/otlp/otlp_intake.ts";
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
/** Messages are taken in order: an export waits for the set-up, a stop for the exports. */
let queue: Promise<void> = Promise.resolve();

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

async function take(request: OtlpWorkerExport): Promise<void> {
  let ready: Loaded | undefined;
  try {
    if (loaded === undefined) {
      throw new Error("the OTLP worker was sent an export before its set-up");
    }
    ready = await loaded;
    const { db } = ready;
    if (db === undefined) {
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
    const { turn, id } = ready.setup;
    await takeTurn(turn, id);
    let result: OtlpIntakeResult;
    try {
      result = await ready.intake.storeOtlpExportTakingTurns(db, prepared, ready.setup.prices);
    } finally {
      giveTurn(turn, id);
    }
    scope.postMessage({ type: "taken", seq: request.seq, result });
  } catch (error) {
    if (ready !== undefined) ready.health.noticeDamageIn(ready.setup.home, error);
    scope.postMessage({
      type: "failed",
      seq: request.seq,
      message: error instanceof Error ? error.message : String(error),
      badData: ready !== undefined && error instanceof ready.errors.OtlpBadData,
    });
  }
}

/** Waits until the pool's store turn is free and takes it. */
async function takeTurn(turn: Int32Array, id: number): Promise<void> {
  for (;;) {
    const holder = Atomics.compareExchange(turn, 0, 0, id);
    if (holder === 0) return;
    // Resolves when the holder gives the turn back (at once if it already has).
    const wait = Atomics.waitAsync(turn, 0, holder);
    if (wait.async) await wait.value;
  }
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
  queue = queue.then(() => request.type === "export" ? take(request) : stop());
};
