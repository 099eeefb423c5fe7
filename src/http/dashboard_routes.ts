/**
 * The dashboard's pages and assets, embedded in the program: served with
 * an ETag (answered 304 when unchanged) and headers that keep the page to
 * its own origin (no framing, no foreign scripts or connections).
 *
 * @module
 */
import { dashboardAsset } from "../dashboard/assets.ts";
import { HttpError } from "./responses.ts";
import type { SubRouter } from "./router.ts";

const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** The asset at `path` (GET or HEAD), or undefined when there is none. */
export function serveDashboard(request: Request, path: string): Response | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const asset = dashboardAsset(path);
  if (asset === undefined) return undefined;
  const headers = {
    ...PAGE_HEADERS,
    "content-type": asset.type,
    etag: asset.etag,
    // Revalidate every time: the ETag makes that a cheap 304, and a new version shows at once.
    "cache-control": "no-cache",
  };
  if (request.headers.get("if-none-match") === asset.etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : asset.body, { headers });
}

/**
 * The dashboard sub-router: claims every path the other routers did not,
 * and answers with the asset there or a 404.
 *
 * @example
 * ```ts ignore
 * routeTable({ routers: [apiRouter, dashboardRouter()] });
 * ```
 */
export function dashboardRouter(): SubRouter {
  return {
    prefix: "/",
    routes: [{
      path: "/*",
      handle: ({ request, path }) => {
        const page = serveDashboard(request, path);
        if (page !== undefined) return page;
        throw new HttpError("not_found", `no route for ${request.method} ${path}`);
      },
    }],
  };
}
