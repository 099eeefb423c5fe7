/**
 * The route table: a request runs through the table's middleware, then
 * through the sub-router whose prefix claims its path (that router's own
 * middleware first, so a check such as the bearer token covers every path
 * under the prefix, routed or not), then through its route's middleware and
 * handler. A path no route matches is a 404 naming the method and path.
 * A failure is answered by the claiming router's `answerError`, else the
 * table's.
 *
 * Paths are matched as sent, percent-escapes kept: the guard and the token
 * check read the same spelling the table routes on, so no escape can reach
 * a route while looking like another path to a check.
 *
 * @module
 */
import { HttpError } from "./responses.ts";

/** One request as the routes see it. */
export interface RouteContext {
  /** The request as received. */
  readonly request: Request;
  /** Its parsed URL. */
  readonly url: URL;
  /** The URL's path as sent (percent-escapes kept). */
  readonly path: string;
  /** What the `*` of a prefix route matched ("" for an exact route). */
  readonly rest: string;
}

/** Answers one request. */
export type RouteHandler = (context: RouteContext) => Response | Promise<Response>;

/**
 * Runs before a handler: answers (or throws) itself, or calls `next` for
 * what comes after it and may look at that answer.
 */
export type Middleware = (
  context: RouteContext,
  next: () => Promise<Response>,
) => Promise<Response>;

/** One route of a sub-router. */
export interface Route {
  /** The full path (`/api/ops`), or a prefix ending in `/*` (`/api/ops/*`). */
  path: string;
  /** Methods accepted; any other is a 405 naming them (see {@linkcode allowMethods}). */
  methods?: readonly string[];
  /** Checks run before the handler, after the method check. */
  middleware?: readonly Middleware[];
  /** The handler. */
  handle: RouteHandler;
}

/**
 * Answers a request that failed: whatever a middleware or handler threw
 * (an `HttpError` for what the client got wrong, anything else a fault).
 */
export type ErrorAnswer = (
  context: RouteContext,
  error: unknown,
) => Response | Promise<Response>;

/** Routes under one path prefix, with the checks every request under it passes. */
export interface SubRouter {
  /** The prefix it claims: itself and everything below it (`/api` claims `/api/x`, not `/apix`); `/` claims everything. */
  prefix: string;
  /** Run for every request under the prefix, before any route is looked up. */
  middleware?: readonly Middleware[];
  /** Its routes, full paths, tried in order. */
  routes: readonly Route[];
  /**
   * How a failure under the prefix is answered, the table's own checks included (an intake
   * whose protocol defines its error bodies); the table's {@linkcode RouteTableOptions.answerError}
   * otherwise.
   */
  answerError?: ErrorAnswer;
}

/** What {@linkcode routeTable} builds from. */
export interface RouteTableOptions {
  /** Run for every request, first to last. */
  middleware?: readonly Middleware[];
  /** The sub-routers, tried in order: the first whose prefix claims the path takes it. */
  routers: readonly SubRouter[];
  /** How a failure is answered (default: the error is thrown on to the caller). */
  answerError?: ErrorAnswer;
}

/**
 * Refuses a method other than `allowed` with 405 and an `Allow` header.
 *
 * @example
 * ```ts ignore
 * const route: Route = { path: "/api/query", middleware: [allowMethods("POST")], handle };
 * ```
 */
export function allowMethods(...allowed: string[]): Middleware {
  return (context, next) => {
    if (allowed.includes(context.request.method)) return next();
    throw new HttpError(
      "invalid_arguments",
      `use ${allowed.join(" or ")} for ${context.path}; got ${context.request.method}`,
      405,
      { allow: allowed.join(", ") },
    );
  };
}

/** Whether `prefix` claims `path`. */
function claims(prefix: string, path: string): boolean {
  return prefix === "/" || path === prefix || path.startsWith(prefix + "/");
}

/** What of `path` a route matches: the `*` part, or undefined when it does not match. */
function matchRoute(route: Route, path: string): string | undefined {
  if (!route.path.endsWith("/*")) return route.path === path ? "" : undefined;
  const base = route.path.slice(0, -1);
  return path.startsWith(base) ? path.slice(base.length) : undefined;
}

/** Runs `chain` in order around `last`. */
function run(
  chain: readonly Middleware[],
  context: RouteContext,
  last: () => Promise<Response>,
): Promise<Response> {
  const step = (i: number): Promise<Response> =>
    i === chain.length ? last() : chain[i](context, () => step(i + 1));
  return step(0);
}

function notFound(context: RouteContext): never {
  throw new HttpError("not_found", `no route for ${context.request.method} ${context.path}`);
}

/**
 * Builds a pure request handler from middleware and sub-routers.
 *
 * @example
 * ```ts ignore
 * const handler = routeTable({
 *   middleware: [guard],
 *   routers: [{ prefix: "/api", routes: [{ path: "/api/health", handle: () => json({}) }] }],
 * });
 * const response = await handler(new Request("http://127.0.0.1:14300/api/health"));
 * ```
 */
export function routeTable(options: RouteTableOptions): (request: Request) => Promise<Response> {
  const routers = options.routers.map((router) => ({
    ...router,
    routes: router.routes.map((route) => ({
      route,
      chain: [
        ...(route.methods !== undefined ? [allowMethods(...route.methods)] : []),
        ...(route.middleware ?? []),
      ],
    })),
  }));
  return async (request) => {
    const url = new URL(request.url);
    const base: RouteContext = { request, url, path: url.pathname, rest: "" };
    // Found before the table's middleware runs, so a refusal there is answered the router's way.
    const router = routers.find((r) => claims(r.prefix, base.path));
    const answerError = router?.answerError ?? options.answerError;
    const handle = () =>
      run(options.middleware ?? [], base, () => {
        if (router === undefined) notFound(base);
        return run(router.middleware ?? [], base, async () => {
          for (const { route, chain } of router.routes) {
            const rest = matchRoute(route, base.path);
            if (rest === undefined) continue;
            const context = { ...base, rest };
            return await run(chain, context, async () => await route.handle(context));
          }
          notFound(base);
        });
      });
    if (answerError === undefined) return await handle();
    try {
      // Inside the try: a middleware may throw before it returns a promise.
      return await handle();
    } catch (error) {
      return await answerError(base, error);
    }
  };
}
