/**
 * The HTTP API as one pure function from Request to Response, testable
 * without a port. Routes dispatch to the ingest layer (hooks), the
 * operation catalog (ops, query, MCP), the event bus (live updates) and the
 * embedded dashboard; none holds logic of its own.
 *
 * Every request passes the Host/Origin guard; `/api/*` and `/mcp` also need
 * the bearer token when the server listens beyond loopback.
 *
 * Bad input is the client's fault and is answered 4xx naming the header,
 * parameter or field that was wrong and what is accepted; 500 is left for
 * Vantage's own faults, and those are logged.
 *
 * @module
 */
import {
  EPOCH_MS_RANGE,
  excerpt,
  hasControlCharacter,
  NAME_MAX_CHARS,
  plausibleEpochMs,
} from "../core/limits.ts";
import type { Logger } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { DELIVERY_ID_MAX_CHARS } from "../agent/hooks/hook_limits.ts";
import type { HookDelivery, IntakeResult } from "../agent/hooks/hook_intake.ts";
import { AGENT_NAMES, parseAgentName } from "../model/agent_records.ts";
import type { Catalog } from "../ops/catalog.ts";
import { DEFAULT_SCOPES } from "../ops/scopes.ts";
import type { Services } from "../ops/services.ts";
import { serveDashboard } from "./dashboard_routes.ts";
import type { EventBus, LiveEventType } from "../server/event_bus.ts";
import { type GuardOptions, guardRequest } from "./guard.ts";
import { callerFromRequest } from "./http_caller.ts";
import { handleMcp, surfaceOf } from "./mcp_http.ts";
import { listOperations, type OpsContext, runOperation, runQuery } from "./ops_routes.ts";
import { handleOtlp, type OtlpDependencies, otlpSignalOf } from "./otlp_routes.ts";
import { boundedParam, readParam } from "./params.ts";
import {
  errorResponse,
  HttpError,
  json,
  readBodyText,
  readJsonObject,
  requireJson,
  requireMethod,
} from "./responses.ts";
import { eventStream } from "./sse.ts";

/** What the handler delegates to. */
export interface HandlerDependencies {
  /** Host/Origin/token rules. */
  guard: GuardOptions;
  /** Stores one hook delivery and returns what to tell the agent. */
  takeHook(
    delivery: HookDelivery,
  ): (IntakeResult & { output?: unknown }) | Promise<IntakeResult & { output?: unknown }>;
  /**
   * Extra health facts (counts, uptime); a `status` among them (`degraded`,
   * with `reasons`, while the store is known to be damaged) replaces `ok`.
   */
  health?(): Record<string, unknown>;
  /** Largest hook body accepted, bytes (default 16 MiB). */
  hookBodyLimit?: number;
  /** The catalog `/api/ops`, `/api/query` and `/mcp` serve (those routes answer 503 without it). */
  catalog?: Catalog;
  /** Services the operations use. */
  services?: Services;
  /** Scopes granted to HTTP callers (default: the local defaults, everything but `net`). */
  scopes?: readonly string[];
  /** Live events for `/api/events` (503 without it). */
  events?: EventBus;
  /** Folder of MCP prompt templates (default: none). */
  promptsDir?: string;
  /** Largest body of `/api/ops`, `/api/query` and `/mcp` requests, bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Serve the dashboard pages (default true). */
  dashboard?: boolean;
  /** Where internal faults (the 500s) are logged (default: nowhere). */
  log?: Logger;
  /** OpenTelemetry intake at `/v1/traces`, `/v1/metrics`, `/v1/logs` (503 without it). */
  otlp?: OtlpDependencies;
}

/** A request handler. */
export type Handler = (request: Request) => Promise<Response>;

const LIVE_TYPES: ReadonlySet<string> = new Set<LiveEventType>([
  "hook",
  "messages",
  "session",
  "anomaly",
  "build",
]);

/**
 * Builds the handler.
 *
 * @example
 * ```ts ignore
 * const handler = createHandler(deps);
 * const response = await handler(new Request("http://127.0.0.1:14300/api/health"));
 * ```
 */
