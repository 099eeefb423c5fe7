/**
 * Finds a model's price and the cost of one model call.
 *
 * A model id is normalized (lower case, provider and region prefixes dropped, Claude's dotted
 * versions dashed, `[1m]` suffixes removed), then looked up:
 *
 * 1. **Longest prefix** on whole name segments, in the user's overrides first, then in the
 *    built-in table: `claude-sonnet-4-5-20250929` finds `claude-sonnet-4-5`, `gpt-5-mini-…`
 *    finds `gpt-5-mini`. A prefix followed by another version number is a different model
 *    (`claude-opus-4` does not price `claude-opus-4-9`).
 * 2. **Family fallback**: the id's family is its name with the version taken out
 *    (`gpt-5.7-codex` → `gpt-*-codex`, `claude-opus-4-9` → `claude-opus-*`); it is priced as
 *    the newest known version of that family and major version not newer than it
 *    (`gpt-5.3-codex`, `claude-opus-4-8`), and the answer says it was a fallback. A new major
 *    version (`claude-opus-6`) stays unpriced: prices change between generations.
 * 3. Otherwise the model is **unpriced**: {@link priceCall} answers `undefined`, and the
 *    store counts the call as unpriced rather than as costing $0.
 *
 * @module
 */

import { DEFAULT_PRICES, type ModelPrice, type PriceRates } from "./price_table.ts";

export { DEFAULT_PRICES, PRICE_SOURCES, PRICE_TABLE_DATE } from "./price_table.ts";
export type { ModelPrice, PriceRates, PriceSource } from "./price_table.ts";

/** Token counts {@link costOf} needs (a {@link UsageRecord} fits). */
export interface TokenCounts {
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes, all lifetimes. */
  cache_write_tokens: number;
}

/** Everything about one model call that changes its price. */
export interface CallUsage extends TokenCounts {
  /** The part of {@link cache_write_tokens} written with a 1-hour lifetime. */
  cache_write_1h_tokens?: number;
  /** Server-side web searches the call made. */
  web_search_requests?: number;
  /** The provider's service tier (`standard`, `batch`, `flex`, `priority`). */
  service_tier?: string;
  /** `fast` when the call ran in fast mode. */
  speed?: string;
  /** `us` when the call asked for US-only inference. */
  inference_geo?: string;
  /** How many calls the counts sum (Copilot's per-model totals); absent = one. */
  calls?: number;
}

/** How a model id found its price. */
export interface PriceMatch {
  /** The price. */
  price: ModelPrice;
  /** The table key that priced it. */
  key: string;
  /** Where the key came from. */
  table: "override" | "default";
  /** True when the id is not in the table and was priced by its family's nearest version. */
  fallback: boolean;
}

/** A priced call. */
export interface CallCost {
  /** USD, rounded to 1e-8. */
  usd: number;
  /** The price row used. */
  match: PriceMatch;
}

/**
 * Normalizes a model id for the look-up: lower case, provider prefix dropped
 * (`anthropic/…`, `openai/…`, Bedrock's `us.anthropic.…-v1:0`), Claude's dotted versions
 * spelled with dashes (`claude-sonnet-4.5` → `claude-sonnet-4-5`), context suffixes such as
 * `[1m]` removed.
 *
 * @example
 * ```ts
 * normalizeModelId("anthropic/Claude-Sonnet-4.5"); // "claude-sonnet-4-5"
 * normalizeModelId("us.anthropic.claude-opus-4-5-20251101-v1:0"); // "claude-opus-4-5-20251101"
 * ```
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase().replace(/\[[^\]]*\]$/, "");
  const slash = id.lastIndexOf("/");
  if (slash >= 0) id = id.slice(slash + 1);
  id = id.replace(/^(?:[a-z]{2,4}\.)?anthropic\./, "").replace(/-v\d+(?::\d+)?$/, "");
  if (id.startsWith("claude")) id = id.replaceAll(".", "-");
  return id;
}

// A dated snapshot suffix: `-20250929` or `-2025-08-07`.
const DATE_SEGMENT = /^\d{8}$/;
const DATED_TAIL = /-\d{4}-\d{2}-\d{2}$/;

function isVersionSegment(segment: string): boolean {
  return /^\d{1,2}(\.\d+)*$/.test(segment);
}

function matches(id: string, key: string): boolean {
  if (!id.startsWith(key)) return false;
  const rest = id.slice(key.length);
  if (rest === "") return true;
  // A key matches whole name segments: `o3` must not price `o3x`, `gpt-5` must not price
  // `gpt-50` or `gpt-5.1`; and a further version number names another model.
  if (!/^[-@:_]/.test(rest)) return false;
  const next = rest.slice(1).split(/[-@:_]/)[0];
  return DATE_SEGMENT.test(next) || !isVersionSegment(next);
}

/** An id split into its family (version replaced by `*`) and version numbers. */
interface Versioned {
  family: string;
  version: number[];
}

