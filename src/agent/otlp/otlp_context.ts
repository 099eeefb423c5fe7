/**
 * What every mapped record shares: which agent sent it, which session it
 * belongs to, who ran it where, and the batch it is gathered into.
 *
 * Agents are told apart by their resource's `service.name`, their
 * instrumentation scope and their record names: Claude Code
 * (`claude-code`, `com.anthropic.claude_code*`, `claude_code.*`), Codex
 * (`codex*`), OpenClaw (`openclaw*`), Copilot CLI (`*copilot*`). Anything
 * else that carries `gen_ai.*` attributes is a GenAI application, filed as
 * agent `gen_ai`.
 *
 * @module
 */
import type { JsonValue } from "../../model/agent_records.ts";
import { redactString, redactValue } from "../redact/redact.ts";
import { capStrings } from "../values.ts";
import type {
  TelemetryBatch,
  TelemetryOrigin,
  TelemetrySessionInput,
} from "../../model/telemetry_records.ts";
import type { Attributes } from "./otlp_values.ts";

/** The agent name of GenAI applications that are none of the four agents. */
export const GEN_AI_AGENT = "gen_ai";

/** The resource and scope a record came in. */
export interface RecordSource {
  /** Resource attributes. */
  resource: Attributes;
  /** `service.name`. */
  service?: string;
  /** Instrumentation scope name. */
  scope: string;
  /** The resource's own origin, read once for all its records ({@linkcode originOf}). */
  resourceOrigin?: TelemetryOrigin;
  /** The session the resource names, read once (null: none). */
  resourceSession?: string | null;
  /** The agent the service and scope alone name, found once (null: none). */
  sourceAgent?: string | null;
}

/** The agent that sent a record named `name` with `attrs`, if any. */
export function agentOf(source: RecordSource, name: string, attrs: Attributes): string | undefined {
  if (source.sourceAgent === undefined) source.sourceAgent = agentOfSource(source) ?? null;
  const bySource = source.sourceAgent;
  // The order of the checks: each agent by its service, scope or record name, in turn.
  if (bySource === "claude_code" || name.startsWith("claude_code.")) return "claude_code";
  if (bySource === "codex" || name.startsWith("codex.")) return "codex";
  if (bySource === "openclaw" || name.startsWith("openclaw.")) return "openclaw";
  if (bySource === "copilot_cli") return "copilot_cli";
  for (const key in attrs) if (key.startsWith("gen_ai.")) return GEN_AI_AGENT;
  return undefined;
}

/** The agent a resource's service name or a scope's name says, whatever the record. */
function agentOfSource(source: RecordSource): string | undefined {
  const service = (source.service ?? "").toLowerCase();
  const scope = source.scope.toLowerCase();
  if (service === "claude-code" || scope.startsWith("com.anthropic.claude_code")) {
    return "claude_code";
  }
  if (service.startsWith("codex") || scope.startsWith("codex")) return "codex";
  if (service.includes("openclaw") || scope.includes("openclaw")) return "openclaw";
  if (service.includes("copilot") || scope.includes("copilot")) return "copilot_cli";
  return undefined;
}

/** Attribute keys that name a session, most specific first. */
const SESSION_KEYS = [
  "session.id",
  "conversation.id",
  "gen_ai.conversation.id",
  "openclaw.sessionId",
  "openclaw.session_id",
  "session_id",
];

/**
 * The session a record belongs to: its own attributes first, then its resource's; a GenAI
 * span without any is filed under its trace (`trace:<id>`), one conversation turn.
 */
export function sessionOf(
  attrs: Attributes,
  source: RecordSource,
  agent: string,
  traceId: string,
): string | undefined {
  if (source.resourceSession === undefined) {
    source.resourceSession = firstString(source.resource, SESSION_KEYS) ?? null;
  }
  const named = firstString(attrs, SESSION_KEYS) ?? source.resourceSession ?? undefined;
  if (named !== undefined) return named;
  if (agent === GEN_AI_AGENT && traceId !== "") return `trace:${traceId}`;
  return undefined;
}

