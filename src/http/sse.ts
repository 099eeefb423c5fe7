/**
 * `/api/events`: the event bus as a server-sent event stream. Each event is
 * written with its id (so `Last-Event-ID` resumes), a comment line keeps idle
 * connections alive through proxies, and the stream ends when the client
 * goes away or the server shuts down.
 *
 * @module
 */
import type { EventBus, LiveEvent, LiveEventType } from "../server/event_bus.ts";

/** Options for {@linkcode eventStream}. */
export interface EventStreamOptions {
  /** Only these event types (all when absent). */
  types?: ReadonlySet<LiveEventType>;
  /** Resume after this event id. */
  afterId?: number;
  /** Interval of keep-alive comments, ms (default 15 000). */
  keepAliveMs?: number;
}

/** Formats one event in the SSE wire format. */
export function formatEvent(event: LiveEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${
    JSON.stringify({ ...event.data, at: event.at })
  }\n\n`;
}

/** A streaming response carrying the bus's events until the client or the server stops. */
export function eventStream(
  bus: EventBus,
  signal: AbortSignal,
  options: EventStreamOptions = {},
): Response {
  const encoder = new TextEncoder();
  let cleanup = (): void => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      let keepAlive: ReturnType<typeof setInterval> | undefined = undefined;
      let unsubscribe = (): void => {};
      const write = (text: string): void => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          finish();
        }
      };
      const finish = (): void => {
        if (!open) return;
        open = false;
        clearInterval(keepAlive);
        unsubscribe();
        signal.removeEventListener("abort", finish);
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      };
      cleanup = finish;
      // Tell the browser how soon to reconnect, and open the stream at once.
      write(`retry: 3000\n: connected\n\n`);
      unsubscribe = bus.subscribe((event) => {
        if (options.types === undefined || options.types.has(event.type)) write(formatEvent(event));
      }, { afterId: options.afterId, onClose: () => finish() });
      if (!open) return;
      keepAlive = setInterval(() => write(": keep-alive\n\n"), options.keepAliveMs ?? 15_000);
      if (signal.aborted) finish();
      else signal.addEventListener("abort", finish, { once: true });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
