/**
 * The HTTP API as one pure function from Request to Response, testable
 * without a port. Routes dispatch to the ingest layer (hooks) and to the
 * operation catalog; none holds logic of its own.
 *
 * @module
 */
import { VERSION } from "../core/version.ts";
import type { HookDelivery, IntakeResult } from "../ingest/hook_intake.ts";
import { type GuardOptions, guardRequest } from "./guard.ts";
import { errorResponse, HttpError, json, readBodyText, requireJson } from "./responses.ts";

/** What the handler delegates to. */
export interface HandlerDependencies {
  /** Host/Origin/token rules. */
  guard: GuardOptions;
  /** Stores one hook delivery and returns what to tell the agent. */
  takeHook(delivery: HookDelivery): IntakeResult & { output?: unknown };
  /** Extra health facts (counts, uptime). */
  health?(): Record<string, unknown>;
  /** Largest hook body accepted, bytes (default 16 MiB). */
  hookBodyLimit?: number;
}

/** A request handler. */
export type Handler = (request: Request) => Promise<Response>;

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
  return async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      const isApi = url.pathname.startsWith("/api/") || url.pathname === "/mcp";
      guardRequest(request, deps.guard, isApi);
      if (url.pathname === "/api/health") {
        return json({ status: "ok", version: VERSION, ...(deps.health?.() ?? {}) });
      }
      if (url.pathname === "/api/hooks") {
        if (request.method !== "POST") {
          throw new HttpError("invalid_arguments", "use POST for /api/hooks", 405);
        }
        return await takeHook(request, url, deps);
      }
      throw new HttpError("not_found", `no route for ${request.method} ${url.pathname}`);
    } catch (error) {
      if (error instanceof HttpError) return errorResponse(error);
      return errorResponse(
        new HttpError("internal_error", error instanceof Error ? error.message : String(error)),
      );
    }
  };
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
