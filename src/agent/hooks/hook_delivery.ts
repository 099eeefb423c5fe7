/**
 * The hook's client side: hand the payload to the running server within a
 * small time budget, or leave it in the spool. Whatever happens, the agent
 * is not held up and nothing valid is lost.
 *
 * The payload goes to the server exactly as the agent wrote it, unparsed:
 * the server parses it once. Only a payload about to be spooled is parsed
 * here, so that nothing but a JSON object waits in the spool.
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
  /** Bearer token: the server's, or on a team server the person's own. */
  token?: string;
  /** The machine the hook runs on, sent as `X-Vantage-Host` (and kept in the spool). */
  host?: string;
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
  /** Not spooled because it is not a JSON object (`reason` says how). */
  invalid?: boolean;
  /** The payload's `hook_event_name`, when it was read for spooling. */
  hookEventName?: string;
}

/** A payload checked before it is spooled: its event name, or why it cannot wait there. */
export type SpoolCheck = { ok: true; hookEventName?: string } | { ok: false; reason: string };

/**
 * Whether a payload may wait in the spool (it is a JSON object), and the
 * event name it carries.
 *
 * @example
 * ```ts
 * checkSpoolable('{"hook_event_name":"SessionStart"}'); // { ok: true, hookEventName: "SessionStart" }
 * checkSpoolable("[1]"); // { ok: false, reason: "payload is not a JSON object" }
 * ```
 */
export function checkSpoolable(payload: string): SpoolCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch (error) {
    return { ok: false, reason: `payload is not JSON (${(error as Error).message})` };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { ok: false, reason: "payload is not a JSON object" };
  }
  const name = (parsed as Record<string, unknown>).hook_event_name;
  return typeof name === "string" ? { ok: true, hookEventName: name } : { ok: true };
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
  if (request.host !== undefined) entry.host = request.host;
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
    if (request.host !== undefined) headers["x-vantage-host"] = request.host;
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
  const check = checkSpoolable(request.payload);
  if (!check.ok) return { delivered: false, spooled: false, invalid: true, reason: check.reason };
  await appendToSpool(request.spoolPath, entry);
  const outcome: DeliveryOutcome = { delivered: false, spooled: true, reason, unreachable };
  if (check.hookEventName !== undefined) outcome.hookEventName = check.hookEventName;
  return outcome;
}
