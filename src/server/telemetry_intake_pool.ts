/**
 * OTLP intake off `serve`'s main thread: a few workers
 * (telemetry_intake_worker.ts), each decoding, mapping and storing exports on
 * its own store connection. The main thread only reads request bodies and
 * hands them over (moved, not copied), so it stays free for hooks; a hook's
 * write waits for one part of an export being stored (a few milliseconds),
 * never for the whole export; and with two workers one export is decoded and
 * mapped on one core while others are stored.
 *
 * Exports are given, in the order they came, to the worker holding the
 * fewest, up to `group` each; beyond that they wait here. A worker stores the
 * exports it holds together (group commit: one transaction for several
 * exports costs less than one each) and answers each once it is committed.
 *
 * Without a store file (a team server's store is PostgreSQL, written through
 * its pool on the main thread's event loop) the workers only decode and map:
 * {@linkcode OtlpIntakePool.map} hands back the export's records, ready for
 * one write.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { startModuleWorker } from "../core/module_worker.ts";
import type { OtlpEncoding } from "../agent/otlp/otlp_decode.ts";
import { OtlpBadData } from "../agent/otlp/otlp_errors.ts";
import type { MappedOtlpExport, OtlpIntakeResult, OtlpSender } from "../agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../agent/otlp/otlp_schema.ts";
import type { ModelPrice } from "../agent/usage/pricing.ts";
import type {
  OtlpWorkerExport,
  OtlpWorkerReply,
  OtlpWorkerRequest,
} from "./telemetry_intake_worker.ts";

/** What the pool's workers need. */
export interface OtlpIntakePoolOptions {
  /** The store file (absent: the workers only decode and map, see `map`). */
  database?: string;
  /** The data home (store damage met by a worker is recorded there). */
  home: string;
  /** The user's price overrides. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Whether the workers' connections run checkpoints themselves (false beside a checkpointer). */
  checkpoints?: boolean;
  /** How many workers (default 2: one stores while the other decodes). */
  workers?: number;
  /**
   * Most exports a worker holds and stores as one group (default {@linkcode GROUP_EXPORTS};
   * 1: each export in transactions of its own).
   */
  group?: number;
}

/** Most exports a worker holds and stores in one group, by default. */
export const GROUP_EXPORTS = 8;

interface Pending {
  request: Omit<OtlpWorkerExport, "seq"> & { body: Uint8Array<ArrayBuffer> };
  /** Takes the worker's answer (`taken` from a storing worker, `mapped` from a mapping one). */
  resolve: (reply: Answered) => void;
  reject: (error: Error) => void;
}

type Answered = Extract<OtlpWorkerReply, { type: "taken" | "mapped" }>;

interface Slot {
  worker: Worker;
  /** Its id in the store turn. */
  id: number;
  /** The exports it is taking, by number. */
  held: Map<number, Pending>;
}

/** Workers that take OTLP exports. */
export class OtlpIntakePool {
  #slots: Slot[] = [];
  #queue: Pending[] = [];
  #seq = 0;
  #stopped = false;
  #options: OtlpIntakePoolOptions;
  /** The store turn the workers share (see `OtlpWorkerSetup.turn`). */
  #turn = new Int32Array(new SharedArrayBuffer(4));
  #ids = 0;
  #group: number;

  /**
   * Starts the workers; throws a `VantageError` (`unavailable`) when this process may not
   * read their module, so the caller can take exports on its own thread instead.
   */
  constructor(options: OtlpIntakePoolOptions) {
    this.#options = options;
    this.#group = Math.max(1, options.group ?? GROUP_EXPORTS);
    const count = Math.max(1, options.workers ?? 2);
    try {
      for (let i = 0; i < count; i++) this.#slots.push(this.#start());
    } catch (error) {
      for (const slot of this.#slots) slot.worker.terminate();
      throw error;
    }
  }

  #start(): Slot {
    const worker = startModuleWorker(
      new URL("./telemetry_intake_worker.ts", import.meta.url),
      "OTLP intake",
    );
    const slot: Slot = { worker, id: ++this.#ids, held: new Map() };
    worker.onmessage = (event: MessageEvent<OtlpWorkerReply>) => this.#answer(slot, event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#lost(slot, `the OTLP intake worker failed: ${event.message}`);
    };
    this.#post(worker, {
      type: "setup",
      ...(this.#options.database !== undefined ? { database: this.#options.database } : {}),
      home: this.#options.home,
      ...(this.#options.prices !== undefined ? { prices: this.#options.prices } : {}),
      checkpoints: this.#options.checkpoints ?? true,
      turn: this.#turn,
      id: slot.id,
      group: this.#group,
    });
    return slot;
  }

