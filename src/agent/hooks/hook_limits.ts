/**
 * How big the parts of a hook delivery may be. Identifiers, names and paths
 * have a hard maximum: a delivery with one over it is refused with a reason
 * naming the field and the limit, because cutting it would silently turn it
 * into a different session, tool call or file. Free text (prompt, command,
 * message, strings inside the stored payload) is capped instead, with a
 * marker saying how much was cut, because a shortened prompt still says
 * what it said.
 *
 * Both the HTTP route and the spool replay go through these checks, so a
 * spooled hook is held to the same rules as a live one.
 *
 * @module
 */
import {
  EPOCH_MS_RANGE,
  excerpt,
  ID_MAX_CHARS,
  NAME_MAX_CHARS,
  PATH_MAX_CHARS,
  plausibleEpochMs,
} from "../../core/limits.ts";
import type { HookEvent } from "../../model/agent_records.ts";

/** Most characters of each identifier, name or path a hook event may carry. */
export const HOOK_FIELD_LIMITS: Readonly<Record<string, number>> = {
  session_id: ID_MAX_CHARS,
  tool_use_id: ID_MAX_CHARS,
  tool_name: ID_MAX_CHARS,
  model: ID_MAX_CHARS,
  event_type: NAME_MAX_CHARS,
  agent_id: NAME_MAX_CHARS,
  agent_type: NAME_MAX_CHARS,
  cwd: PATH_MAX_CHARS,
  project: PATH_MAX_CHARS,
  transcript_path: PATH_MAX_CHARS,
  file_path: PATH_MAX_CHARS,
  file_paths: PATH_MAX_CHARS,
};

/** Caps on the free text of a hook event, characters; longer text is cut with a marker. */
export const HOOK_TEXT_CAPS = {
  /** The user's prompt (UserPromptSubmit). */
  prompt: 32_768,
  /** A shell command. */
  command: 8_000,
  /** A notification or last assistant message. */
  message: 2_000,
  /** SessionStart source, SessionEnd reason, error context. */
  source: 256,
  /**
   * Any one string inside the stored payload (tool output, file contents).
   * The cut keeps the head and the last {@linkcode RAW_STRING_TAIL}
   * characters, where a failing command's error usually is.
   */
  raw_string: 262_144,
} as const;

/** How much of the end of a cut payload string is kept (the tail the perception rules read). */
export const RAW_STRING_TAIL = 65_536;

/** Most characters of a delivery id (a UUID is 36). */
export const DELIVERY_ID_MAX_CHARS: number = ID_MAX_CHARS;

function tooLong(field: string, length: number, limit: number): string {
  return `${field} is ${length} characters long; the limit is ${limit} (an identifier over its limit is refused, not cut)`;
}

/**
 * The reason a normalized hook event must be refused because an
 * identifier, name or path is over its limit, or undefined when all fit.
 *
 * @example
 * ```ts
 * import { oversizedHookField } from "./hook_limits.ts";
 * oversizedHookField({
 *   agent: "codex", session_id: "s".repeat(300), event_type: "Stop", ts: 0, raw: {},
 * }); // "session_id is 300 characters long; the limit is 256 (…)"
 * ```
 */
export function oversizedHookField(event: HookEvent): string | undefined {
  const fields = event as unknown as Record<string, unknown>;
  for (const [field, limit] of Object.entries(HOOK_FIELD_LIMITS)) {
    const value = fields[field];
    if (typeof value === "string" && value.length > limit) {
      return tooLong(field, value.length, limit);
    }
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        if (typeof item === "string" && item.length > limit) {
          return tooLong(`${field}[${index}]`, item.length, limit);
        }
      }
    }
  }
  return undefined;
}

/** The parts of a delivery checked before its payload is read. */
export interface DeliveryEnvelope {
  /** Agent name as given. */
  agent: string;
  /** Unique per hook invocation. */
  delivery_id: string;
  /** Event name the hook was registered under, when given. */
  event?: string;
  /** When the hook received it, ms. */
  received_at: number;
  /** The machine the hook ran on, when it said. */
  host?: string;
}

/**
 * The reason a delivery's envelope (agent, delivery id, event name,
 * receive time) is unusable, or undefined when it is fine. The agent is
 * only length-checked here; whether it is a known agent is the intake's
 * question.
 *
 * @example
 * ```ts
 * import { envelopeProblem } from "./hook_limits.ts";
 * envelopeProblem({ agent: "codex", delivery_id: "d1", received_at: 1e300 });
 * // "received_at 1e+300 is not integer epoch milliseconds from 946684800000 (2000-01-01) to one day from now"
 * ```
 */
export function envelopeProblem(
  envelope: DeliveryEnvelope,
  now: number = Date.now(),
): string | undefined {
  if (envelope.agent.length > NAME_MAX_CHARS) {
    return `agent ${excerpt(envelope.agent)} is over the limit of ${NAME_MAX_CHARS} characters`;
  }
  if (envelope.delivery_id === "") return "delivery_id is empty";
  if (envelope.delivery_id.length > DELIVERY_ID_MAX_CHARS) {
    return tooLong("delivery_id", envelope.delivery_id.length, DELIVERY_ID_MAX_CHARS);
  }
  if (envelope.event !== undefined && envelope.event.length > NAME_MAX_CHARS) {
    return tooLong("event", envelope.event.length, NAME_MAX_CHARS);
  }
  if (!plausibleEpochMs(envelope.received_at, now)) {
    return `received_at ${envelope.received_at} is not ${EPOCH_MS_RANGE}`;
  }
  if (envelope.host !== undefined && envelope.host.length > NAME_MAX_CHARS) {
    return tooLong("host", envelope.host.length, NAME_MAX_CHARS);
  }
  return undefined;
}
