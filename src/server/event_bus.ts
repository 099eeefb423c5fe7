/**
 * A small in-process event bus for live updates: the server publishes what
 * it stores (hook events, transcript messages, new sessions, anomalies,
 * builds) and every open `/api/events` stream receives it. A short ring of
 * recent events lets a reconnecting client resume from its `Last-Event-ID`.
 *
 * @module
 */

/** The kinds of live event the server announces. */
export type LiveEventType = "hook" | "messages" | "session" | "anomaly" | "build";

/** One published event. */
export interface LiveEvent {
  /** Increasing id, the SSE `id:` field. */
  id: number;
  /** What happened. */
  type: LiveEventType;
  /** When it was published, ms. */
  at: number;
  /** The event's facts (JSON-safe). */
  data: Record<string, unknown>;
}

/** Receives events; returning nothing, it must not block. */
export type LiveListener = (event: LiveEvent) => void;

/** Options for {@linkcode EventBus}. */
export interface EventBusOptions {
  /** Recent events kept for resuming streams (default 256). */
  history?: number;
}

/**
 * Fan-out of live events to subscribers.
 *
 * @example
 * ```ts
 * import { EventBus } from "./event_bus.ts";
 * const bus = new EventBus();
 * const seen: string[] = [];
 * const stop = bus.subscribe((event) => seen.push(event.type));
 * bus.publish("hook", { session_id: "abc" });
 * stop();
 * seen; // ["hook"]
 * ```
 */
export class EventBus {
  #listeners = new Set<LiveListener>();
  #closers = new Set<() => void>();
  #history: LiveEvent[] = [];
  #limit: number;
  #nextId = 1;
  #closed = false;

  /** Creates an empty bus. */
  constructor(options: EventBusOptions = {}) {
    this.#limit = options.history ?? 256;
  }

  /** How many subscribers are listening. */
  get subscribers(): number {
    return this.#listeners.size;
  }

  /** Whether {@linkcode EventBus.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Publishes an event to every subscriber; a failing subscriber is dropped, not the others. */
  publish(type: LiveEventType, data: Record<string, unknown>): LiveEvent {
    const event: LiveEvent = { id: this.#nextId++, type, at: Date.now(), data };
    this.#history.push(event);
    if (this.#history.length > this.#limit) this.#history.shift();
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        this.#listeners.delete(listener);
      }
    }
    return event;
  }

  /**
   * Subscribes; with `afterId`, first replays the kept events newer than it.
   * `onClose` runs when the bus closes (server shutdown). Returns the
   * unsubscribe function.
   */
  subscribe(
    listener: LiveListener,
    options: { afterId?: number; onClose?: () => void } = {},
  ): () => void {
    if (this.#closed) {
      options.onClose?.();
      return () => {};
    }
    if (options.afterId !== undefined) {
      for (const event of this.#history) if (event.id > options.afterId) listener(event);
    }
    this.#listeners.add(listener);
    const onClose = options.onClose;
    if (onClose !== undefined) this.#closers.add(onClose);
    return () => {
      this.#listeners.delete(listener);
      if (onClose !== undefined) this.#closers.delete(onClose);
    };
  }

  /** Ends every subscription (their `onClose` runs) and refuses new ones. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    const closers = [...this.#closers];
    this.#closers.clear();
    for (const close of closers) {
      try {
        close();
      } catch {
        // One stream failing to close must not keep the others open.
      }
    }
  }
}
