/**
 * The pure HTTP handler over a store filled from the real transcript
 * fixtures: no port, no child server — what the handler tests call directly.
 */
import { resolvePaths } from "../../src/core/config.ts";
import { EventBus } from "../../src/server/event_bus.ts";
import type { OpsAccess } from "../../src/http/context.ts";
import type { GuardOptions } from "../../src/http/guard.ts";
import { createHandler, type Handler, type HttpContext } from "../../src/http/handler.ts";
import { VANTAGE_NAMING } from "../../src/mcp/operation_names.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { DATABASE, vantageServices } from "../../src/ops/runtime.ts";
import type { Services } from "../../src/ops/services.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { type AgentHome, makeAgentHome } from "./agent_home.ts";
import { runVantage } from "./cli.ts";

/** A handler with its store and event bus. */
export interface HandlerFixture {
  /** The handler. */
  handler: Handler;
  /** The prepared home. */
  home: AgentHome;
  /** The services the operations use. */
  services: Services;
  /** The catalog and services the handler serves. */
  ops: OpsAccess;
  /** The live-event bus. */
  events: EventBus;
  /** Builds another handler over the same store with other options. */
  with(overrides: Partial<HttpContext>): Handler;
  /** Closes the store and removes the home. */
  close(): Promise<void>;
}

/** The guard of a server on loopback. */
export const LOOPBACK: GuardOptions = { bindHost: "127.0.0.1", port: 14300, token: "secret-token" };

/** Ingests the fixtures with the real CLI, then builds the handler over that store. */
export async function handlerFixture(): Promise<HandlerFixture> {
  const home = await makeAgentHome();
  const ingest = await runVantage(["ingest"], { env: home.env });
  if (ingest.code !== 0) throw new Error(`ingest failed: ${ingest.stderr}`);
  const services = vantageServices({ ...resolvePaths(home.dataHome), userHome: home.home });
  const db = services.get(DATABASE);
  const events = new EventBus();
  const ops: OpsAccess = { catalog: builtinCatalog({ naming: VANTAGE_NAMING }), services };
  const base: HttpContext = {
    guard: LOOPBACK,
    hooks: { take: (delivery) => takeHookDelivery(db, delivery) },
    ops,
    events,
  };
  return {
    handler: createHandler(base),
    home,
    services,
    ops,
    events,
    with: (overrides) => createHandler({ ...base, ...overrides }),
    close: async () => {
      events.close();
      services.close();
      await home.cleanup();
    },
  };
}

/** A POST with a JSON body to the handler's origin. */
export function postJson(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(`http://127.0.0.1:14300${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", host: "127.0.0.1:14300", ...headers },
    body: JSON.stringify(body),
  });
}

/** A GET to the handler's origin. */
export function get(path: string, headers: Record<string, string> = {}): Request {
  return new Request(`http://127.0.0.1:14300${path}`, {
    headers: { host: "127.0.0.1:14300", ...headers },
  });
}
