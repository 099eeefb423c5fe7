/**
 * Pacing for long scans on the main thread: the scan asks between bounded
 * steps whether it has held the event loop long enough, gives it back for a
 * turn when it has (so the server keeps answering), and stops with a
 * `timeout` error once its AbortSignal fires (the executor's time limit).
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";

/** How long a scan keeps the event loop before it yields, by default. */
export const YIELD_AFTER_MS = 15;

/** Decides when a scan yields, and stops it when its signal is aborted. */
export class ScanPacer {
  readonly #signal: AbortSignal | undefined;
  readonly #yieldAfterMs: number;
  readonly #what: string;
  #since = performance.now();

  /**
   * `what` names the scan in the timeout message.
   *
   * @example
   * ```ts
   * import { ScanPacer } from "./scan_pacer.ts";
   *
   * const pacer = new ScanPacer("grep", AbortSignal.timeout(1_000));
   * for (let i = 0; i < 1_000; i++) {
   *   // … one bounded step of work …
   *   if (pacer.due()) await pacer.pause();
   * }
   * ```
   */
  constructor(what: string, signal?: AbortSignal, yieldAfterMs = YIELD_AFTER_MS) {
    this.#what = what;
    this.#signal = signal;
    this.#yieldAfterMs = yieldAfterMs;
    this.check();
  }

  /** True when the scan has held the event loop for its share and should {@linkcode pause}. */
  due(): boolean {
    return performance.now() - this.#since >= this.#yieldAfterMs;
  }

  /**
   * Lets the event loop run (a macrotask turn, so timers, sockets and requests are served, which
   * microtasks and `setImmediate` under Deno are not), then throws if the signal was aborted.
   */
  async pause(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#since = performance.now();
    this.check();
  }

  /** Throws a `timeout` VantageError when the signal is aborted (its reason, if it is one). */
  check(): void {
    const signal = this.#signal;
    if (signal === undefined || !signal.aborted) return;
    const reason = signal.reason;
    if (reason instanceof VantageError && reason.kind === "timeout") throw reason;
    throw new VantageError(
      "timeout",
      `${this.#what} stopped: its time limit passed or it was cancelled${
        reason instanceof Error ? ` (${reason.message})` : ""
      }`,
      { dispatched: true },
    );
  }
}
