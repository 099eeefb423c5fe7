/**
 * The bearer token as middleware. A token sent with any request must be the
 * right one, wherever the request goes; the sub-routers that reach the store
 * or run operations (`/api`, `/mcp`) also require one when the server
 * listens beyond loopback.
 *
 * @module
 */
import { type GuardOptions, isLoopback } from "./guard.ts";
import { HttpError } from "./responses.ts";
import type { Middleware } from "./router.ts";

/** What a 401 tells the client to send. */
const CHALLENGE = { "www-authenticate": 'Bearer realm="vantage"' };

/** Options for {@linkcode bearerAuth}. */
export interface BearerAuthOptions {
  /** Refuse a request without the token when the server listens beyond loopback. */
  required: boolean;
}

/**
 * Checks the `Authorization: Bearer <token>` header against `guard.token`:
 * a wrong one is a 401, and so is a missing one where `required` and the
 * server is bound beyond loopback.
 *
 * @example
 * ```ts ignore
 * const api: SubRouter = {
 *   prefix: "/api",
 *   middleware: [bearerAuth(guard, { required: true })],
 *   routes,
 * };
 * ```
 */
export function bearerAuth(guard: GuardOptions, options: BearerAuthOptions): Middleware {
  const demanded = options.required && !isLoopback(guard.bindHost);
  return (context, next) => {
    const authorization = context.request.headers.get("authorization");
    if (authorization !== null && guard.token !== undefined) {
      if (authorization !== `Bearer ${guard.token}`) {
        throw new HttpError("forbidden", "the bearer token is not valid", 401, CHALLENGE);
      }
      return next();
    }
    if (demanded) {
      throw new HttpError(
        "forbidden",
        "a bearer token is required (Authorization: Bearer <token>)",
        401,
        CHALLENGE,
      );
    }
    return next();
  };
}
