/**
 * The daemon's HTTP listener: `Deno.serve` on the bind address, with the
 * port it got (0 picks a free one) and a close that lets in-flight requests
 * finish.
 *
 * @module
 */

/** A listening socket. */
export interface Listener {
  /** The port it listens on. */
  readonly port: number;
  /** Resolves once the listener has closed and its requests are answered. */
  readonly finished: Promise<void>;
  /** Stops accepting; resolves when in-flight requests are answered. */
  close(): Promise<void>;
}

/**
 * Listens on `host`:`port` with `handler`.
 *
 * @example
 * ```ts ignore
 * const listener = await listen("127.0.0.1", 0, handler);
 * await listener.close();
 * ```
 */
export async function listen(
  host: string,
  port: number,
  handler: (request: Request) => Promise<Response>,
): Promise<Listener> {
  const abort = new AbortController();
  let listening: (port: number) => void;
  const bound = new Promise<number>((resolve) => listening = resolve);
  const server = Deno.serve({
    hostname: host,
    port,
    signal: abort.signal,
    onListen: ({ port }) => listening(port),
  }, handler);
  return {
    port: await bound,
    finished: server.finished,
    async close() {
      abort.abort();
      await server.finished.catch(() => {});
    },
  };
}
