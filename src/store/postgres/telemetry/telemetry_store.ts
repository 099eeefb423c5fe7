/**
 * The telemetry store on PostgreSQL: this folder's functions bound to a pool (or one write's
 * connection) under their own names, checked by the compiler to be
 * {@linkcode PgTelemetryStore}: the part of {@linkcode TelemetryStore}`<"async">` ported so
 * far. Not yet ported: the traces and conversations and the security scan's tool texts, so
 * the telemetry area is listed as pending on PostgreSQL.
 *
 * @module
 */
import type { TelemetryStore } from "../../telemetry/telemetry_store.ts";
import { bindQueryable } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import * as costAndErrors from "./cost_and_errors.ts";
import * as modelCalls from "./model_calls.ts";
import * as settle from "./settle.ts";
import * as telemetryBatch from "./telemetry_batch.ts";
import * as toolCalls from "./tool_calls.ts";

/** The telemetry reads and writes that run on PostgreSQL so far. */
export type PgTelemetryStore = Omit<
  TelemetryStore<"async">,
  | "traceTotals"
  | "questionCostSpread"
  | "finishReasons"
  | "topConversations"
  | "conversationTurns"
  | "conversationFinishReasons"
  | "telemetryToolTexts"
>;

const PG_TELEMETRY_FUNCTIONS = {
  ...costAndErrors,
  ...modelCalls,
  ...settle,
  ...telemetryBatch,
  ...toolCalls,
};

/**
 * The PostgreSQL telemetry store on a pool or a write's connection.
 *
 * @example
 * ```ts ignore
 * import { pgTelemetryStore } from "./telemetry_store.ts";
 * const telemetry = pgTelemetryStore(pool);
 * await telemetry.toolStats({ since: 0, until: Date.now() }); // []
 * ```
 */
export function pgTelemetryStore(q: PgQueryable): PgTelemetryStore {
  return bindQueryable(q, PG_TELEMETRY_FUNCTIONS);
}
