/**
 * Sessions waiting for their telemetry rules to run. An OTLP exporter sends
 * a batch every few seconds, often many in a row for the same sessions: each
 * session is checked once per pause rather than once per export, after the
 * exports that named it, and never on the export's own request, so intake
 * answers as fast as it stores.
 *
 * @module
 */

/** Options of {@linkcode SessionCheckQueue}. */
export interface SessionCheckOptions {
  /** Pause after the first waiting session before the checks run, ms (default 1000). */
  delayMs?: number;
  /** Most sessions checked in one turn; the rest wait for the next (default 200). */
  perTurn?: number;
}

/** Runs a check once per waiting session, a short pause after sessions start waiting. */
export class SessionCheckQueue {
  #check: (sessionId: string) => void;
  #waiting = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #delayMs: number;
  #perTurn: number;
  #closed = false;

  /** `check` runs for each session; it must not throw (a throw skips the session). */
  constructor(check: (sessionId: string) => void, options: SessionCheckOptions = {}) {
    this.#check = check;
    this.#delayMs = options.delayMs ?? 1000;
    this.#perTurn = options.perTurn ?? 200;
  }

  /** Sessions waiting now. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Adds sessions to check. */
  add(sessionIds: Iterable<string>): void {
    if (this.#closed) return;
    for (const id of sessionIds) this.#waiting.add(id);
    if (this.#waiting.size > 0) this.#timer ??= setTimeout(() => this.#turn(), this.#delayMs);
  }

  /** Drops what waits and stops. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting.clear();
  }

  #turn(): void {
    this.#timer = undefined;
    const batch = [...this.#waiting].slice(0, this.#perTurn);
    for (const id of batch) {
      this.#waiting.delete(id);
      try {
        this.#check(id);
      } catch {
        // One session's failure must not stop the others; the caller logs inside its check.
      }
    }
    if (this.#waiting.size > 0 && !this.#closed) {
      this.#timer = setTimeout(() => this.#turn(), this.#delayMs);
    }
  }
}
