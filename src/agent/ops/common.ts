/**
 * What the `agent` operations share: agent-name aliases and the caller-aware
 * default, clamping, session resolution, and time formatting.
 *
 * @module
 */
import { z } from "zod";
import { OperationFailure } from "../../core/errors.ts";
import { AGENT_NAMES, type AgentName, parseAgentName } from "../../model/agent_records.ts";
import type { SessionRow } from "../../store/agent/sessions.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { Store } from "../../store/store.ts";
import type { OperationContext } from "../../ops/operation.ts";
import { CLOCK, CWD, STORE } from "../../ops/service_keys.ts";

/** Everything an agent operation reads from its context. */
export interface AgentContext {
  /** The store, on whichever backend serves: every answer is awaited. */
  store: Store<StoreMode>;
  /** Now, ms. */
  now: number;
  /** The caller's folder. */
  cwd: string;
  /** The calling agent, when known. */
  caller?: AgentName;
}

/** Reads the store, clock, folder and caller from an operation context. */
export function agentContext(context: OperationContext, cwdOverride?: string): AgentContext {
  const services = context.services;
  const callerCwd = typeof context.caller.cwd === "string" ? context.caller.cwd : undefined;
  const result: AgentContext = {
    store: services.get(STORE),
    now: services.has(CLOCK) ? services.get(CLOCK)() : Date.now(),
    cwd: cwdOverride ?? callerCwd ?? (services.has(CWD) ? services.get(CWD) : "/"),
  };
  const agent = typeof context.caller.agent === "string"
    ? parseAgentName(context.caller.agent)
    : undefined;
  if (agent !== undefined) result.caller = agent;
  return result;
}

/** Clamps `value` into `[min, max]`, using `fallback` when absent. */
export function clamp(
  value: number | undefined,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

/**
 * The `agent_source` argument. The schema lists the canonical values a model
 * should send; the operations also take aliases in any case (`cc`, `Claude`,
 * `copilot`, `me`, …), so validation stays a plain string and an unknown name
 * is refused by {@linkcode resolveAgentFilter} with the list of good ones.
 */
export const agentSourceSchema: z.ZodOptional<z.ZodString> = z.string()
  .meta({ enum: [...AGENT_NAMES, "self", ""] })
  .optional()
  .describe('"" = all');

/**
 * The `person` filter of the session listings: one person's sessions on a team server. Its
 * name says what it takes: no description, as every character of the `full` surface's tool
 * list is in every agent's context (see tests/mcp/full_budget_test.ts).
 */
export const personFilterSchema: z.ZodOptional<z.ZodString> = z.string().optional();

/** How an `agent_source` argument resolved. */
export interface AgentFilter {
  /** The normalized argument, echoed back. */
  label: string;
  /** The agents to include, or undefined for all. */
  agents?: AgentName[];
  /** The caller asked for its own sessions. */
  self: boolean;
}

/**
 * Resolves `agent_source`. With `excludeCaller`, an empty value means every
 * agent except the caller (the peer fan-out); otherwise every agent.
 */
export function resolveAgentFilter(
  value: string | undefined,
  caller: AgentName | undefined,
  excludeCaller: boolean,
): AgentFilter {
  const text = (value ?? "").trim().toLowerCase();
  if (text === "") {
    if (excludeCaller && caller !== undefined) {
      return { label: "", agents: AGENT_NAMES.filter((a) => a !== caller), self: false };
    }
    return { label: "", self: false };
  }
  if (text === "self" || text === "me" || text === "mine") {
    if (caller === undefined) {
      throw new OperationFailure(
        "agent_source 'self' needs to know who is calling: this MCP server was started without VANTAGE_MCP_CALLER",
      );
    }
    return { label: "self", agents: [caller], self: true };
  }
  const agent = parseAgentName(text);
  if (agent === undefined) {
    throw new OperationFailure(
      `unknown agent_source '${value}'; use ${
        AGENT_NAMES.join(", ")
      }, self, or an alias (cc, claude, copilot, me)`,
      { agent_source: value },
    );
  }
  return { label: agent, agents: [agent], self: agent === caller };
}

/** How a `project` argument resolved. */
export interface ProjectFilter {
  /** The project shown in responses. */
  project: string;
  /** Absolute path prefix to match. */
  prefix?: string;
  /** Bare name to match against the last path segment. */
  name?: string;
  /** Every project. */
  all: boolean;
}

/** Resolves `project`: absolute POSIX or Windows path = prefix, `*` = all, bare name = basename. */
export function resolveProject(
  value: string | undefined,
  cwd: string,
  allowAll: boolean,
): ProjectFilter {
  const text = (value ?? "").trim();
  if (text === "") return { project: cwd, prefix: cwd, all: false };
  if (text === "*" && allowAll) return { project: "*", all: true };
  if (text.startsWith("/") || /^[A-Za-z]:[\\/]/.test(text) || text.startsWith("\\\\")) {
    return { project: text, prefix: text, all: false };
  }
  return { project: text, name: text, all: false };
}

/** Resolves the session an operation is about: the given id, else the latest in the caller's folder. */
export async function resolveSession(
  ctx: AgentContext,
  sessionId: string | undefined,
): Promise<SessionRow> {
  if (sessionId !== undefined && sessionId !== "") {
    const session = await ctx.store.agent.getSession(sessionId);
    if (session === undefined) {
      throw new OperationFailure(
        `no session '${sessionId}'; find ids with get_peer_sessions or search_sessions`,
        {
          session_id: sessionId,
        },
      );
    }
    return session;
  }
  const latest = await ctx.store.agent.latestSessionFor(ctx.cwd, ctx.caller);
  if (latest === undefined) {
    throw new OperationFailure(
      `no session recorded for ${ctx.cwd} yet; pass session_id, or check that Vantage's hooks are installed`,
      { cwd: ctx.cwd },
    );
  }
  return latest;
}

/** An ISO timestamp. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** An ISO timestamp, or null for a time that is not known (stored as 0, never shown as 1970). */
export function isoOrNull(ms: number): string | null {
  return ms > 0 ? iso(ms) : null;
}

/** Minutes from `start` to `end` (one decimal), or null when the start is not known. */
export function durationMin(start: number, end: number): number | null {
  if (start <= 0 || end <= 0) return null;
  return Math.round(Math.max(0, end - start) / 6000) / 10;
}

/** "3m ago", "2h ago", "5d ago"; "unknown" for a time that is not known (0). */
export function ago(ms: number, now: number): string {
  if (ms <= 0) return "unknown";
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.round(hours / 24)}d ago`;
}

/** Cuts text to `max` characters (not bytes), saying whether it did. */
export function cutText(text: string, max: number): { text: string; truncated: boolean } {
  const chars = [...text];
  if (chars.length <= max) return { text, truncated: false };
  return { text: chars.slice(0, max).join("") + "…", truncated: true };
}

/** Read-only operation hints, under the short name this cassette's operations use. */
export { READ_ONLY_ANNOTATIONS as READ_ONLY } from "../../ops/operation.ts";
