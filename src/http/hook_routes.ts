/**
 * `POST /api/hooks`: one hook delivery, its payload handed on as sent (the
 * intake parses it once). The envelope rides in headers: the agent
 * (`X-Vantage-Agent` or `?agent=`), the delivery id, the event name the hook
 * was registered under, when the hook received the payload, and the host it
 * ran on (`X-Vantage-Host`). Who sent it is the token's: a team server's
 * person, or nobody (the server's owner).
 *
 * @module
 */
import { EPOCH_MS_RANGE, excerpt, NAME_MAX_CHARS, plausibleEpochMs } from "../core/limits.ts";
import { DELIVERY_ID_MAX_CHARS, type HookDelivery } from "../agent/mod.ts";
import { AGENT_NAMES, parseAgentName } from "../model/agent_records.ts";
import { requestPerson } from "./auth.ts";
import type { HookSink } from "./context.ts";
import { boundedParam, readParam } from "./params.ts";
import { HttpError, json, readBodyText, requireJson } from "./responses.ts";
import type { Route, RouteContext } from "./router.ts";

/** Largest hook body accepted by default, bytes. */
const HOOK_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The hook routes over `hooks`.
 *
 * @example
 * ```ts ignore
 * const api: SubRouter = { prefix: "/api", routes: [...hookRoutes(hooks)] };
 * ```
 */
export function hookRoutes(hooks: HookSink): Route[] {
  return [{ path: "/api/hooks", methods: ["POST"], handle: (context) => takeHook(context, hooks) }];
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

async function takeHook({ request, url }: RouteContext, hooks: HookSink): Promise<Response> {
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
    payload: await readBodyText(request, hooks.bodyLimit ?? HOOK_BODY_LIMIT),
  };
  if (event !== undefined) delivery.event = event;
  const host = boundedParam(
    readParam(request, url, { header: "X-Vantage-Host" }),
    NAME_MAX_CHARS,
    "a host name",
  );
  if (host !== undefined) delivery.host = host;
  const person = requestPerson(request);
  if (person !== undefined) delivery.person = person.name;
  const result = await hooks.take(delivery);
  if (!result.stored && !result.duplicate) {
    // Held by the server while its store is away: accepted, stored when the store is back.
    if (result.held === true) {
      return json({ stored: false, duplicate: false, held: true, reason: result.reason }, 202);
    }
    throw new HttpError("invalid_arguments", result.reason, 422);
  }
  const body: Record<string, unknown> = { stored: result.stored, duplicate: !result.stored };
  if (result.output !== undefined) body.output = result.output;
  return json(body);
}
