/**
 * One OTLP export, from body to store: decode (a body that is not an export
 * request stores nothing), read the agents' records out of it, store
 * everything (in one transaction, or in parts taking turns with other
 * writers), and say how many items were rejected.
 *
 * @module
 */
import type { DatabaseSync } from "../../store/database.ts";
import {
  type PreparedTelemetryPart,
  prepareTelemetryPart,
  storeTelemetryParts,
  storeTelemetryPartsTakingTurns,
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
  /** Items per part when an export is stored taking turns (default `PART_ITEMS`). */
  partItems?: number;
}

/** A decoded export, read and made ready to store. */
export interface PreparedOtlpExport {
  /** Its signal. */
  signal: OtlpSignal;
  /** Items (spans, data points, log records) the request held. */
  items: number;
  /** Items rejected as invalid. */
  rejected: number;
  /** Why, for the partial-success message. */
  reasons: string[];
  /** The parts to store. */
  parts: PreparedTelemetryPart[];
}

/**
 * Decodes, reads and readies one export for storing, in parts of `partItems` items (default
 * `PART_ITEMS`): everything that needs no store. Throws `OtlpBadData` when the body is not the
 * signal's export request.
 */
export function prepareOtlpExport(
  signal: OtlpSignal,
  body: Uint8Array,
  encoding: OtlpEncoding,
  now: number,
  partItems?: number,
): PreparedOtlpExport {
  const mapped = mapExport(signal, decodeExport(signal, body, encoding), now, partItems);
  return {
    signal,
    items: mapped.items,
    rejected: mapped.rejected,
    reasons: mapped.reasons,
    parts: mapped.parts.map((part) => prepareTelemetryPart(part, now)),
  };
}

/**
 * Decodes, maps and stores one export, in one transaction. Throws `OtlpBadData` (and stores
 * nothing) when the body is not the signal's export request.
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
  // One transaction: one part, so the session totals add up in the same order as ever.
  const prepared = prepareOtlpExport(signal, body, encoding, now, Infinity);
  const stored = storeTelemetryParts(
    db,
    prepared.parts,
    (record) => callPrice(record, options.prices),
  );
  return resultOf(prepared, stored);
}

/**
 * Stores a prepared export, its parts taking turns with other writers (see
 * `storeTelemetryPartsTakingTurns`): for a thread of its own, so that a hook waits for one
 * part of a large export, never for all of it.
 */
export async function storeOtlpExportTakingTurns(
  db: DatabaseSync,
  prepared: PreparedOtlpExport,
  prices?: Readonly<Record<string, ModelPrice>>,
): Promise<OtlpIntakeResult> {
  const stored = await storeTelemetryPartsTakingTurns(
    db,
    prepared.parts,
    (record) => callPrice(record, prices),
  );
  return resultOf(prepared, stored);
}

/**
 * {@linkcode prepareOtlpExport} then {@linkcode storeOtlpExportTakingTurns}. Throws
 * `OtlpBadData` (and stores nothing) when the body is not the signal's export request.
 */
export function takeOtlpExportTakingTurns(
  db: DatabaseSync,
  signal: OtlpSignal,
  body: Uint8Array,
  encoding: OtlpEncoding,
  options: OtlpIntakeOptions = {},
): Promise<OtlpIntakeResult> {
  const now = options.now ?? Date.now();
  const prepared = prepareOtlpExport(signal, body, encoding, now, options.partItems);
  return storeOtlpExportTakingTurns(db, prepared, options.prices);
}

function resultOf(prepared: PreparedOtlpExport, stored: TelemetryWriteCounts): OtlpIntakeResult {
  const { signal, items, rejected, reasons } = prepared;
  const result: OtlpIntakeResult = { items, rejected, stored };
  if (rejected > 0) {
    result.message = `${rejected} of ${items} ${itemNoun(signal)} rejected: ${reasons.join("; ")}`;
  }
  return result;
}

function itemNoun(signal: OtlpSignal): string {
  return signal === "traces" ? "spans" : signal === "logs" ? "log records" : "data points";
}
