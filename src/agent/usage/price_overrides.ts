/**
 * The user's own model prices: `pricing.json` in the data home, mapping a model id prefix to
 * USD per million tokens. They win over the built-in table (see `pricing.ts` for the look-up):
 *
 * ```json
 * {
 *   "my-local-llama": { "input": 0, "output": 0, "cache_read": 0, "cache_write": 0 },
 *   "claude-sonnet-4-6": {
 *     "input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75, "cache_write_1h": 6,
 *     "web_search_per_1k": 10
 *   },
 *   "gpt-5.5": {
 *     "input": 5, "output": 30, "cache_read": 0.5, "cache_write": 0,
 *     "long_context": { "above": 272000, "input": 10, "output": 45, "cache_read": 1, "cache_write": 0 }
 *   }
 * }
 * ```
 *
 * `input`, `output`, `cache_read` and `cache_write` (5-minute writes) are required;
 * `cache_write_1h`, `long_context`, `fast` (fast-mode multiplier), `us_only` (multiplier for
 * US-only inference) and `web_search_per_1k` are optional.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VantageError } from "../../core/errors.ts";
import type { ModelPrice, PriceRates } from "./price_table.ts";

const RATE_FIELDS = ["input", "output", "cache_read", "cache_write"] as const;
const OPTIONAL_NUMBERS = ["cache_write_1h", "fast", "us_only", "web_search_per_1k"] as const;

/** Where the overrides live in a data home. */
export function priceOverridesPath(home: string): string {
  return join(home, "pricing.json");
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function rates(value: Record<string, unknown>, where: string): PriceRates {
  for (const field of RATE_FIELDS) {
    if (!isNumber(value[field])) {
      throw new VantageError(
        "invalid_arguments",
        `${where} needs a number ≥ 0 for '${field}' (input, output, cache_read and cache_write are USD per million tokens)`,
      );
    }
  }
  const out: PriceRates = {
    input: value.input as number,
    output: value.output as number,
    cache_read: value.cache_read as number,
    cache_write: value.cache_write as number,
  };
  if (value.cache_write_1h !== undefined) {
    if (!isNumber(value.cache_write_1h)) {
      throw new VantageError(
        "invalid_arguments",
        `${where}: 'cache_write_1h' must be a number ≥ 0`,
      );
    }
    out.cache_write_1h = value.cache_write_1h;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Loads the overrides; a missing file means none, a malformed one is an error naming it. */
export function loadPriceOverrides(home: string): Record<string, ModelPrice> {
  const path = priceOverridesPath(home);
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
  if (!isObject(parsed)) {
    throw new VantageError("invalid_arguments", `${path} must map model ids to prices`);
  }
  const prices: Record<string, ModelPrice> = {};
  for (const [model, value] of Object.entries(parsed)) {
    const where = `${path}: '${model}'`;
    if (!isObject(value)) {
      throw new VantageError("invalid_arguments", `${where} must be an object of prices`);
    }
    const price: ModelPrice = { ...rates(value, where), source: "override" };
    for (const field of OPTIONAL_NUMBERS) {
      if (value[field] === undefined) continue;
      if (!isNumber(value[field])) {
        throw new VantageError("invalid_arguments", `${where}: '${field}' must be a number ≥ 0`);
      }
      price[field] = value[field] as number;
    }
    if (value.long_context !== undefined) {
      const long = value.long_context;
      if (!isObject(long) || !isNumber(long.above)) {
        throw new VantageError(
          "invalid_arguments",
          `${where}: 'long_context' needs 'above' (prompt tokens) and the four rates`,
        );
      }
      price.long_context = { above: long.above, ...rates(long, `${where} long_context`) };
    }
    prices[model] = price;
  }
  return prices;
}
