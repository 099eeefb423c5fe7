/**
 * Forwarding hooks to a team server (`serve --upstream URL`): each hook
 * this server stored is handed on, as its agent sent it and under the
 * delivery id it was stored with, to the team server's `/api/hooks` with
 * the person's token. Forwarding happens after the local store answered
 * and off the hook's path, so it never holds an agent up.
 *
 * When the team server does not take a hook in time (down, unreachable,
 * busy), the hook waits in a spool of its own (the hook spool's mechanism:
 * locked, fsynced appends, replayed oldest first, each entry kept until
 * taken) and later hooks go straight there until a replay gets through. A
 * hook the team server refuses (a revoked token, a payload it does not take)
 * is dropped with a log line: sending it again would be refused again.
 *
 * The team server keeps a hook once per delivery id, so a hook forwarded
 * twice, or forwarded and later pushed by `vantage sync` (which sends the
 * same delivery ids), is stored once. A hook stored here that a crash kept
 * from being forwarded reaches the team server with the next `vantage sync`.
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import {
  appendToSpool,
  type HookDelivery,
  replaySpool,
  type SpoolEntry,
  SpoolPaused,
} from "../agent/mod.ts";

/** How to reach the team server. */
export interface HookUpstreamOptions {
  /** Its base URL. */
  url: string;
  /** The person's bearer token. */
  token: string;
  /** Where hooks wait while it is down. */
  spoolPath: string;
  /** Where transitions and refusals are logged. */
  log: Logger;
  /** Longest wait for the team server to take one hook, ms (default 5000). */
  timeoutMs?: number;
  /** How often the spool is replayed, ms (default 5000). */
  replayIntervalMs?: number;
  /** Hooks waiting to be forwarded beyond which new ones go to the spool (default 1000). */
  maxQueue?: number;
}

/** What the forwarder did since it started. */
export interface UpstreamCounts {
  /** Hooks the team server took (or had). */
  forwarded: number;
  /** Hooks put in the spool because the team server did not take them in time. */
  spooled: number;
  /** Hooks the team server refused (not sent again). */
  refused: number;
  /** Whether the last attempt found the team server unavailable. */
  down: boolean;
}

/** The running forwarder. */
export interface HookUpstream {
  /** Hands a stored hook on; returns at once. */
  forward(delivery: HookDelivery): void;
  /** Replays the spool now (never throws: failures are logged). */
  replay(): Promise<void>;
  /** Stops: what is still queued goes to the spool, to be forwarded by the next start. */
  stop(): Promise<void>;
  /** What it did so far. */
  counts(): UpstreamCounts;
}

type Sent = { kind: "delivered" } | { kind: "refused" | "unavailable"; reason: string };

/** The spool entry of a stored delivery. */
function entryOf(delivery: HookDelivery): SpoolEntry {
  const entry: SpoolEntry = {
    delivery_id: delivery.delivery_id,
    agent: delivery.agent,
    received_at: delivery.received_at,
    payload: typeof delivery.payload === "string"
      ? delivery.payload
      : JSON.stringify(delivery.payload),
  };
  if (delivery.event !== undefined) entry.event = delivery.event;
  if (delivery.host !== undefined) entry.host = delivery.host;
  return entry;
}

/**
 * Starts forwarding to `options.url`, replaying what an earlier run left in the spool.
 *
 * @example
 * ```ts ignore
 * const upstream = startHookUpstream({ url, token, spoolPath, log });
 * upstream.forward(delivery); // after it was stored here
 * await upstream.stop();
 * ```
 */