function versioned(id: string): Versioned | undefined {
  const segments = id.replace(DATED_TAIL, "").split("-").filter((s) => !DATE_SEGMENT.test(s));
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    // `o4` (letters then a number) is versioned like `gpt-5`.
    const lettered = /^([a-z]{1,2})(\d+(?:\.\d+)*)$/.exec(segment);
    if (i === 0 && lettered !== null) {
      return {
        family: [`${lettered[1]}*`, ...segments.slice(1)].join("-"),
        version: lettered[2].split(".").map(Number),
      };
    }
    if (i === 0 || !isVersionSegment(segment)) continue;
    // Claude spells 4.5 as `4-5`: consecutive short numbers are one version.
    let end = i + 1;
    while (end < segments.length && isVersionSegment(segments[end])) end++;
    const version = segments.slice(i, end).flatMap((s) => s.split(".").map(Number));
    return { family: [...segments.slice(0, i), "*", ...segments.slice(end)].join("-"), version };
  }
  return undefined;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

type Table = Readonly<Record<string, ModelPrice>>;

const NO_OVERRIDES: Table = Object.freeze({});

// A table's keys normalized once (tables are not changed after they are loaded).
const normalizedKeys = new WeakMap<Table, Array<[normalized: string, key: string]>>();

function keysOf(table: Table): Array<[string, string]> {
  let keys = normalizedKeys.get(table);
  if (keys === undefined) {
    keys = Object.keys(table).map((key) => [normalizeModelId(key), key]);
    normalizedKeys.set(table, keys);
  }
  return keys;
}

function longestPrefix(id: string, table: Table): string | undefined {
  let best: string | undefined;
  let bestLength = -1;
  for (const [normalized, key] of keysOf(table)) {
    if (matches(id, normalized) && normalized.length > bestLength) {
      best = key;
      bestLength = normalized.length;
    }
  }
  return best;
}

function familyFallback(
  id: string,
  tables: ReadonlyArray<readonly [Table, PriceMatch["table"]]>,
): PriceMatch | undefined {
  const target = versioned(id);
  if (target === undefined) return undefined;
  let best: { match: PriceMatch; version: number[] } | undefined;
  for (const [table, name] of tables) {
    for (const [normalized, key] of keysOf(table)) {
      const price = table[key];
      const candidate = versioned(normalized);
      if (candidate === undefined || candidate.family !== target.family) continue;
      // Only within one major version: prices change between generations.
      if (candidate.version[0] !== target.version[0]) continue;
      if (compareVersions(candidate.version, target.version) > 0) continue;
      // Overrides come first, so a tie keeps the user's row.
      if (best === undefined || compareVersions(candidate.version, best.version) > 0) {
        best = { match: { price, key, table: name, fallback: true }, version: candidate.version };
      }
    }
  }
  return best?.match;
}

/**
 * Finds how a model is priced: the longest matching key of `overrides`, then of the default
 * table, then its family's nearest older version; `undefined` when nothing fits.
 *
 * @example
 * ```ts
 * matchPrice("gpt-5.3-codex")?.key;        // "gpt-5.3-codex"
 * matchPrice("gpt-5.7-codex")?.fallback;   // true (priced as gpt-5.3-codex)
 * matchPrice("my-local-llama");            // undefined
 * ```
 */
export function matchPrice(
  model: string,
  overrides: Table = NO_OVERRIDES,
): PriceMatch | undefined {
  // Every call of a transcript asks for the same few models: answers are kept per overrides.
  let cache = matches_.get(overrides);
  if (cache === undefined) {
    cache = new Map();
    matches_.set(overrides, cache);
  }
  if (cache.has(model)) return cache.get(model);
  const match = findPrice(model, overrides);
  if (cache.size >= 1024) cache.clear();
  cache.set(model, match);
  return match;
}

