/**
 * One OTLP export, from body to store: decode (a body that is not an export
 * request stores nothing), read the agents' records out of it, store
 * everything (in one transaction, or in parts taking turns with other
 * writers), and say how many items were rejected.
 *
 * @module
 */
import type { TelemetryBatch } from "../../model/telemetry_records.ts";
import type { DatabaseSync } from "../../store/database.ts";
import {
  type PreparedTelemetryPart,
  prepareTelemetryPart,
  storeTelemetryParts,
  storeTelemetryPartsTakingTurns,
  type TelemetryWriteCounts,
} from "../../store/telemetry/telemetry_batch.ts";
import { storeTelemetryGroupTakingTurns } from "../../store/telemetry/telemetry_group.ts";
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

/**
 * Who sent an export, from the request rather than from what it says: on a team server the
 * person whose token it carried, and the host it named. Sessions it creates are theirs.
 */
export interface OtlpSender {
  /** The person (absent: the server's owner). */
  person?: string;
  /** The host the request named (`X-Vantage-Host`). */
  host?: string;
}

/** Options of {@linkcode takeOtlpExport}. */
export interface OtlpIntakeOptions {
  /** The user's price overrides, for calls counted from telemetry. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Now, ms (the time of a log record that has none). */
  now?: number;
  /** Items per part when an export is stored taking turns (default `PART_ITEMS`). */
  partItems?: number;
  /** Who sent it (default: the server's owner, no host). */
  sender?: OtlpSender;
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
  sender?: OtlpSender,
): PreparedOtlpExport {
  const mapped = mapExport(signal, decodeExport(signal, body, encoding), now, partItems);
  for (const part of mapped.parts) attribute(part, sender);
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
  const prepared = prepareOtlpExport(signal, body, encoding, now, Infinity, options.sender);
  const stored = storeTelemetryParts(
    db,
    prepared.parts,
    (record) => callPrice(record, options.prices),
  );
  return otlpResultOf(prepared, stored);
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
  return otlpResultOf(prepared, stored);
}

/** What became of one export of a group: its answer, or why storing it failed. */
export type OtlpGroupOutcome = { result: OtlpIntakeResult } | { error: unknown };

/**
 * Stores several prepared exports together (group commit, see `storeTelemetryGroupTakingTurns`):
 * in one transaction while no other writer waits, each export whole on its own, so one that
 * fails leaves the others stored. Each outcome, in the order given, is known only once every
 * transaction holding part of its export has committed.
 */
export async function storeOtlpExportGroup(
  db: DatabaseSync,
  prepared: readonly PreparedOtlpExport[],
  prices?: Readonly<Record<string, ModelPrice>>,
): Promise<OtlpGroupOutcome[]> {
  const outcomes = await storeTelemetryGroupTakingTurns(
    db,
    prepared.map((one) => one.parts),
    (record) => callPrice(record, prices),
  );
  return outcomes.map((outcome, i) =>
    "counts" in outcome ? { result: otlpResultOf(prepared[i], outcome.counts) } : outcome
  );
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
  const prepared = prepareOtlpExport(
    signal,
    body,
    encoding,
    now,
    options.partItems,
    options.sender,
  );
  return storeOtlpExportTakingTurns(db, prepared, options.prices);
}

/**
 * Marks the sessions of `batch` as the sender's. The host is the one the request named, else,
 * for a person's export, the `host.name` its records carried; the owner's exports name none
 * unless the request does (as before people existed).
 */
function attribute(batch: TelemetryBatch, sender: OtlpSender | undefined): void {
  if (sender === undefined) return;
  for (const session of batch.sessions.values()) {
    if (sender.person !== undefined) session.person = sender.person;
    const host = sender.host ?? (sender.person !== undefined ? session.host_name : undefined);
    if (host !== undefined) session.host = host;
  }
}

/** A decoded export, read into one batch: what a store of any backend takes in one write. */
export interface MappedOtlpExport {
  /** Its signal. */
  signal: OtlpSignal;
  /** Items (spans, data points, log records) the request held. */
  items: number;
  /** Items rejected as invalid. */
  rejected: number;
  /** Why, for the partial-success message. */
  reasons: string[];
  /** Its records, its sessions marked as the sender's. */
  batch: TelemetryBatch;
}

/**
 * Decodes and reads one export into one batch (everything that needs no store), its sessions
 * marked as `sender`'s. Throws `OtlpBadData` when the body is not the signal's export request.
 *
 * @example
 * ```ts ignore
 * const mapped = mapOtlpExport("logs", body, "protobuf", Date.now(), { person: "ada" });
 * await store.telemetry.storeTelemetryBatch(mapped.batch, priceOf, Date.now());
 * ```
 */
export function mapOtlpExport(
  signal: OtlpSignal,
  body: Uint8Array,
  encoding: OtlpEncoding,
  now: number,
  sender?: OtlpSender,
): MappedOtlpExport {
  const mapped = mapExport(signal, decodeExport(signal, body, encoding), now, Infinity);
  // One part (Infinity items per part): the whole export in one write.
  const batch = mapped.parts[0];
  attribute(batch, sender);
  return {
    signal,
    items: mapped.items,
    rejected: mapped.rejected,
    reasons: mapped.reasons,
    batch,
  };
}

/** What an export did, from what it held and what storing it wrote. */
export function otlpResultOf(
  prepared: Pick<PreparedOtlpExport, "signal" | "items" | "rejected" | "reasons">,
  stored: TelemetryWriteCounts,
): OtlpIntakeResult {
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
