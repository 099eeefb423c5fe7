/**
 * The built-in model price table: USD per million tokens, as the providers publish them, for
 * the model families the four agents run (Claude Code: Anthropic; Codex: OpenAI; Copilot CLI
 * and OpenClaw: those two plus Google, xAI and the others GitHub serves in Copilot).
 *
 * Keys are normalized model ids ({@link normalizeModelId} in `pricing.ts`) matched as a prefix
 * on whole name segments, so dated ids (`claude-sonnet-4-5-20250929`) find their row; a model
 * of a known family whose version has no row is priced as the newest older version of that
 * family (`pricing.ts` explains the fallback).
 *
 * @module
 */

/** Rates of one price tier, USD per million tokens. */
export interface PriceRates {
  /** Uncached input tokens. */
  input: number;
  /** Output tokens (reasoning included). */
  output: number;
  /** Input tokens read from the prompt cache. */
  cache_read: number;
  /** Input tokens written to the prompt cache with the default (5-minute) lifetime. */
  cache_write: number;
  /** Cache writes with a 1-hour lifetime (Anthropic); absent = {@link cache_write}. */
  cache_write_1h?: number;
}

/** Price of one model family, USD per million tokens, with what changes it per call. */
export interface ModelPrice extends PriceRates {
  /**
   * Rates for a call whose prompt (input + cache reads + cache writes) is above `above`
   * tokens: every token of that call is priced at these rates, as the providers bill it.
   */
  long_context?: PriceRates & { above: number };
  /** Multiplier on every token rate when the call ran in fast mode (Claude `speed: "fast"`). */
  fast?: number;
  /** Multiplier when the call asked for US-only inference (Claude `inference_geo: "us"`). */
  us_only?: number;
  /** USD per 1,000 server-side web searches (Claude `server_tool_use.web_search_requests`). */
  web_search_per_1k?: number;
  /** Which {@link PRICE_SOURCES} entry the row comes from. */
  source?: string;
}

/** Where a provider's prices were read. */
export interface PriceSource {
  /** Provider or publisher. */
  name: string;
  /** The published page(s). */
  urls: readonly string[];
  /** The date the prices were read. */
  as_of: string;
}

/** The date the built-in table was last checked against the published prices. */
export const PRICE_TABLE_DATE = "2026-12-01";

/** The pages the built-in prices were read from, by source key. */
export const PRICE_SOURCES: Readonly<Record<string, PriceSource>> = {
  anthropic: {
    name: "Anthropic",
    urls: [
      "https://platform.claude.com/docs/en/about-claude/pricing",
      "https://platform.claude.com/docs/en/models/opus-5-5/overview",
      "https://platform.claude.com/docs/en/models/sonnet-5-5/overview",
      "https://platform.claude.com/docs/en/build-with-claude/fast-mode",
    ],
    as_of: PRICE_TABLE_DATE,
  },
  openai: {
    name: "OpenAI",
    urls: [
      "https://developers.openai.com/api/docs/pricing",
      "https://developers.openai.com/api/docs/models/gpt-5.6-sol",
    ],
    as_of: PRICE_TABLE_DATE,
  },
  google: {
    name: "Google (Gemini API, paid tier)",
    urls: ["https://ai.google.dev/gemini-api/docs/pricing"],
    // Gemini 2.x rows are carried over from Vantage's 2025 table; not re-read for this date.
    as_of: "2025 (carried over, not re-checked)",
  },
  github: {
    name: "GitHub Copilot (models served in Copilot, list prices per provider)",
    urls: ["https://docs.github.com/en/copilot/reference/copilot-billing/models-and-pricing"],
    as_of: PRICE_TABLE_DATE,
  },
};

// Anthropic bills 5-minute cache writes at 1.25× input and 1-hour writes at 2× input; reads
// vary by model (0.1× on most, less on the newest), so each row names all five rates.
function anthropic(
  input: number,
  output: number,
  cacheRead: number,
  extra: Partial<ModelPrice> = {},
): ModelPrice {
  return {
    input,
    output,
    cache_read: cacheRead,
    cache_write: input * 1.25,
    cache_write_1h: input * 2,
    web_search_per_1k: 10,
    source: "anthropic",
    ...extra,
  };
}

// OpenAI bills no cache writes before the GPT-5.6 families (1.25× input there).
function openai(
  input: number,
  cached: number,
  output: number,
  extra: Partial<ModelPrice> = {},
): ModelPrice {
  return { input, output, cache_read: cached, cache_write: 0, source: "openai", ...extra };
}