const matches_ = new WeakMap<Table, Map<string, PriceMatch | undefined>>();

function findPrice(model: string, overrides: Table): PriceMatch | undefined {
  const id = normalizeModelId(model);
  if (id === "") return undefined;
  for (const [table, name] of [[overrides, "override"], [DEFAULT_PRICES, "default"]] as const) {
    const key = longestPrefix(id, table);
    if (key !== undefined) return { price: table[key], key, table: name, fallback: false };
  }
  return familyFallback(id, [[overrides, "override"], [DEFAULT_PRICES, "default"]]);
}

/**
 * The price of a model (see {@link matchPrice}); `undefined` when it has none.
 *
 * @example
 * ```ts
 * priceFor("claude-sonnet-4-5-20250929")?.output; // 15
 * priceFor("my-local-llama");                     // undefined
 * ```
 */
export function priceFor(
  model: string,
  overrides: Table = NO_OVERRIDES,
): ModelPrice | undefined {
  return matchPrice(model, overrides)?.price;
}

// Service tiers billed at half price (Anthropic's Message Batches, OpenAI's Batch and Flex).
const HALF_PRICE_TIERS = new Set(["batch", "flex"]);

/**
 * The rates a call pays: the long-context tier when its prompt is above the threshold. For a
 * record summing several calls, the average prompt decides (the calls' own sizes are gone).
 */
function ratesFor(price: ModelPrice, usage: CallUsage): PriceRates {
  const long = price.long_context;
  if (long === undefined) return price;
  const prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  return prompt / Math.max(1, usage.calls ?? 1) > long.above ? long : price;
}

/**
 * Prices one model call: its tokens at the model's rates (the long-context rates when the
 * prompt is above the model's threshold), 1-hour cache writes at their own rate, fast mode,
 * US-only inference and half-price service tiers as multipliers, plus web searches.
 * `undefined` when the model has no price.
 *
 * @example
 * ```ts
 * priceCall({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0,
 *   cache_write_tokens: 1_000_000, cache_write_1h_tokens: 1_000_000 }, "claude-sonnet-4-6")?.usd; // 6
 * ```
 */
export function priceCall(
  usage: CallUsage,
  model: string | undefined,
  overrides?: Table,
): CallCost | undefined {
  if (model === undefined || model === "") return undefined;
  const match = matchPrice(model, overrides);
  if (match === undefined) return undefined;
  const price = match.price;
  const rates = ratesFor(price, usage);
  const oneHour = Math.min(usage.cache_write_1h_tokens ?? 0, usage.cache_write_tokens);
  const fiveMinute = usage.cache_write_tokens - oneHour;
  let tokens = usage.input_tokens * rates.input + usage.output_tokens * rates.output +
    usage.cache_read_tokens * rates.cache_read + fiveMinute * rates.cache_write +
    oneHour * (rates.cache_write_1h ?? rates.cache_write);
  // Fast mode is stated in the usage (Claude Code) or in the model's name (`…-fast`, as
  // Copilot and some proxies report it).
  const fast = usage.speed === "fast" || /-fast$/.test(normalizeModelId(model));
  if (fast && price.fast !== undefined) tokens *= price.fast;
  if (usage.inference_geo === "us" && price.us_only !== undefined) tokens *= price.us_only;
  if (usage.service_tier !== undefined && HALF_PRICE_TIERS.has(usage.service_tier)) tokens *= 0.5;
  const searches = (usage.web_search_requests ?? 0) * (price.web_search_per_1k ?? 0) / 1000;
  const usd = tokens / 1e6 + searches;
  return { usd: Math.round(usd * 1e8) / 1e8, match };
}

/**
 * The cost in USD of some token counts on a model; `undefined` when the model is unpriced (so
 * a dashboard can say "unpriced" rather than show a misleading $0). Reasoning tokens are not
 * added: providers count them inside output tokens.
 *
 * @example
 * ```ts
 * costOf({ input_tokens: 1_000_000, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
 *   "claude-sonnet-4-5"); // 3
 * ```
 */
export function costOf(
  usage: CallUsage,
  model: string | undefined,
  overrides?: Table,
): number | undefined {
  return priceCall(usage, model, overrides)?.usd;
}
