/**
 * The server side of a hook: check the delivery's envelope and field
 * limits, normalize the payload and store the event once per delivery id.
 * Live deliveries (HTTP) and spooled ones (replay) both come through here,
 * so both are held to the same rules.
 *
 * A tool result whose payload carries no exit status (Codex sends a
 * command's bare output) takes the outcome a transcript recorded for the
 * same call, when one has been recorded; otherwise it is stored unknown and
 * completed when the transcript records it (`src/store/agent/tool_outcomes.ts`).
 *
 * @module
 */
import { type AgentStore, sqliteAgentStore } from "../../store/agent/agent_store.ts";
import type { DatabaseSync } from "../../store/database.ts";
import type { StoreMode } from "../../store/repository.ts";
import { andThen, type Eventually } from "../../core/eventually.ts";
import { excerpt } from "../../core/limits.ts";
import { envelopeProblem } from "./hook_limits.ts";
import { normalizeHookPayload } from "./hook_normalizer.ts";
import { type AgentName, type HookEvent, parseAgentName } from "../../model/agent_records.ts";

/** The outcome of taking one hook delivery. */
export type IntakeResult =
  | { stored: true; event: HookEvent }
  | { stored: false; duplicate: true; event: HookEvent }
  | { stored: false; duplicate: false; reason: string; held?: true };

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
  /** Team mode: the person whose token sent it (absent: the server's owner, a local hook). */
  person?: string;
  /** The machine the hook ran on, as it said. */
  host?: string;
}

/** A delivery checked and normalized, not stored yet. */
export type PreparedDelivery =
  | { ok: true; delivery_id: string; event: HookEvent }
  | { ok: false; reason: string };

/**
 * Checks and normalizes one delivery without touching the store; never throws for bad input
 * (an unknown agent, an implausible receive time, an identifier over its limit, a payload that
 * is not a hook), answering the reason instead.
 */
export function prepareHookDelivery(delivery: HookDelivery): PreparedDelivery {
  const problem = envelopeProblem(delivery);
  if (problem !== undefined) return { ok: false, reason: problem };
  const agent: AgentName | undefined = parseAgentName(delivery.agent);
  if (agent === undefined) return { ok: false, reason: `unknown agent ${excerpt(delivery.agent)}` };
  let payload = delivery.payload;
  if (typeof payload === "string") {
    try {
      payload = JSON.parse(payload);
    } catch (error) {
      return {
        ok: false,
        reason: `payload is not JSON: ${error instanceof Error ? error.message : error}`,
      };
    }
  }
  const normalized = normalizeHookPayload(agent, payload, delivery.received_at, {
    eventName: delivery.event,
  });
  if (!normalized.ok) return { ok: false, reason: normalized.reason };
  const event = normalized.event;
  if (delivery.person !== undefined) event.person = delivery.person;
  if (delivery.host !== undefined) event.host = delivery.host;
  return { ok: true, delivery_id: delivery.delivery_id, event };
}

/**
 * Whether an event is a tool result whose outcome its payload did not tell, but a transcript
 * may: it names its call and the transcript it is written to.
 */
export function awaitsToolOutcome(event: HookEvent): boolean {
  return event.event_type === "PostToolUse" && event.success === undefined &&
    event.tool_use_id !== undefined && event.transcript_path !== undefined;
}

/**
 * Stores a prepared event once per delivery id, first completing an unknown tool outcome from
 * what a transcript recorded for the same call. On SQLite it answers at once (so it can run
 * inside the write that also runs the hook's rules); on a server backend, later.
 */
export function storePreparedEventIn(
  agents: AgentStore<StoreMode>,
  deliveryId: string,
  event: HookEvent,
): Eventually<IntakeResult> {
  const outcome = event.event_type === "PostToolUse" && event.success === undefined &&
      event.tool_use_id !== undefined
    ? agents.findToolOutcome(event.session_id, event.tool_use_id)
    : undefined;
  return andThen(outcome, (found) => {
    if (found !== undefined) {
      event.success = found.success;
      if (!found.success && found.error !== undefined) event.error = found.error;
    }
    return andThen(
      agents.insertHookEvent(event, deliveryId, Date.now()),
      (stored): IntakeResult =>
        stored ? { stored: true, event } : { stored: false, duplicate: true, event },
    );
  });
}

/** {@linkcode storePreparedEventIn} on a SQLite connection. */
export function storePreparedEvent(
  db: DatabaseSync,
  deliveryId: string,
  event: HookEvent,
): IntakeResult {
  return storePreparedEventIn(sqliteAgentStore(db), deliveryId, event) as IntakeResult;
}

/**
 * Normalizes and stores one delivery; never throws for bad input, answering the reason
 * instead (see {@link prepareHookDelivery}).
 */
export function takeHookDelivery(db: DatabaseSync, delivery: HookDelivery): IntakeResult {
  const prepared = prepareHookDelivery(delivery);
  if (!prepared.ok) return { stored: false, duplicate: false, reason: prepared.reason };
  return storePreparedEvent(db, prepared.delivery_id, prepared.event);
}
