/**
 * The server side of a hook: check the delivery's envelope and field
 * limits, normalize the payload and store the event once per delivery id.
 * Live deliveries (HTTP) and spooled ones (replay) both come through here,
 * so both are held to the same rules.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { insertHookEvent } from "../store/agent_writes.ts";
import { excerpt } from "../core/limits.ts";
import { envelopeProblem } from "./hook_limits.ts";
import { normalizeHookPayload } from "./hook_normalizer.ts";
import { type AgentName, type HookEvent, parseAgentName } from "./types.ts";

/** The outcome of taking one hook delivery. */
export type IntakeResult =
  | { stored: true; event: HookEvent }
  | { stored: false; duplicate: true; event: HookEvent }
  | { stored: false; duplicate: false; reason: string };

/** One hook delivery as it arrives (over HTTP or from the spool). */
export interface HookDelivery {
  /** Agent name as given (any accepted spelling). */
  agent: string;
  /** Unique per hook invocation. */
  delivery_id: string;
  /** Event name the hook was registered under, when given. */
  event?: string;
  /** When the hook received it, ms. */
  received_at: number;
  /** The payload text or parsed value. */
  payload: string | unknown;
}

/**
 * Normalizes and stores one delivery; never throws for bad input (an
 * unknown agent, an implausible receive time, an identifier over its limit,
 * a payload that is not a hook), answering the reason instead.
 */
export function takeHookDelivery(db: DatabaseSync, delivery: HookDelivery): IntakeResult {
  const problem = envelopeProblem(delivery);
  if (problem !== undefined) return { stored: false, duplicate: false, reason: problem };
  const agent: AgentName | undefined = parseAgentName(delivery.agent);
  if (agent === undefined) {
    return { stored: false, duplicate: false, reason: `unknown agent ${excerpt(delivery.agent)}` };
  }
  let payload = delivery.payload;
  if (typeof payload === "string") {
    try {
      payload = JSON.parse(payload);
    } catch (error) {
      return {
        stored: false,
        duplicate: false,
        reason: `payload is not JSON: ${error instanceof Error ? error.message : error}`,
      };
    }
  }
  const normalized = normalizeHookPayload(agent, payload, delivery.received_at, {
    eventName: delivery.event,
  });
  if (!normalized.ok) return { stored: false, duplicate: false, reason: normalized.reason };
  const stored = insertHookEvent(db, normalized.event, delivery.delivery_id, Date.now());
  return stored
    ? { stored: true, event: normalized.event }
    : { stored: false, duplicate: true, event: normalized.event };
}
