/**
 * Prices stored model calls: the price of one call as the store keeps it, and repricing every
 * stored call when the price table or the user's overrides changed since the costs were
 * computed (a fingerprint of both is kept in the store).
 *
 * @module
 */
import { repriceUsage } from "../../store/agent/usage.ts";
import type { CallPrice, CountedUsage } from "../../model/agent_records.ts";
import { type DatabaseSync, transaction } from "../../store/database.ts";
import { getStoreMeta, setStoreMeta } from "../../store/store_meta.ts";
import { DEFAULT_PRICES, type ModelPrice, priceCall } from "./pricing.ts";
import { stableHash } from "../values.ts";

const FINGERPRINT_KEY = "usage_prices";

/**
 * The price of one call: what the agent itself reported when it reports a cost (OpenClaw),
 * else the price table's; unpriced when no price fits its model.
 */
export function callPrice(
  record: CountedUsage,
  overrides?: Readonly<Record<string, ModelPrice>>,
): CallPrice {
  if (record.reported_cost_usd !== undefined) {
    return { priced: true, usd: record.reported_cost_usd };
  }
  const cost = priceCall(record, record.model, overrides);
  return cost === undefined ? { priced: false } : { priced: true, usd: cost.usd };
}

/** A fingerprint of the prices in force: the built-in table plus the overrides. */
export function pricesFingerprint(overrides: Readonly<Record<string, ModelPrice>> = {}): string {
  return stableHash(JSON.stringify({ table: DEFAULT_PRICES, overrides }));
}

/**
 * Reprices every stored call when the prices changed since the stored costs were computed;
 * answers how many calls changed (0 when the prices were current).
 */
export function syncStoredPrices(
  db: DatabaseSync,
  overrides: Readonly<Record<string, ModelPrice>> = {},
): number {
  const fingerprint = pricesFingerprint(overrides);
  if (getStoreMeta(db, FINGERPRINT_KEY) === fingerprint) return 0;
  return transaction(db, () => {
    const changed = repriceUsage(db, (record) => callPrice(record, overrides));
    setStoreMeta(db, FINGERPRINT_KEY, fingerprint);
    return changed;
  });
}