export function createHandler(deps: HandlerDependencies): Handler {
  const granted = deps.scopes ?? DEFAULT_SCOPES;
  const bodyLimit = deps.bodyLimit ?? 1024 * 1024;
  const ops = (): OpsContext => {
    if (deps.catalog === undefined || deps.services === undefined) {
      throw new HttpError("unavailable", "this server was started without the operation catalog");
    }
    return { catalog: deps.catalog, services: deps.services };
  };
  return async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      const path = url.pathname;
      const otlpSignal = otlpSignalOf(path);
      if (otlpSignal !== undefined) {
        // OTLP answers every failure in its own encoding; the guard is /api/*'s.
        const guard = () => guardRequest(request, deps.guard, true);
        return await handleOtlp(request, otlpSignal, guard, deps.otlp, deps.log);
      }
      const isApi = path.startsWith("/api/") || path === "/api" || path === "/mcp";
      guardRequest(request, deps.guard, isApi);
      if (path === "/api/health") {
        // Still 200 when degraded: the server is alive (the lock's liveness probe relies on it).
        return json({ status: "ok", version: VERSION, ...(deps.health?.() ?? {}) });
      }
      if (path === "/api/hooks") {
        requireMethod(request, path, "POST");
        return await takeHook(request, url, deps);
      }
      if (path === "/api/ops") {
        requireMethod(request, path, "GET");
        return listOperations(ops(), callerFromRequest(request, url, granted), request, url);
      }
      if (path.startsWith("/api/ops/")) {
        requireMethod(request, path, "POST");
        const context = ops();
        const caller = callerFromRequest(request, url, granted);
        const operationId = operationIdOf(path);
        const args = await readJsonObject(request, bodyLimit);
        return await runOperation(context, caller, operationId, args, request.signal);
      }
      if (path === "/api/query") {
        requireMethod(request, path, "POST");
        const context = ops();
        const caller = callerFromRequest(request, url, granted);
        return await runQuery(
          context,
          caller,
          await readJsonObject(request, bodyLimit),
          request.signal,
        );
      }
      if (path === "/api/events") {
        requireMethod(request, path, "GET");
        if (deps.events === undefined) {
          throw new HttpError("unavailable", "this server publishes no live events");
        }
        return eventStream(deps.events, request.signal, {
          types: liveTypes(url.searchParams.get("types")),
          afterId: lastEventId(request, url),
        });
      }
      if (path === "/mcp") {
        const context = ops();
        return await handleMcp(
          { ...context, promptsDir: deps.promptsDir ?? "", version: VERSION, bodyLimit },
          request,
          callerFromRequest(request, url, granted),
          surfaceOf(url),
        );
      }
      if (!isApi && deps.dashboard !== false) {
        const page = serveDashboard(request, path);
        if (page !== undefined) return page;
      }
      throw new HttpError("not_found", `no route for ${request.method} ${path}`);
    } catch (error) {
      if (error instanceof HttpError) return errorResponse(error);
      // Everything a client can get wrong was answered above: this is a fault of ours.
      deps.log?.error("request failed", {
        method: request.method,
        path: excerpt(safePath(request.url), 200),
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      return errorResponse(
        new HttpError("internal_error", error instanceof Error ? error.message : String(error)),
      );
    }
  };
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** The operation id of `/api/ops/<id>`, percent-decoded; 400 when it cannot be one. */
function operationIdOf(path: string): string {
  const encoded = path.slice("/api/ops/".length);
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    throw new HttpError(
      "invalid_arguments",
      `the path ${
        excerpt(path)
      } holds a malformed percent-escape; operation ids are names such as agent.list_sessions`,
    );
  }
  if (id.length > NAME_MAX_CHARS || hasControlCharacter(id)) {
    throw new HttpError(
      "invalid_arguments",
      `the path ${
        excerpt(path)
      } does not name an operation: ids are at most ${NAME_MAX_CHARS} characters without control characters`,
    );
  }
  return id;
}

