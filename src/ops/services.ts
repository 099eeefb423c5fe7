/**
 * Typed service lookup for operations. An operation asks its context for
 * what it needs by key (the store, the clock, the paths) and never builds it
 * itself, so the same operation runs inside `serve`, `mcp-serve`, the CLI or
 * a host program that provides its own services.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";

/** A typed key naming one service. */
export interface ServiceKey<T> {
  /** The service's name, used in error messages. */
  readonly name: string;
  /** Phantom field carrying the service's type; never set. */
  readonly type?: T;
}

/**
 * Creates a service key.
 *
 * @example
 * ```ts
 * import { serviceKey, Services } from "./services.ts";
 * const GREETING = serviceKey<string>("greeting");
 * const services = new Services().provide(GREETING, () => "hello");
 * services.get(GREETING); // "hello"
 * ```
 */
export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}

/**
 * A registry of lazily built services: each factory runs on first use, so a
 * process pays only for what its operations touch.
 */
export class Services {
  #factories = new Map<string, () => unknown>();
  #values = new Map<string, unknown>();
  #closers: Array<() => void> = [];

  /** Registers a factory for `key`, replacing any earlier one. */
  provide<T>(key: ServiceKey<T>, factory: () => T, close?: (value: T) => void): this {
    this.#factories.set(key.name, () => {
      const value = factory();
      if (close !== undefined) this.#closers.push(() => close(value));
      return value;
    });
    this.#values.delete(key.name);
    return this;
  }

  /** Whether a factory or value is registered for `key`. */
  has<T>(key: ServiceKey<T>): boolean {
    return this.#factories.has(key.name) || this.#values.has(key.name);
  }

  /** The service for `key`, built on first use; `unavailable` when none is registered. */
  get<T>(key: ServiceKey<T>): T {
    if (this.#values.has(key.name)) return this.#values.get(key.name) as T;
    const factory = this.#factories.get(key.name);
    if (factory === undefined) {
      throw new VantageError(
        "unavailable",
        `service '${key.name}' is not available in this process`,
      );
    }
    const value = factory();
    this.#values.set(key.name, value);
    return value as T;
  }

  /** Closes every service that was built and registered a closer, newest first. */
  close(): void {
    for (const closer of this.#closers.reverse()) {
      try {
        closer();
      } catch {
        // Closing is best effort: one failing closer must not keep the others open.
      }
    }
    this.#closers = [];
    this.#values.clear();
  }
}
