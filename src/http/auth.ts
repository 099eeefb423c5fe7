/**
 * The bearer token as middleware, and who a request comes from. A token
 * sent with any request must be a valid one, wherever the request goes; the
 * sub-routers that reach the store or run operations (`/api`, `/mcp`, the
 * OTLP intake) also require one when the server listens beyond loopback.
 *
 * Two kinds of token are valid: the server's own (its owner: every scope the
 * server grants) and, on a team server, a person's (`vtp_…`, issued by
 * `vantage team add-user`): the request then acts as that person, with their
 * role's scopes, and what it stores is attributed to them. A person's token
 * that was revoked is refused with 401 saying so, from the very next
 * request on (see `src/team/person_tokens.ts`).
 *
 * @module
 */
import type { CallerPerson } from "../ops/caller_person.ts";
import { isPersonToken } from "../team/mod.ts";
import { type GuardOptions, isLoopback } from "./guard.ts";
import { HttpError } from "./responses.ts";
import type { Middleware } from "./router.ts";

/** What a 401 tells the client to send. */
const CHALLENGE = { "www-authenticate": 'Bearer realm="vantage"' };

/** Options for {@linkcode bearerAuth}. */
export interface BearerAuthOptions {
  /** Refuse a request without a token when the server listens beyond loopback. */
  required: boolean;
}

/** The person each request authenticated as (absent: the server's owner). */
const PEOPLE = new WeakMap<Request, CallerPerson>();

/**
 * The person a request came from, once {@linkcode bearerAuth} let it
 * through with their token; undefined for the server's owner (its own
 * token, or no token on loopback).
 */
export function requestPerson(request: Request): CallerPerson | undefined {
  return PEOPLE.get(request);
}

function refuse(message: string): never {
  throw new HttpError("forbidden", message, 401, CHALLENGE);
}

/**
 * Checks the `Authorization: Bearer <token>` header: the server's token
 * (`guard.token`) passes as the owner; a person's token (`guard.people`)
 * passes as that person, recorded for {@linkcode requestPerson}; anything
 * else is a 401, and so is a revoked person's token (saying so) and a
 * missing token where `required` and the server is bound beyond loopback.
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
  const people = guard.people;
  return async (context, next) => {
    const { request } = context;
    const authorization = request.headers.get("authorization");
    if (authorization !== null && (guard.token !== undefined || people !== undefined)) {
      const token = /^Bearer ([^\s]+)$/.exec(authorization)?.[1];
      if (token !== undefined && token === guard.token) return next();
      if (token === undefined || people === undefined || !isPersonToken(token)) {
        refuse("the bearer token is not valid");
      }
      // Both passes of one request (the table's, then the router's) resolve it once.
      if (PEOPLE.has(request)) return next();
      const holder = await people.holderOf(token);
      if (holder.kind === "unknown") {
        refuse("the bearer token is not valid: no person on this server holds it");
      }
      if (holder.kind === "revoked") {
        refuse(
          `the token of '${holder.person.name}' was revoked at ${
            new Date(holder.person.revoked_at!).toISOString()
          }; ask an admin of this server for a new one`,
        );
      }
      PEOPLE.set(request, { name: holder.person.name, role: holder.person.role });
      return next();
    }
    if (demanded) refuse("a bearer token is required (Authorization: Bearer <token>)");
    return next();
  };
}