function liveTypes(text: string | null): ReadonlySet<LiveEventType> | undefined {
  if (text === null || text.trim() === "") return undefined;
  const types = text.split(",").map((t) => t.trim()).filter((t) => t !== "");
  const unknown = types.filter((t) => !LIVE_TYPES.has(t));
  if (unknown.length > 0) {
    throw new HttpError(
      "invalid_arguments",
      `?types names unknown event type${unknown.length === 1 ? "" : "s"} ${
        unknown.slice(0, 5).map((t) => excerpt(t)).join(", ")
      }${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}; types: ${
        [...LIVE_TYPES].join(", ")
      }`,
    );
  }
  return new Set(types as LiveEventType[]);
}

/**
 * The event id to resume after: `Last-Event-ID` (what a reconnecting
 * EventSource sends) or `?last_event_id=`. The ids this server writes are
 * non-negative integers; anything else is a 400 rather than a silent replay
 * from the start.
 */
function lastEventId(request: Request, url: URL): number | undefined {
  const param = readParam(request, url, { header: "Last-Event-ID" }, { query: "last_event_id" });
  if (param === undefined || param.value.trim() === "") return undefined;
  const text = param.value.trim();
  const id = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) {
    throw new HttpError(
      "invalid_arguments",
      `${param.name} ${excerpt(text)} is not an event id; ids are non-negative integers`,
    );
  }
  return id;
}

/** The agent of a hook delivery: a known agent name in any accepted spelling; 400 otherwise. */
function hookAgent(request: Request, url: URL): string {
  const param = readParam(request, url, { header: "X-Vantage-Agent" }, { query: "agent" });
  const given = boundedParam(param, NAME_MAX_CHARS, "an agent name");
  if (param === undefined || given === undefined) {
    throw new HttpError(
      "invalid_arguments",
      `name the agent with the X-Vantage-Agent header or ?agent= (one of ${
        AGENT_NAMES.join(", ")
      })`,
    );
  }
  const agent = parseAgentName(given);
  if (agent === undefined) {
    throw new HttpError(
      "invalid_arguments",
      `${param.name}: unknown agent ${excerpt(given)}; agents: ${AGENT_NAMES.join(", ")}`,
    );
  }
  return agent;
}

/** When the hook received its payload: `X-Vantage-Received-At`, epoch ms, or now. */
function receivedAt(request: Request): number {
  const text = request.headers.get("x-vantage-received-at");
  if (text === null) return Date.now();
  const ms = /^\d{1,16}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!plausibleEpochMs(ms)) {
    throw new HttpError(
      "invalid_arguments",
      `X-Vantage-Received-At ${excerpt(text)} is not a plausible time; it takes ${EPOCH_MS_RANGE}`,
    );
  }
  return ms;
}

async function takeHook(request: Request, url: URL, deps: HandlerDependencies): Promise<Response> {
  requireJson(request);
  const agent = hookAgent(request, url);
  const deliveryId = boundedParam(
    readParam(request, url, { header: "X-Vantage-Delivery" }),
    DELIVERY_ID_MAX_CHARS,
    "a delivery id",
  );
  const event = boundedParam(
    readParam(request, url, { header: "X-Vantage-Event" }, { query: "event" }),
    NAME_MAX_CHARS,
    "a hook event name",
  );
  const delivery: HookDelivery = {
    agent,
    delivery_id: deliveryId ?? crypto.randomUUID(),
    received_at: receivedAt(request),
    payload: await readBodyText(request, deps.hookBodyLimit ?? 16 * 1024 * 1024),
  };
  if (event !== undefined) delivery.event = event;
  const result = await deps.takeHook(delivery);
  if (!result.stored && !result.duplicate) {
    throw new HttpError("invalid_arguments", result.reason, 422);
  }
  const body: Record<string, unknown> = { stored: result.stored, duplicate: !result.stored };
  if (result.output !== undefined) body.output = result.output;
  return json(body);
}
