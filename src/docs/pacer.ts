/**
 * Long store work done in turns: a verification or repair that reads every
 * stored byte gives the event loop a turn every {@linkcode YIELD_EVERY_MS},
 * so a server running it keeps answering, and stops at the next turn once
 * its signal is aborted.
 *
 * @module
 */

/** How often long store work gives the event loop a turn, ms. */
export const YIELD_EVERY_MS = 20;

/**
 * Tells long synchronous work when its turn is up, and takes the pause.
 *
 * @example
 * ```ts
 * import { Pacer } from "./pacer.ts";
 * const pacer = new Pacer(undefined);
 * for (let i = 0; i < 1000; i++) {
 *   if (pacer.due) await pacer.pause();
 * }
 * ```
 */
export class Pacer {
  #last = performance.now();

  /** Starts pacing; throws at once when `signal` is already aborted. */
  constructor(readonly signal: AbortSignal | undefined) {
    signal?.throwIfAborted();
  }

  /** Whether the work has run for a turn's length since its last pause. */
  get due(): boolean {
    return performance.now() - this.#last >= YIELD_EVERY_MS;
  }

  /** Lets other tasks run; throws the signal's reason when it was aborted meanwhile. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#last = performance.now();
    this.signal?.throwIfAborted();
  }
}
