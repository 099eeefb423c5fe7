/**
 * One OTLP export, from body to store: decode (a body that is not an export
 * request stores nothing), read the agents' records out of it, store
 * everything in one transaction, and say how many items were rejected.
 *
 * @module
 */
import type { DatabaseSync } from "../../store/database.ts";
import {
  storeTelemetryBatch,
  type TelemetryWriteCounts,
} from "../../store/telemetry/telemetry_batch.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import { callPrice } from "../usage/usage_pricing.ts";
import { decodeExport, type OtlpEncoding } from "./otlp_decode.ts";
import { mapExport } from "./otlp_map.ts";
import type { OtlpSignal } from "./otlp_schema.ts";

/** What an export did. */
export interface OtlpIntakeResult {
  /** Items (spans, data points, log records) the request held. */
  items: number;
  /** Items rejected as invalid (the partial success). */
  rejected: number;
  /** Why they were rejected, when some were. */
  message?: string;
  /** What was stored. */
  stored: TelemetryWriteCounts;
}

/** Options of {@linkcode takeOtlpExport}. */
export interface OtlpIntakeOptions {
  /** The user's price overrides, for calls counted from telemetry. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Now, ms (the time of a log record that has none). */
  now?: number;
}

/**
 * Decodes, maps and stores one export. Throws `OtlpBadData` (and stores nothing) when the
 * body is not the signal's export request.
 *
 * @example
 * ```ts ignore
 * const result = takeOtlpExport(db, "logs", body, "protobuf");
 * ```
 */
export function takeOtlpExport(
  db: DatabaseSync,
  signal: OtlpSignal,
  body: Uint8Array,
  encoding: OtlpEncoding,
  options: OtlpIntakeOptions = {},
): OtlpIntakeResult {
  const now = options.now ?? Date.now();
  const request = decodeExport(signal, body, encoding);
  const mapped = mapExport(signal, request, now);
  const stored = storeTelemetryBatch(
    db,
    mapped.batch,
    (record) => callPrice(record, options.prices),
    now,
  );
  const result: OtlpIntakeResult = { items: mapped.items, rejected: mapped.rejected, stored };
  if (mapped.rejected > 0) {
    result.message = `${mapped.rejected} of ${mapped.items} ${itemNoun(signal)} rejected: ${
      mapped.reasons.join("; ")
    }`;
  }
  return result;
}

function itemNoun(signal: OtlpSignal): string {
  return signal === "traces" ? "spans" : signal === "logs" ? "log records" : "data points";
}