  #post(worker: Worker, request: OtlpWorkerRequest, transfer: Transferable[] = []): void {
    worker.postMessage(request, transfer);
  }

  /**
   * Decodes, maps and stores one export on a worker, as `sender`'s. Rejects with
   * `OtlpBadData` when the body is not the signal's export request (nothing of it is stored).
   */
  async take(
    signal: OtlpSignal,
    body: Uint8Array,
    encoding: OtlpEncoding,
    sender?: OtlpSender,
  ): Promise<OtlpIntakeResult> {
    if (this.#options.database === undefined) {
      throw new VantageError("internal_error", "this OTLP pool has no store: use map()");
    }
    const reply = await this.#send(signal, body, encoding, sender);
    if (reply.type !== "taken") throw new VantageError("internal_error", "a worker only mapped");
    return reply.result;
  }

  /**
   * Decodes and maps one export on a worker, as `sender`'s, for the caller to store (a pool
   * started without a store file). Rejects with `OtlpBadData` when the body is not the
   * signal's export request.
   */
  async map(
    signal: OtlpSignal,
    body: Uint8Array,
    encoding: OtlpEncoding,
    sender?: OtlpSender,
  ): Promise<MappedOtlpExport> {
    if (this.#options.database !== undefined) {
      throw new VantageError("internal_error", "this OTLP pool stores: use take()");
    }
    const reply = await this.#send(signal, body, encoding, sender);
    if (reply.type !== "mapped") throw new VantageError("internal_error", "a worker stored");
    return reply.mapped;
  }

  #send(
    signal: OtlpSignal,
    body: Uint8Array,
    encoding: OtlpEncoding,
    sender: OtlpSender | undefined,
  ): Promise<Answered> {
    if (this.#stopped) {
      return Promise.reject(new VantageError("unavailable", "the OTLP intake is stopping"));
    }
    if (this.#slots.length === 0) {
      return Promise.reject(
        new VantageError("unavailable", "no OTLP intake worker could be started again"),
      );
    }
    // Moved to the worker: a body that shares its buffer with anything else is copied first.
    const own = body.buffer instanceof ArrayBuffer && body.byteOffset === 0 &&
        body.byteLength === body.buffer.byteLength
      ? body as Uint8Array<ArrayBuffer>
      : new Uint8Array(body);
    return new Promise((resolve, reject) => {
      this.#queue.push({
        request: {
          type: "export",
          signal,
          body: own,
          encoding,
          ...(sender !== undefined ? { sender } : {}),
        },
        resolve,
        reject,
      });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      // The worker holding the fewest: it reads this export while another stores.
      let slot: Slot | undefined;
      for (const candidate of this.#slots) {
        if (candidate.held.size >= this.#group) continue;
        if (slot === undefined || candidate.held.size < slot.held.size) slot = candidate;
      }
      if (slot === undefined) return;
      const pending = this.#queue.shift()!;
      const seq = this.#seq++;
      slot.held.set(seq, pending);
      this.#post(slot.worker, { ...pending.request, seq }, [pending.request.body.buffer]);
    }
  }

  #answer(slot: Slot, reply: OtlpWorkerReply): void {
    if (reply.type === "stopped") return;
    const pending = slot.held.get(reply.seq);
    if (pending === undefined) return;
    slot.held.delete(reply.seq);
    if (reply.type === "taken" || reply.type === "mapped") pending.resolve(reply);
    else if (reply.badData) pending.reject(new OtlpBadData(reply.message));
    else pending.reject(new VantageError("internal_error", reply.message));
    this.#dispatch();
  }

  /** A worker that died: the exports it held fail, and a new worker takes its place. */
  #lost(slot: Slot, message: string): void {
    slot.worker.terminate();
    // A worker that died storing leaves the turn to the others.
    if (Atomics.compareExchange(this.#turn, 0, slot.id, 0) === slot.id) {
      Atomics.notify(this.#turn, 0);
    }
    for (const pending of slot.held.values()) {
      pending.reject(new VantageError("internal_error", message));
    }
    slot.held.clear();
    if (this.#stopped) return;
    const index = this.#slots.indexOf(slot);
    try {
      this.#slots[index] = this.#start();
    } catch (error) {
      // Cannot start another: the others carry on (or every export waiting fails).
      this.#slots.splice(index, 1);
      if (this.#slots.length === 0) {
        for (const pending of this.#queue.splice(0)) {
          pending.reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
    this.#dispatch();
  }

  /**
   * Stops taking exports: those waiting here fail, those a worker holds finish, then each worker
   * closes its store connection and ends (at most `timeoutMs` later).
   */
  async stop(timeoutMs = 5_000): Promise<void> {
    this.#stopped = true;
    for (const pending of this.#queue.splice(0)) {
      pending.reject(new VantageError("unavailable", "the OTLP intake stopped"));
    }
    await Promise.all(this.#slots.map((slot) =>
      new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          slot.worker.terminate();
          for (const pending of slot.held.values()) {
            pending.reject(new VantageError("unavailable", "the OTLP intake stopped"));
          }
          slot.held.clear();
          resolve();
        };
        const timer = setTimeout(finish, timeoutMs);
        const answer = slot.worker.onmessage;
        slot.worker.onmessage = (event: MessageEvent<OtlpWorkerReply>) => {
          answer?.call(slot.worker, event);
          if (event.data.type === "stopped") finish();
        };
        // The worker stops once it has answered every export it holds.
        this.#post(slot.worker, { type: "stop" });
      })
    ));
  }
}
