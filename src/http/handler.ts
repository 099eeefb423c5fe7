/**
 * The HTTP API as one pure function from Request to Response, testable
 * without a port: a route table (`router.ts`) whose middleware checks every
 * request's Host and Origin and its bearer token, and whose sub-routers hand
 * hooks to the daemon's pipeline, operations, queries and MCP to the
 * catalog, live updates to the event bus and the rest to the embedded
 * dashboard. None holds logic of its own.
 *
 * Bad input is the client's fault and is answered 4xx naming the header,
 * parameter or field that was wrong and what is accepted; 500 is left for
 * Vantage's own faults, and those are logged.
 *
 * A new sub-router (like the OTLP intake under `/v1`) is one more entry in
 * {@linkcode createHandler}'s list: `protect(…)` it when it reaches the
 * store, so it needs the token beyond loopback like `/api` and `/mcp`.
 *
 * @module
 */
import { excerpt } from "../core/limits.ts";
import type { Logger } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { bearerAuth } from "./auth.ts";
import type { HttpContext } from "./context.ts";
import { dashboardRouter } from "./dashboard_routes.ts";
import { eventRoutes } from "./event_routes.ts";
import { hostOriginGuard } from "./guard.ts";
import { hookRoutes } from "./hook_routes.ts";
import { mcpRouter } from "./mcp_http.ts";
import { opsRoutes } from "./ops_routes.ts";
import { errorResponse, HttpError, json } from "./responses.ts";
import { otlpRouter } from "./otlp_routes.ts";
import { type ErrorAnswer, type Route, routeTable, type SubRouter } from "./router.ts";

export type { HttpContext } from "./context.ts";

/** A request handler. */
export type Handler = (request: Request) => Promise<Response>;

/**
 * Builds the handler over `context`.
 *
 * @example
 * ```ts ignore
 * const handler = createHandler({ guard, hooks: { take }, ops: { catalog, services } });
 * const response = await handler(new Request("http://127.0.0.1:14300/api/health"));
 * ```
 */
export function createHandler(context: HttpContext): Handler {
  const token = bearerAuth(context.guard, { required: true });
  const protect = (router: SubRouter): SubRouter => ({
    ...router,
    middleware: [token, ...(router.middleware ?? [])],
  });
  return routeTable({
    answerError: answerInJson(context.log),
    middleware: [
      hostOriginGuard(context.guard),
      // A token sent anywhere must be the right one; `protect` demands one.
      bearerAuth(context.guard, { required: false }),
    ],
    routers: [
      protect({
        prefix: "/api",
        routes: [
          healthRoute(context.health),
          ...hookRoutes(context.hooks),
          ...opsRoutes(context.ops),
          ...eventRoutes(context.events),
        ],
      }),
      protect(mcpRouter(context.ops)),
      // OTLP answers every failure, the guard's too, in its own encoding.
      protect(otlpRouter(context.otlp, context.log)),
      ...(context.dashboard === false ? [] : [dashboardRouter()]),
    ],
  });
}

/** `/api/health`: alive, the version, and the daemon's facts (any method). */
function healthRoute(health: HttpContext["health"]): Route {
  return {
    path: "/api/health",
    // Still 200 when degraded: the server is alive (the lock's liveness probe relies on it).
    handle: () => json({ status: "ok", version: VERSION, ...(health?.() ?? {}) }),
  };
}

/**
 * How the table answers a failure: an {@linkcode HttpError} becomes its JSON
 * answer; anything else is a fault of ours, logged and answered 500.
 */
function answerInJson(log: Logger | undefined): ErrorAnswer {
  return ({ request, path }, error) => {
    if (error instanceof HttpError) return errorResponse(error);
    // Everything a client can get wrong was answered as an HttpError: this is a fault of ours.
    log?.error("request failed", {
      method: request.method,
      path: excerpt(path, 200),
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return errorResponse(
      new HttpError("internal_error", error instanceof Error ? error.message : String(error)),
    );
  };
}
