/**
 * Who embeds what during a large add. The main thread stores every file
 * (text and binary); the index worker indexes the texts; embedding is the
 * work either can do. The add ends when the later of the two is done, so a
 * text is embedded on the main thread only when the worker, with what it has
 * been handed already, is expected to finish after the main thread has
 * stored everything left. Costs are learned as the add goes: the worker says
 * how long each batch took, the main thread times its own batches.
 *
 * @module
 */

/** What the main thread still has to store, by kind. */
export type FileKind = "text" | "binary";

/** Weight of the newest measurement in a learned rate. */
const LEARNING = 0.3;

/**
 * A rate (milliseconds per unit of work) learned from measurements, starting
 * from a guess so the first decisions are sensible.
 */
class Rate {
  #value: number;
  #measured = false;

  constructor(guess: number) {
    this.#value = guess;
  }

  get value(): number {
    return this.#value;
  }

  /** Takes in `ms` spent on `units`. */
  learn(ms: number, units: number): void {
    if (units <= 0 || !(ms >= 0)) return;
    const rate = ms / units;
    this.#value = this.#measured ? this.#value + LEARNING * (rate - this.#value) : rate;
    this.#measured = true;
  }
}

/** Work handed to the worker in one batch, as estimated when it was sent. */
export interface HandedOver {
  /** Characters of text to index. */
  indexChars: number;
  /** Characters of text to embed. */
  embedChars: number;
  /** Estimated milliseconds. */
  estimate: number;
  /** Whether it is no longer counted as the worker's backlog (finished or failed). */
  settled?: boolean;
}

/**
 * Keeps the estimates and answers whether the next text is best embedded
 * on the main thread.
 *
 * @example
 * ```ts
 * import { WorkBalance } from "./ingest_balance.ts";
 * const balance = new WorkBalance();
 * balance.plan("text", 6_000_000);
 * balance.embedHere(10_000); // false: the main thread has far more left to store
 * ```
 */
export class WorkBalance {
  // Guesses from a 2-core machine; measurements replace them within a batch or two.
  #mainText = new Rate(50e-6);
  #mainBinary = new Rate(6e-6);
  #index = new Rate(40e-6);
  #embed = new Rate(70e-6);
  #remaining: Record<FileKind, number> = { text: 0, binary: 0 };
  /** Estimated milliseconds of work the worker has been handed and not finished. */
  #backlog = 0;
  /** Work gathered for the batch being stored, not handed over yet. */
  #gathering: HandedOver = { indexChars: 0, embedChars: 0, estimate: 0 };

  /** Adds bytes the main thread will have to store. */
  plan(kind: FileKind, bytes: number): void {
    this.#remaining[kind] += bytes;
  }

  /** Milliseconds the main thread is expected to need for what it has left. */
  get mainRemaining(): number {
    return this.#remaining.text * this.#mainText.value +
      this.#remaining.binary * this.#mainBinary.value;
  }

  /** Milliseconds the worker is expected to need for what it has been handed. */
  get workerRemaining(): number {
    return this.#backlog + this.#gathering.estimate;
  }

  /**
   * Whether a text of `chars` characters to embed is best embedded here:
   * true when the worker, with it, would finish after the main thread.
   */
  embedHere(chars: number): boolean {
    return this.workerRemaining + chars * this.#embed.value > this.mainRemaining;
  }

  /** Counts a text handed to the worker to index. */
  toIndex(chars: number): void {
    this.#gathering.indexChars += chars;
    this.#gathering.estimate += chars * this.#index.value;
  }

  /** Counts a text handed to the worker to embed. */
  toEmbed(chars: number): void {
    this.#gathering.embedChars += chars;
    this.#gathering.estimate += chars * this.#embed.value;
  }

  /** The work gathered for the batch just stored, now handed over as one batch. */
  handOver(): HandedOver {
    const batch = this.#gathering;
    this.#gathering = { indexChars: 0, embedChars: 0, estimate: 0 };
    this.#backlog += batch.estimate;
    return batch;
  }

  /**
   * The worker is known to have finished a batch, before its report (with
   * the time it took) has arrived. Counted once, however often it is said.
   */
  workerFinished(batch: HandedOver): void {
    if (batch.settled === true) return;
    batch.settled = true;
    this.#backlog = Math.max(0, this.#backlog - batch.estimate);
  }

  /** The worker finished a batch, taking the milliseconds it reports. */
  workerDone(batch: HandedOver, indexMs: number, embedMs: number): void {
    this.workerFinished(batch);
    this.#index.learn(indexMs, batch.indexChars);
    this.#embed.learn(embedMs, batch.embedChars);
  }

  /** A batch the worker will not finish (it failed). */
  workerFailed(batch: HandedOver): void {
    this.workerFinished(batch);
  }

  /**
   * The main thread stored a batch: `bytes` of each kind in `ms`, not
   * counting the time it spent embedding.
   */
  mainDone(bytes: Record<FileKind, number>, ms: number): void {
    this.#remaining.text = Math.max(0, this.#remaining.text - bytes.text);
    this.#remaining.binary = Math.max(0, this.#remaining.binary - bytes.binary);
    // One batch's time cannot be split between the kinds; a batch of one kind teaches its rate,
    // and a mixed one teaches both in proportion to what the current rates predict.
    const predicted = bytes.text * this.#mainText.value + bytes.binary * this.#mainBinary.value;
    if (predicted <= 0) return;
    const scale = ms / predicted;
    if (bytes.text > 0) {
      this.#mainText.learn(bytes.text * this.#mainText.value * scale, bytes.text);
    }
    if (bytes.binary > 0) {
      this.#mainBinary.learn(bytes.binary * this.#mainBinary.value * scale, bytes.binary);
    }
  }
}
