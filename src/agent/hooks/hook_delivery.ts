/**
 * The hook's client side: hand the payload to the running server within a
 * small time budget, or leave it in the spool. Whatever happens, the agent
 * is not held up and nothing valid is lost.
 *
 * @module
 */
import { appendToSpool, type SpoolEntry } from "./spool.ts";

/** What the hook should do, and where. */
export interface DeliveryRequest {
  /** Canonical agent name. */
  agent: string;
  /** Event name the hook was registered under, when given. */
  event?: string;
  /** The payload text from stdin. */
  payload: string;
  /** The server's base URL. */
  serverUrl: string;
  /** Bearer token, when the server requires one. */
  token?: string;
  /** Time budget for the server's answer, ms. */
  timeoutMs: number;
  /** The spool file. */
  spoolPath: string;
}

/** What happened to a delivery. */
export interface DeliveryOutcome {
  /** The server stored it (or already had it). */
  delivered: boolean;
  /** It was written to the spool instead. */
  spooled: boolean;
  /** The agent-facing JSON the server asked the hook to print, if any. */
  output?: unknown;
  /** Why it was not delivered, when it was not. */
  reason?: string;
  /** Nothing listens at the server's address (as opposed to a slow or failing server). */
  unreachable?: boolean;
}

/** Sends the payload to the server, falling back to the spool. */
export async function deliverHook(request: DeliveryRequest): Promise<DeliveryOutcome> {
  const entry: SpoolEntry = {
    delivery_id: crypto.randomUUID(),
    agent: request.agent,
    received_at: Date.now(),
    payload: request.payload,
  };
  if (request.event !== undefined) entry.event = request.event;
  let reason: string;
  let unreachable = false;
  try {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-vantage-agent": request.agent,
      "x-vantage-delivery": entry.delivery_id,
      "x-vantage-received-at": String(entry.received_at),
    };
    if (request.event !== undefined) headers["x-vantage-event"] = request.event;
    if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
    const response = await fetch(`${request.serverUrl}/api/hooks`, {
      method: "POST",
      headers,
      body: request.payload,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const body = await response.json().catch(() => undefined) as
      | { stored?: boolean; duplicate?: boolean; output?: unknown; error?: { message?: string } }
      | undefined;
    if (response.ok) {
      const outcome: DeliveryOutcome = { delivered: true, spooled: false };
      if (body?.output !== undefined) outcome.output = body.output;
      return outcome;
    }
    if (
      response.status >= 400 && response.status < 500 && response.status !== 408 &&
      response.status !== 429
    ) {
      // The server looked at it and refused it: spooling would only refuse it again later.
      return {
        delivered: false,
        spooled: false,
        reason: body?.error?.message ?? `server answered ${response.status}`,
      };
    }
    reason = `server answered ${response.status}`;
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    unreachable = !timedOut;
    reason = timedOut
      ? `server did not answer within ${request.timeoutMs} ms`
      : `server not reachable (${error instanceof Error ? error.message : error})`;
  }
  await appendToSpool(request.spoolPath, entry);
  return { delivered: false, spooled: true, reason, unreachable };
}
