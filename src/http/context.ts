/**
 * What the HTTP handler serves from, grouped by the routes that use it: the
 * guard's rules, where hooks go, the operation catalog, the live events and
 * the health facts. Everything the routes need comes through here; the
 * routes hold no state of their own.
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import type { HookDelivery } from "../agent/mod.ts";
import type { Catalog } from "../ops/catalog.ts";
import type { Services } from "../ops/services.ts";
import type { EventBus } from "../server/event_bus.ts";
import type { HookTaken } from "../server/hook_pipeline.ts";
import type { GuardOptions } from "./guard.ts";
import type { OtlpDependencies } from "./otlp_routes.ts";

/** Where `/api/hooks` hands deliveries. */
export interface HookSink {
  /** Stores one delivery and returns what to tell the agent. */
  take(delivery: HookDelivery): HookTaken | Promise<HookTaken>;
  /** Largest hook body accepted, bytes (default 16 MiB). */
  bodyLimit?: number;
}

/** The catalog `/api/ops`, `/api/query` and `/mcp` serve. */
export interface OpsAccess {
  /** The catalog. */
  catalog: Catalog;
  /** Services the operations use. */
  services: Services;
  /** Scopes granted to the server's owner over HTTP (default: everything but `net`). */
  scopes?: readonly string[];
  /** Largest request body, bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Folder of MCP prompt templates (default: none). */
  promptsDir?: string;
}

/** What the handler serves from. */
export interface HttpContext {
  /** Host/Origin/token rules. */
  guard: GuardOptions;
  /** Where hook deliveries go. */
  hooks: HookSink;
  /** OpenTelemetry intake at `/v1/traces`, `/v1/metrics`, `/v1/logs` (503 without it). */
  otlp?: OtlpDependencies;
  /** The operation catalog (its routes answer 503 without it). */
  ops?: OpsAccess;
  /** Live events for `/api/events` (503 without them). */
  events?: EventBus;
  /**
   * Extra health facts (counts, uptime); a `status` among them (`degraded`,
   * with `reasons`, while the store is known to be damaged) replaces `ok`.
   */
  health?: () => Record<string, unknown>;
  /** Serve the dashboard pages (default true). */
  dashboard?: boolean;
  /** Where internal faults (the 500s) are logged (default: nowhere). */
  log?: Logger;
}
