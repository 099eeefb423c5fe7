/**
 * Default model prices and the cost of a {@link UsageRecord}.
 *
 * Prices are USD per million tokens, from the providers' public price lists. Model ids are
 * matched by the longest table key that prefixes them, so dated ids
 * (`claude-sonnet-4-5-20250929`) and variants (`gpt-5-codex`) find their family without a
 * table update; `overrides` (from the user's config) win over the defaults.
 *
 * @module
 */

/** Price of one model family, USD per million tokens. */
export interface ModelPrice {
  /** Uncached input tokens. */
  input: number;
  /** Output tokens (reasoning included). */
  output: number;
  /** Input tokens read from the prompt cache. */
  cache_read: number;
  /** Input tokens written to the prompt cache. */
  cache_write: number;
}

/** Token counts {@link costOf} needs (a {@link UsageRecord} fits). */
export interface TokenCounts {
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes. */
  cache_write_tokens: number;
}

function price(input: number, output: number, cacheRead: number, cacheWrite: number): ModelPrice {
  return { input, output, cache_read: cacheRead, cache_write: cacheWrite };
}

/**
 * The default price table, keyed by model id prefix. Cache writes of Anthropic models are
 * priced at the 5-minute rate (1.25× input); OpenAI and Google do not charge for cache writes.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic
  "claude-opus-4": price(15, 75, 1.5, 18.75),
  "claude-opus-4-1": price(15, 75, 1.5, 18.75),
  "claude-opus-4-5": price(5, 25, 0.5, 6.25),
  "claude-opus-4-6": price(5, 25, 0.5, 6.25),
  "claude-opus-4-7": price(5, 25, 0.5, 6.25),
  "claude-opus-4-8": price(5, 25, 0.5, 6.25),
  "claude-sonnet-4": price(3, 15, 0.3, 3.75),
  "claude-3-7-sonnet": price(3, 15, 0.3, 3.75),
  "claude-3-5-sonnet": price(3, 15, 0.3, 3.75),
  "claude-haiku-4": price(1, 5, 0.1, 1.25),
  "claude-3-5-haiku": price(0.8, 4, 0.08, 1),
  "claude-3-opus": price(15, 75, 1.5, 18.75),
  "claude-3-haiku": price(0.25, 1.25, 0.03, 0.3),
  // OpenAI
  "gpt-5": price(1.25, 10, 0.125, 0),
  "gpt-5-mini": price(0.25, 2, 0.025, 0),
  "gpt-5-nano": price(0.05, 0.4, 0.005, 0),
  "gpt-5-pro": price(15, 120, 15, 0),
  "gpt-5.1": price(1.25, 10, 0.125, 0),
  "gpt-5.1-codex-mini": price(0.25, 2, 0.025, 0),
  "gpt-5.2": price(1.75, 14, 0.175, 0),
  "gpt-4.1": price(2, 8, 0.5, 0),
  "gpt-4.1-mini": price(0.4, 1.6, 0.1, 0),
  "gpt-4.1-nano": price(0.1, 0.4, 0.025, 0),
  "gpt-4o": price(2.5, 10, 1.25, 0),
  "gpt-4o-mini": price(0.15, 0.6, 0.075, 0),
  "o1": price(15, 60, 7.5, 0),
  "o3": price(2, 8, 0.5, 0),
  "o3-mini": price(1.1, 4.4, 0.55, 0),
  "o4-mini": price(1.1, 4.4, 0.275, 0),
  "codex-mini": price(1.5, 6, 0.375, 0),
  // Google
  "gemini-2.5-pro": price(1.25, 10, 0.31, 0),
  "gemini-2.5-flash": price(0.3, 2.5, 0.075, 0),
  "gemini-2.5-flash-lite": price(0.1, 0.4, 0.025, 0),
  "gemini-2.0-flash": price(0.1, 0.4, 0.025, 0),
  "gemini-3-pro": price(2, 12, 0.2, 0),
};

/**
 * Normalizes a model id for the look-up: lower case, provider prefix dropped
 * (`anthropic/…`, `openai/…`), Claude's dotted versions spelled with dashes
 * (`claude-sonnet-4.5` → `claude-sonnet-4-5`), context suffixes such as `[1m]` removed.
 *
 * @example
 * ```ts
 * normalizeModelId("anthropic/Claude-Sonnet-4.5"); // "claude-sonnet-4-5"
 * ```
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase().replace(/\[[^\]]*\]$/, "");
  const slash = id.lastIndexOf("/");
  if (slash >= 0) id = id.slice(slash + 1);
  if (id.startsWith("claude")) id = id.replaceAll(".", "-");
  return id;
}

function matches(id: string, key: string): boolean {
  if (!id.startsWith(key)) return false;
  // A key matches a whole name segment: `o3` must not price `o3x`, `gpt-5` must not price
  // `gpt-50`, but it does price `gpt-5-codex` and `gpt-5-2025-08-07`.
  const next = id.charAt(key.length);
  return next === "" || next === "-" || next === "@" || next === ":" || next === "_";
}

/**
 * Finds the price of a model: the longest key of `overrides`, then of the default table,
 * that prefixes the normalized id. `undefined` when no key matches.
 *
 * @example
 * ```ts
 * priceFor("claude-sonnet-4-5-20250929")?.output; // 15
 * priceFor("gpt-5-codex")?.input;                 // 1.25
 * priceFor("my-local-llama");                     // undefined
 * ```
 */
export function priceFor(
  model: string,
  overrides: Readonly<Record<string, ModelPrice>> = {},
): ModelPrice | undefined {
  const id = normalizeModelId(model);
  for (const table of [overrides, DEFAULT_PRICES]) {
    let best: string | undefined;
    for (const key of Object.keys(table)) {
      const normalizedKey = normalizeModelId(key);
      if (
        matches(id, normalizedKey) && (best === undefined || normalizedKey.length > best.length)
      ) {
        best = key;
      }
    }
    if (best !== undefined) return table[best];
  }
  return undefined;
}

/**
 * The cost in USD of some token counts on a model; `undefined` when the model is unknown (so
 * a dashboard can show "unknown" rather than a misleading 0). Reasoning tokens are not added:
 * providers count them inside output tokens.
 *
 * @example
 * ```ts
 * costOf({ input_tokens: 1_000_000, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
 *   "claude-sonnet-4-5"); // 3
 * ```
 */
export function costOf(
  usage: TokenCounts,
  model: string | undefined,
  overrides?: Readonly<Record<string, ModelPrice>>,
): number | undefined {
  if (model === undefined || model === "") return undefined;
  const p = priceFor(model, overrides);
  if (p === undefined) return undefined;
  const usd = (usage.input_tokens * p.input + usage.output_tokens * p.output +
    usage.cache_read_tokens * p.cache_read + usage.cache_write_tokens * p.cache_write) / 1e6;
  return Math.round(usd * 1e8) / 1e8;
}
