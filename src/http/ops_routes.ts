/**
 * `/api/ops`, `/api/ops/:operation_id` and `/api/query`: the catalog over
 * JSON. Listing shows what the caller may run with its schemas; running goes
 * through the one executor, so scopes, validation, limits and error kinds
 * are exactly those of MCP and the CLI. Only the status code is HTTP's own.
 *
 * @module
 */
import { httpStatusFor } from "../core/errors.ts";
import { excerpt, hasControlCharacter, NAME_MAX_CHARS, QUERY_MAX_CHARS } from "../core/limits.ts";
import type { Catalog } from "../ops/catalog.ts";
import { executeOperation, type ExecuteResponse, failureOf } from "../ops/executor.ts";
import type { Caller } from "../ops/operation.ts";
import { ROLE_SCOPES, SERVE_SCOPES } from "../ops/scopes.ts";
import type { Services } from "../ops/services.ts";
import { requestPerson } from "./auth.ts";
import type { OpsAccess } from "./context.ts";
import { callerFromRequest } from "./http_caller.ts";
import { boundedParam, readParam } from "./params.ts";
import { HttpError, json, readJsonObject } from "./responses.ts";
import type { Route, RouteContext } from "./router.ts";

/** What the operation routes run against. */
export interface OpsContext {
  /** The catalog. */
  catalog: Catalog;
  /** Services for the operations. */
  services: Services;
}

/** Largest body of an operation, query or MCP request by default, bytes. */
export const OPS_BODY_LIMIT = 1024 * 1024;

/**
 * The catalog of `ops`, or a 503 when the server was started without one.
 * Asked after the route's method check, so a wrong method is still a 405.
 */
export function availableOps(ops: OpsAccess | undefined): OpsAccess {
  if (ops === undefined) {
    throw new HttpError("unavailable", "this server was started without the operation catalog");
  }
  return ops;
}

/**
 * The caller of a request to the catalog: the scopes `ops` grants — to a
 * person, only those of their role among them — narrowed by the request,
 * and the person, when a person's token sent it.
 */
export function opsCaller(ops: OpsAccess, { request, url }: RouteContext): Caller {
  const granted = ops.scopes ?? SERVE_SCOPES;
  const person = requestPerson(request);
  if (person === undefined) return callerFromRequest(request, url, granted);
  const role = ROLE_SCOPES[person.role];
  const caller = callerFromRequest(
    request,
    url,
    granted.filter((scope) => role.includes(scope)),
    `${person.name} (${person.role})`,
  );
  caller.person = person;
  return caller;
}

/**
 * `/api/ops`, `/api/ops/:operation_id` and `/api/query` over `ops`.
 *
 * @example
 * ```ts ignore
 * const api: SubRouter = { prefix: "/api", routes: [...opsRoutes({ catalog, services })] };
 * ```
 */
export function opsRoutes(ops: OpsAccess | undefined): Route[] {
  return [
    {
      path: "/api/ops",
      methods: ["GET"],
      handle: (context) => {
        const access = availableOps(ops);
        return listOperations(access, opsCaller(access, context), context.request, context.url);
      },
    },
    {
      path: "/api/ops/*",
      methods: ["POST"],
      handle: async (context) => {
        const access = availableOps(ops);
        const caller = opsCaller(access, context);
        const operationId = operationIdOf(context.path, context.rest);
        // An operation taking bulk uploads (a sync push) reads a body up to its own limit.
        const ownLimit = access.catalog.get(operationId)?.maxArgumentChars ?? 0;
        const limit = Math.max(access.bodyLimit ?? OPS_BODY_LIMIT, ownLimit);
        const args = await readJsonObject(context.request, limit);
        return await runOperation(access, caller, operationId, args, context.request.signal);
      },
    },
    {
      path: "/api/query",
      methods: ["POST"],
      handle: async (context) => {
        const access = availableOps(ops);
        const caller = opsCaller(access, context);
        const body = await readJsonObject(context.request, access.bodyLimit ?? OPS_BODY_LIMIT);
        return await runQuery(access, caller, body, context.request.signal);
      },
    },
  ];
}

/** The operation id of `/api/ops/<id>` (`encoded`), percent-decoded; 400 when it cannot be one. */
function operationIdOf(path: string, encoded: string): string {
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

/**
 * The HTTP status of an executor response: 200 for a result, the error
 * kind's status otherwise. An operation's own failure keeps the kind it
 * raised (`not_found` → 404) and is `operation_error` (422) otherwise.
 */
export function statusOf(response: ExecuteResponse): number {
  const failure = failureOf(response);
  return failure === undefined ? 200 : httpStatusFor(failure.kind);
}

/**
 * GET /api/ops: the operations the caller may run, with their schemas.
 * `?q=` is bounded search text; `?cassette=` must name a cassette of the
 * catalog (an unknown one is a 400 listing them, not an empty list).
 */
export function listOperations(
  context: OpsContext,
  caller: Caller,
  request: Request,
  url: URL,
): Response {
  const query =
    boundedParam(readParam(request, url, { query: "q" }), QUERY_MAX_CHARS, "search text") ??
      "";
  const cassette = boundedParam(
    readParam(request, url, { query: "cassette" }),
    NAME_MAX_CHARS,
    "a cassette name",
  );
  const names = context.catalog.cassettes.map((c) => c.name);
  if (cassette !== undefined && !names.includes(cassette)) {
    throw new HttpError(
      "invalid_arguments",
      `?cassette=${excerpt(cassette)} is not a cassette of this catalog; cassettes: ${
        names.join(", ")
      }`,
    );
  }
  const visible = context.catalog.visibleTo(caller).length;
  const found = context.catalog.search(query, caller, { limit: visible, cassette });
  return json({
    scopes: caller.scopes,
    cassettes: context.catalog.cassettes.map((c) => ({
      name: c.name,
      source: c.source,
      description: c.description,
    })),
    count: found.results.length,
    operations: found.results,
  });
}

/** POST /api/ops/:operation_id: runs one operation; the body is its arguments. */
export async function runOperation(
  context: OpsContext,
  caller: Caller,
  operationId: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Response> {
  const response = await executeOperation(context.catalog, operationId, args, caller, {
    services: context.services,
    signal,
  });
  return json(response, statusOf(response));
}

/**
 * POST /api/query: one read-only SELECT, run as `agent.exec_query` (same
 * caps, same read-only connection, same `sql:read` scope); the answer is
 * the result grid itself, or the error.
 */
export async function runQuery(
  context: OpsContext,
  caller: Caller,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Response> {
  const response = await executeOperation(context.catalog, "agent.exec_query", body, caller, {
    services: context.services,
    signal,
  });
  if ("result" in response) return json(response.result);
  if ("error" in response) return json({ error: response.error }, statusOf(response));
  // A refused or failed SELECT changed nothing: the route says so, with the kind it raised.
  const { kind, message } = response.operation_error;
  return json({ error: { kind, dispatched: false, message } }, statusOf(response));
}