export function startHookUpstream(options: HookUpstreamOptions): HookUpstream {
  const { log } = options;
  const url = options.url.replace(/\/+$/, "");
  const counts: UpstreamCounts = { forwarded: 0, spooled: 0, refused: 0, down: false };
  const queue: SpoolEntry[] = [];
  let draining: Promise<void> | undefined;
  let replaying: Promise<void> | undefined;
  let stopped = false;
  let lastRefusal = "";

  const send = async (entry: SpoolEntry): Promise<Sent> => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      authorization: `Bearer ${options.token}`,
      "x-vantage-agent": entry.agent,
      "x-vantage-delivery": entry.delivery_id,
      "x-vantage-received-at": String(entry.received_at),
    };
    if (entry.event !== undefined) headers["x-vantage-event"] = entry.event;
    if (entry.host !== undefined) headers["x-vantage-host"] = entry.host;
    try {
      const response = await fetch(`${url}/api/hooks`, {
        method: "POST",
        headers,
        body: entry.payload,
        signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      });
      const body = await response.json().catch(() => undefined) as
        | { error?: { message?: string } }
        | undefined;
      if (response.ok) return { kind: "delivered" };
      const reason = body?.error?.message ?? `HTTP ${response.status}`;
      const refused = response.status >= 400 && response.status < 500 &&
        response.status !== 408 && response.status !== 429;
      return { kind: refused ? "refused" : "unavailable", reason };
    } catch (error) {
      return {
        kind: "unavailable",
        reason: error instanceof Error ? error.message : String(error),
      };
    }
  };

  const noteRefusal = (entry: SpoolEntry, reason: string) => {
    counts.refused++;
    // One line per distinct reason: a revoked token refuses every hook the same way.
    if (reason === lastRefusal) return;
    lastRefusal = reason;
    log.warn("the team server refused a forwarded hook; it is not sent again", {
      url,
      delivery_id: entry.delivery_id.slice(0, 64),
      reason,
    });
  };

  // Appends one after another, so the spool keeps the hooks in the order they were stored.
  let appends: Promise<void> = Promise.resolve();
  const spool = (entry: SpoolEntry): void => {
    appends = appends.then(() => appendToSpool(options.spoolPath, entry)).then(
      () => void counts.spooled++,
      (error) =>
        log.error("could not spool a hook for the team server", {
          delivery_id: entry.delivery_id.slice(0, 64),
          error: String(error),
        }),
    );
  };

  const markDown = (reason: string) => {
    if (!counts.down) {
      log.warn("the team server does not take hooks; they wait in the upstream spool", {
        url,
        reason,
      });
    }
    counts.down = true;
  };

  const drain = async (): Promise<void> => {
    // Stopping: what waits goes to the spool rather than one timeout after another.
    while (queue.length > 0 && !counts.down && !stopped) {
      const entry = queue.shift()!;
      const sent = await send(entry);
      if (sent.kind === "delivered") counts.forwarded++;
      else if (sent.kind === "refused") noteRefusal(entry, sent.reason);
      else {
        markDown(sent.reason);
        spool(entry);
      }
    }
    // Down (or stopping): what waits behind goes to the spool, in order, for the replay.
    while (queue.length > 0) spool(queue.shift()!);
  };

  const kick = (): void => {
    if (draining !== undefined) return;
    draining = drain().finally(() => {
      draining = undefined;
      // A hook queued as the last drain was ending.
      if (queue.length > 0) kick();
    });
  };

  const replay = (): Promise<void> =>
    replaying ??= (async () => {
      try {
        // Appends still in flight land first, so the replay sees them.
        await appends;
        let replayed = 0;
        let reached = false;
        const result = await replaySpool(options.spoolPath, async (entry) => {
          const sent = await send(entry);
          if (sent.kind === "delivered") {
            counts.forwarded++;
            replayed++;
          } else if (sent.kind === "refused") {
            noteRefusal(entry, sent.reason);
          } else {
            markDown(sent.reason);
            throw new SpoolPaused(sent.reason);
          }
          reached = true;
        });
        // Only an answer says it is back: an empty spool says nothing (while it is down, every
        // hook goes to the spool, so the next replay asks).
        if (reached && result.paused !== true && counts.down) {
          counts.down = false;
          log.info("the team server takes hooks again", { url, replayed });
        }
      } catch (error) {
        log.error("replaying the upstream spool failed", { url, error: String(error) });
      } finally {
        replaying = undefined;
      }
    })();

  const timer = setInterval(() => void replay(), options.replayIntervalMs ?? 5_000);
  void replay();

  return {
    forward(delivery) {
      const entry = entryOf(delivery);
      if (stopped || counts.down || queue.length >= (options.maxQueue ?? 1_000)) {
        spool(entry);
        return;
      }
      queue.push(entry);
      kick();
    },
    replay,
    async stop() {
      stopped = true;
      clearInterval(timer);
      // Anything queued after the team server went down is spooled by the drain; a drain
      // waiting on a slow team server ends within its timeout.
      await draining;
      await replaying;
      while (queue.length > 0) spool(queue.shift()!);
      await appends;
    },
    counts: () => ({ ...counts }),
  };
}
