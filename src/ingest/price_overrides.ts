/**
 * The user's own model prices: `pricing.json` in the data home, mapping a
 * model id prefix to USD per million tokens (`input`, `output`,
 * `cache_read`, `cache_write`). They win over the built-in table.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VantageError } from "../core/errors.ts";
import type { ModelPrice } from "./pricing.ts";

/** Loads the overrides; a missing file means none, a malformed one is an error naming it. */
export function loadPriceOverrides(home: string): Record<string, ModelPrice> {
  const path = join(home, "pricing.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new VantageError(
      "invalid_arguments",
      `${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new VantageError("invalid_arguments", `${path} must map model ids to prices`);
  }
  const prices: Record<string, ModelPrice> = {};
  for (const [model, value] of Object.entries(parsed as Record<string, unknown>)) {
    const price = value as Partial<ModelPrice> | null;
    const fields = ["input", "output", "cache_read", "cache_write"] as const;
    if (
      price === null || typeof price !== "object" ||
      fields.some((f) => typeof price[f] !== "number")
    ) {
      throw new VantageError(
        "invalid_arguments",
        `${path}: '${model}' needs numbers for input, output, cache_read and cache_write (USD per million tokens)`,
      );
    }
    prices[model] = price as ModelPrice;
  }
  return prices;
}
