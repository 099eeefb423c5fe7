/**
 * The perception store on PostgreSQL: this folder's functions bound to a pool (or one write's
 * connection) under their own names, checked by the compiler to hold every method of
 * {@linkcode PerceptionStore}`<"async">`.
 *
 * @module
 */
import type { PerceptionStore } from "../../perception/perception_store.ts";
import { bindQueryable } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import * as anomalies from "./anomalies.ts";
import * as bundle from "./perception_bundle.ts";
import * as sensed from "./sensed.ts";

const PG_PERCEPTION_FUNCTIONS = { ...anomalies, ...bundle, ...sensed };

/**
 * The PostgreSQL perception store on a pool or a write's connection.
 *
 * @example
 * ```ts ignore
 * import { pgPerceptionStore } from "./perception_store.ts";
 * const perception = pgPerceptionStore(pool);
 * await perception.latestBuildRuns(undefined, 5); // []
 * ```
 */
export function pgPerceptionStore(q: PgQueryable): PerceptionStore<"async"> {
  return bindQueryable(q, PG_PERCEPTION_FUNCTIONS);
}
