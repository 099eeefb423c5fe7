/**
 * The telemetry store on PostgreSQL: this folder's functions bound to a pool (or one write's
 * connection) under their own names, checked by the compiler to hold every method of
 * {@linkcode TelemetryStore}`<"async">` — the interface SQLite's store implements
 * synchronously.
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
import * as toolTexts from "./tool_texts.ts";
import * as traces from "./traces.ts";

const PG_TELEMETRY_FUNCTIONS = {
  ...costAndErrors,
  ...modelCalls,
  ...settle,
  ...telemetryBatch,
  ...toolCalls,
  ...toolTexts,
  ...traces,
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
export function pgTelemetryStore(q: PgQueryable): TelemetryStore<"async"> {
  return bindQueryable(q, PG_TELEMETRY_FUNCTIONS);
}
