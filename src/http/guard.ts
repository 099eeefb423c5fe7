/**
 * Checks every request's Host and Origin (against DNS rebinding: a page on
 * another site resolving its name to 127.0.0.1 must not reach the API); the
 * first middleware of the route table. The bearer token is `auth.ts`'s.
 *
 * A request that changes state (any method but GET, HEAD and OPTIONS, and
 * every request to `/mcp`, `/api/hooks`, `/api/ops/*` and `/api/query`) that
 * carries an Origin must come from this server's own origin: `Origin: null`
 * (a sandboxed frame, a `file://` page, a cross-site redirect) and pages on
 * another port of this machine are refused. Such pages can send a "simple"
 * `text/plain` POST without a CORS preflight, so the content-type check alone
 * does not stop them. A request without an Origin (curl, the hook, agents'
 * MCP clients) is not from a browser page and passes. Reads stay open to a
 * foreign port or a null origin because no answer carries an
 * `Access-Control-Allow-Origin` header: such a page can ask but never read.
 *
 * @module
 */
import { excerpt } from "../core/limits.ts";
import type { Eventually } from "../core/eventually.ts";
import type { TokenHolder } from "../team/mod.ts";
import { HttpError } from "./responses.ts";
import type { Middleware } from "./router.ts";

/** Who holds a person token: the team's people (serve's is `PersonTokens` over its store). */
export interface PeopleDirectory {
  /** The holder of `token` (a SQLite store answers at once, a server later). */
  holderOf(token: string): Eventually<TokenHolder>;
}

/** What the guard allows. */
export interface GuardOptions {
  /** The address the server is bound to. */
  bindHost: string;
  /** The port it listens on. */
  port: number;
  /** The bearer token; required off loopback, always accepted. */
  token?: string;
  /** A team server's people: their tokens are accepted too, each as its person. */
  people?: PeopleDirectory;
  /** Further host names that may be used to reach the server. */
  extraHosts?: readonly string[];
}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Whether an address is loopback only. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.lastIndexOf(":");
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}

/** The host names a server bound to `options.bindHost` answers to. */
function allowedHosts(options: GuardOptions): Set<string> {
  const allowed = new Set([...LOOPBACK_NAMES, ...(options.extraHosts ?? [])]);
  if (!isLoopback(options.bindHost)) allowed.add(options.bindHost);
  return allowed;
}

/**
 * The Host/Origin guard as middleware: every request passes it before
 * anything else looks at it.
 *
 * @example
 * ```ts ignore
 * routeTable({ middleware: [hostOriginGuard({ bindHost: "127.0.0.1", port: 14300 })], routers });
 * ```
 */
export function hostOriginGuard(options: GuardOptions): Middleware {
  const allowed = allowedHosts(options);
  return (context, next) => {
    checkHostAndOrigin(context.request, options, allowed);
    return next();
  };
}

/**
 * Throws an {@linkcode HttpError} when the request's Host or Origin is not
 * one of ours.
 */
function checkHostAndOrigin(
  request: Request,
  options: GuardOptions,
  allowed: ReadonlySet<string>,
): void {
  const hostHeader = request.headers.get("host");
  if (hostHeader !== null) {
    const name = hostName(hostHeader.toLowerCase());
    // Bound to every interface, any name may reach us; the token is what guards that case.
    const wildcard = options.bindHost === "0.0.0.0" || options.bindHost === "::";
    if (!wildcard && !allowed.has(name)) {
      throw new HttpError("forbidden", `host ${excerpt(hostHeader)} is not allowed`, 403);
    }
  }
  const origin = request.headers.get("origin");
  const writes = changesState(request);
  if (origin === "null") {
    if (writes) {
      throw new HttpError(
        "forbidden",
        "Origin: null (a sandboxed frame, a file:// page or a cross-site redirect) may not " +
          "change state; send the request from the dashboard's own page, or without an Origin " +
          "header as curl and the hook do",
        403,
      );
    }
  } else if (origin !== null) {
    let originUrl: URL;
    try {
      originUrl = new URL(origin);
    } catch {
      throw new HttpError("forbidden", `origin ${excerpt(origin)} is not allowed`, 403);
    }
    const originHost = originUrl.hostname;
    const bracketed = originHost.includes(":") ? `[${originHost}]` : originHost;
    if (!allowed.has(originHost) && !allowed.has(bracketed)) {
      throw new HttpError("forbidden", `origin ${excerpt(origin)} is not allowed`, 403);
    }
    if (writes) {
      const own = ownOrigin(request, hostHeader);
      if (own === undefined || originUrl.origin !== own) {
        throw new HttpError(
          "forbidden",
          `origin ${excerpt(origin)} may not change state here: only pages served by this ` +
            `server (${
              own === undefined ? "its own origin" : excerpt(own)
            }) may, or clients that send no Origin (curl, the ` +
            `hook); another port is another web application, even on this machine`,
          403,
        );
      }
    }
  }
}

/** Paths that act (store, run, answer MCP calls) whatever the method they are asked with. */
const ACTING_PATHS = new Set(["/mcp", "/api/hooks", "/api/query"]);

/**
 * Whether a request may change state: any method but GET, HEAD and OPTIONS,
 * and any request to a route that acts. (`/api/query` only reads, but it runs
 * SQL on the caller's behalf and a page must not make it do that either.)
 */
export function changesState(request: Request): boolean {
  const method = request.method.toUpperCase();
  if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS") return true;
  let path: string;
  try {
    path = new URL(request.url).pathname;
  } catch {
    return true;
  }
  return ACTING_PATHS.has(path) || path.startsWith("/api/ops/");
}

/**
 * This server's origin as the client addressed it: `http://` and the Host
 * header (the URL's host when there is none), serialized the way a browser
 * serializes an Origin (lower case, default port dropped).
 */
function ownOrigin(request: Request, hostHeader: string | null): string | undefined {
  try {
    return new URL(`http://${hostHeader ?? new URL(request.url).host}`).origin;
  } catch {
    return undefined;
  }
}