/** The attribute keys each origin field is read from, most specific first. */
const ORIGIN_KEYS: ReadonlyArray<readonly [keyof TelemetryOrigin, readonly string[]]> = [
  ["user_id", ["user.id", "user.account_uuid", "user.account_id", "enduser.id"]],
  ["user_email", ["user.email"]],
  ["organization_id", ["organization.id"]],
  ["host_name", ["host.name"]],
  ["host_arch", ["host.arch"]],
  ["os_type", ["os.type"]],
  ["terminal_type", ["terminal.type"]],
  ["service", ["service.name"]],
  ["service_version", ["service.version", "app.version"]],
];

/** The first of `keys` that `attrs` holds as a string, as `attrString` reads it. */
function firstString(attrs: Attributes, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = attrs[key];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
  }
  return undefined;
}

/** Who ran a record where: its attributes over its resource's. */
export function originOf(attrs: Attributes, source: RecordSource): TelemetryOrigin {
  let resource = source.resourceOrigin;
  if (resource === undefined) {
    resource = {};
    for (const [field, keys] of ORIGIN_KEYS) {
      const value = firstString(source.resource, keys);
      if (value !== undefined) resource[field] = value;
    }
    source.resourceOrigin = resource;
  }
  let origin: TelemetryOrigin | undefined;
  for (const [field, keys] of ORIGIN_KEYS) {
    const value = firstString(attrs, keys);
    if (value === undefined) continue;
    origin ??= { ...resource };
    origin[field] = value;
  }
  // A record that names no origin of its own shares its resource's (never changed in place).
  return origin ?? resource;
}

/** Notes a session a record named, widening its times and filling its origin. */
export function noteSession(
  batch: TelemetryBatch,
  sessionId: string,
  agent: string,
  ts: number,
  origin: TelemetryOrigin,
): void {
  const known = batch.sessions.get(sessionId);
  if (known === undefined) {
    const session: TelemetrySessionInput = {
      ...origin,
      session_id: sessionId,
      agent,
      first_seen: ts,
      last_seen: ts,
    };
    batch.sessions.set(sessionId, session);
    return;
  }
  known.first_seen = Math.min(known.first_seen, ts);
  known.last_seen = Math.max(known.last_seen, ts);
  for (const key in origin) {
    known[key as keyof TelemetryOrigin] ??= origin[key as keyof TelemetryOrigin];
  }
}

/** Longest attribute string kept; a longer one keeps its start and end. */
const STRING_MAX = 4_000;
/** Longest attribute text kept for one record. */
const ATTRIBUTES_MAX = 64 * 1024;

/**
 * Attributes as the JSON text stored with a raw record: secrets redacted, long strings cut,
 * and a record whose attributes are still too large keeps only their keys.
 */
export function storedAttributes(attrs: Attributes): string {
  const capped = capStrings(attrs as JsonValue, STRING_MAX, 400);
  let text = JSON.stringify(capped);
  // One pass over the whole text (its prefilter skips the common record with no secret at all);
  // should a replacement ever leave the JSON unreadable, each value is redacted on its own.
  const redacted = redactString(text);
  if (redacted !== text) {
    try {
      JSON.parse(redacted);
      text = redacted;
    } catch {
      text = JSON.stringify(redactValue(capped));
    }
  }
  if (text.length <= ATTRIBUTES_MAX) return text;
  return JSON.stringify({ "vantage.truncated": true, keys: Object.keys(attrs).slice(0, 200) });
}

/** A short text stored in a column (errors, tool names): redacted and cut. */
export function storedText(text: string | undefined, max = 2_000): string | undefined {
  if (text === undefined) return undefined;
  const value = redactValue(text.length > max ? text.slice(0, max) : text);
  return typeof value === "string" ? value : undefined;
}