// OpenAI's long-context rule (GPT-5.4 on): above the threshold the whole call costs 2× input
// (cached input and cache writes too) and 1.5× output.
function openaiLong(above: number, price: ModelPrice): ModelPrice {
  return {
    ...price,
    long_context: {
      above,
      input: price.input * 2,
      output: price.output * 1.5,
      cache_read: price.cache_read * 2,
      cache_write: price.cache_write * 2,
    },
  };
}

function listed(input: number, cached: number, output: number): ModelPrice {
  return { input, output, cache_read: cached, cache_write: 0, source: "github" };
}

function google(input: number, cached: number, output: number): ModelPrice {
  return { input, output, cache_read: cached, cache_write: 0, source: "google" };
}

// Sonnet 4 and 4.5 with the 1M-token window: above 200K prompt tokens the call costs 2× input
// (cache rates follow input) and 1.5× output. Later models bill their whole window flat.
const SONNET_4_LONG = { above: 200_000, input: 6, output: 22.5, cache_read: 0.6 } as const;

/** The default price table, keyed by normalized model id (prefix on whole name segments). */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic (Claude Code, and Claude models in Copilot CLI and OpenClaw)
  "claude-fable-5-1": anthropic(10, 50, 0.25, { us_only: 1.1 }),
  "claude-mythos-5-1": anthropic(10, 50, 0.25, { us_only: 1.1 }),
  "claude-fable-5": anthropic(10, 50, 1, { us_only: 1.1 }),
  "claude-mythos-5": anthropic(10, 50, 1, { us_only: 1.1 }),
  "claude-opus-5-5": anthropic(4, 20, 0.2, { fast: 2, us_only: 1.1 }),
  "claude-opus-5": anthropic(5, 25, 0.5, { fast: 2, us_only: 1.1 }),
  "claude-opus-4-8": anthropic(5, 25, 0.5, { fast: 2, us_only: 1.1 }),
  "claude-opus-4-7": anthropic(5, 25, 0.5, { fast: 6, us_only: 1.1 }),
  "claude-opus-4-6": anthropic(5, 25, 0.5, { fast: 6, us_only: 1.1 }),
  "claude-opus-4-5": anthropic(5, 25, 0.5),
  "claude-opus-4-1": anthropic(15, 75, 1.5),
  "claude-opus-4": anthropic(15, 75, 1.5),
  "claude-sonnet-5-5": anthropic(2, 10, 0.1, { us_only: 1.1 }),
  "claude-sonnet-5": anthropic(2, 10, 0.2, { us_only: 1.1 }),
  "claude-sonnet-4-6": anthropic(3, 15, 0.3, { us_only: 1.1 }),
  "claude-sonnet-4-5": anthropic(3, 15, 0.3, {
    long_context: { ...SONNET_4_LONG, cache_write: 7.5, cache_write_1h: 12 },
  }),
  "claude-sonnet-4": anthropic(3, 15, 0.3, {
    long_context: { ...SONNET_4_LONG, cache_write: 7.5, cache_write_1h: 12 },
  }),
  "claude-3-7-sonnet": anthropic(3, 15, 0.3),
  "claude-3-5-sonnet": anthropic(3, 15, 0.3),
  // Haiku 5.5 is priced by prompt length: above 100K prompt tokens, 5× every rate.
  "claude-haiku-5-5": anthropic(0.1, 0.5, 0.01, {
    us_only: 1.1,
    long_context: {
      above: 100_000,
      input: 0.5,
      output: 2.5,
      cache_read: 0.05,
      cache_write: 0.625,
      cache_write_1h: 1,
    },
  }),
  "claude-haiku-4-5": anthropic(1, 5, 0.1),
  "claude-3-5-haiku": anthropic(0.8, 4, 0.08),
  "claude-3-opus": anthropic(15, 75, 1.5),
  "claude-3-haiku": { ...anthropic(0.25, 1.25, 0.03), cache_write: 0.3, cache_write_1h: 0.5 },

  // OpenAI (Codex, and OpenAI models in Copilot CLI and OpenClaw)
  "gpt-6.1-sol": openaiLong(272_000, openai(2, 0.1, 10)),
  "gpt-6-sol": openaiLong(272_000, openai(2, 0.2, 10, { cache_write: 2.5 })),
  "gpt-6-luna": openai(0.1, 0.01, 0.5, { cache_write: 0.125 }),
  "gpt-5.6": openaiLong(272_000, openai(4, 0.4, 20, { cache_write: 5 })), // alias of Sol
  "gpt-5.6-sol": openaiLong(272_000, openai(4, 0.4, 20, { cache_write: 5 })),
  "gpt-5.6-terra": openaiLong(272_000, openai(2, 0.2, 12, { cache_write: 2.5 })),
  "gpt-5.6-luna": openaiLong(200_000, openai(0.2, 0.02, 1.2, { cache_write: 0.25 })),
  "gpt-5.5": openaiLong(272_000, openai(5, 0.5, 30)),
  "gpt-5.5-pro": openai(30, 30, 180),
  "gpt-5.4": openaiLong(272_000, openai(2.5, 0.25, 15)),
  "gpt-5.4-mini": openai(0.75, 0.075, 4.5),
  "gpt-5.4-nano": openai(0.2, 0.02, 1.25),
  "gpt-5.4-pro": openai(30, 30, 180),
  "gpt-5.3-codex": openai(1.75, 0.175, 14),
  "gpt-5.2": openai(1.75, 0.175, 14),
  "gpt-5.2-codex": openai(1.75, 0.175, 14),
  "gpt-5.2-pro": openai(21, 21, 168),
  "gpt-5.1": openai(1.25, 0.125, 10),
  "gpt-5.1-codex": openai(1.25, 0.125, 10),
  "gpt-5.1-codex-max": openai(1.25, 0.125, 10),
  "gpt-5.1-codex-mini": openai(0.25, 0.025, 2),
  "gpt-5": openai(1.25, 0.125, 10),
  "gpt-5-codex": openai(1.25, 0.125, 10),
  "gpt-5-mini": openai(0.25, 0.025, 2),
  "gpt-5-nano": openai(0.05, 0.005, 0.4),
  "gpt-5-pro": openai(15, 15, 120),
  "gpt-4.1": openai(2, 0.5, 8),
  "gpt-4.1-mini": openai(0.4, 0.1, 1.6),
  "gpt-4.1-nano": openai(0.1, 0.025, 0.4),
  "gpt-4o": openai(2.5, 1.25, 10),
  "gpt-4o-mini": openai(0.15, 0.075, 0.6),
  "o1": openai(15, 7.5, 60),
  "o3": openai(2, 0.5, 8),
  "o3-pro": openai(20, 20, 80),
  "o3-mini": openai(1.1, 0.55, 4.4),
  "o4-mini": openai(1.1, 0.275, 4.4),
  "codex-mini": openai(1.5, 0.375, 6),

  // Google, xAI and the other models GitHub serves in Copilot (Copilot CLI, OpenClaw)
  "gemini-3.7-flash": listed(0.75, 0.075, 3.75),
  "gemini-3.6-flash": listed(0.75, 0.075, 3.75),
  "gemini-3.5-flash": listed(1.5, 0.15, 9),
  "gemini-3.1-pro": {
    ...listed(2, 0.2, 12),
    long_context: { above: 200_000, input: 4, output: 18, cache_read: 0.4, cache_write: 0 },
  },
  "gemini-3-pro": {
    ...listed(2, 0.2, 12),
    long_context: { above: 200_000, input: 4, output: 18, cache_read: 0.4, cache_write: 0 },
  },
  "gemini-2.5-pro": google(1.25, 0.31, 10),
  "gemini-2.5-flash": google(0.3, 0.075, 2.5),
  "gemini-2.5-flash-lite": google(0.1, 0.025, 0.4),
  "gemini-2.0-flash": google(0.1, 0.025, 0.4),
  "grok-4.6": {
    ...listed(2, 0.5, 6),
    long_context: { above: 200_000, input: 4, output: 12, cache_read: 1, cache_write: 0 },
  },
  "grok-4.5": {
    ...listed(2, 0.5, 6),
    long_context: { above: 200_000, input: 4, output: 12, cache_read: 1, cache_write: 0 },
  },
  "raptor-mini": listed(0.25, 0.025, 2),
  "mai-code-1.1-flash": listed(0.2, 0.02, 1.2),
  "mai-code-1-flash": listed(0.75, 0.075, 4.5),
  "kimi-k3": listed(3, 0.3, 15),
  "kimi-k2.7-code": listed(0.95, 0.19, 4),
};
