/**
 * The HTTP API as one pure function from Request to Response, testable
 * without a port. Routes dispatch to the ingest layer (hooks), the
 * operation catalog (ops, query, MCP), the event bus (live updates) and the
 * embedded dashboard; none holds logic of its own.
 *
 * Every request passes the Host/Origin guard; `/api/*` and `/mcp` also need
 * the bearer token when the server listens beyond loopback.
 *
 * @module
 */
import { VERSION } from "../core/version.ts";
import type { HookDelivery, IntakeResult } from "../ingest/hook_intake.ts";
import type { Catalog } from "../ops/catalog.ts";
import { DEFAULT_SCOPES } from "../ops/scopes.ts";
import type { Services } from "../ops/services.ts";
import { serveDashboard } from "./dashboard_routes.ts";
import type { EventBus, LiveEventType } from "./event_bus.ts";
import { type GuardOptions, guardRequest } from "./guard.ts";
import { callerFromRequest } from "./http_caller.ts";
import { handleMcp, surfaceOf } from "./mcp_http.ts";
import { listOperations, type OpsContext, runOperation, runQuery } from "./ops_routes.ts";
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
  takeHook(delivery: HookDelivery): IntakeResult & { output?: unknown };
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
        return listOperations(ops(), callerFromRequest(request, url, granted), url);
      }
      if (path.startsWith("/api/ops/")) {
        requireMethod(request, path, "POST");
        const context = ops();
        const caller = callerFromRequest(request, url, granted);
        const operationId = decodeURIComponent(path.slice("/api/ops/".length));
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
      return errorResponse(
        new HttpError("internal_error", error instanceof Error ? error.message : String(error)),
      );
    }
  };
}

function liveTypes(text: string | null): ReadonlySet<LiveEventType> | undefined {
  if (text === null || text.trim() === "") return undefined;
  const types = text.split(",").map((t) => t.trim()).filter((t) => t !== "");
  const unknown = types.filter((t) => !LIVE_TYPES.has(t));
  if (unknown.length > 0) {
    throw new HttpError(
      "invalid_arguments",
      `unknown event type ${unknown.map((t) => `'${t}'`).join(", ")}; types: ${
        [...LIVE_TYPES].join(", ")
      }`,
    );
  }
  return new Set(types as LiveEventType[]);
}

function lastEventId(request: Request, url: URL): number | undefined {
  const text = request.headers.get("last-event-id") ?? url.searchParams.get("last_event_id");
  if (text === null) return undefined;
  const id = Number(text);
  return Number.isInteger(id) && id >= 0 ? id : undefined;
}

async function takeHook(request: Request, url: URL, deps: HandlerDependencies): Promise<Response> {
  requireJson(request);
  const agent = request.headers.get("x-vantage-agent") ?? url.searchParams.get("agent");
  if (agent === null || agent === "") {
    throw new HttpError(
      "invalid_arguments",
      "name the agent with the X-Vantage-Agent header or ?agent=",
    );
  }
  const text = await readBodyText(request, deps.hookBodyLimit ?? 16 * 1024 * 1024);
  const receivedAt = Number(request.headers.get("x-vantage-received-at") ?? Date.now());
  const delivery: HookDelivery = {
    agent,
    delivery_id: request.headers.get("x-vantage-delivery") ?? crypto.randomUUID(),
    received_at: Number.isFinite(receivedAt) ? receivedAt : Date.now(),
    payload: text,
  };
  const event = request.headers.get("x-vantage-event") ?? url.searchParams.get("event");
  if (event !== null) delivery.event = event;
  const result = deps.takeHook(delivery);
  if (!result.stored && !result.duplicate) {
    throw new HttpError("invalid_arguments", result.reason, 422);
  }
  const body: Record<string, unknown> = { stored: result.stored, duplicate: !result.stored };
  if (result.output !== undefined) body.output = result.output;
  return json(body);
}
