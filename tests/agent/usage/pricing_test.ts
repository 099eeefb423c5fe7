import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadPriceOverrides } from "../../../src/agent/usage/price_overrides.ts";
import {
  costOf,
  DEFAULT_PRICES,
  matchPrice,
  normalizeModelId,
  PRICE_SOURCES,
  priceCall,
  priceFor,
} from "../../../src/agent/usage/pricing.ts";

const NONE = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
const M = 1_000_000;

Deno.test("priceFor finds a model's row by the longest prefix on whole name segments", () => {
  assert.equal(priceFor("claude-sonnet-4-5-20250929")?.input, 3);
  assert.equal(priceFor("claude-opus-4-20250514")?.output, 75);
  assert.equal(priceFor("claude-opus-4-1-20250805")?.output, 75);
  assert.equal(priceFor("claude-opus-4-8")?.output, 25);
  assert.equal(priceFor("claude-opus-4-8[1m]")?.output, 25);
  assert.equal(priceFor("claude-opus-5-5")?.input, 4);
  assert.equal(priceFor("claude-sonnet-5-5")?.cache_read, 0.1);
  assert.equal(priceFor("claude-haiku-5-5")?.input, 0.1);
  assert.equal(priceFor("claude-fable-5-1")?.cache_read, 0.25);
  assert.equal(priceFor("claude-sonnet-4.5")?.input, 3);
  assert.equal(priceFor("anthropic/claude-haiku-4-5")?.input, 1);
  assert.equal(priceFor("us.anthropic.claude-opus-4-5-20251101-v1:0")?.input, 5);
  assert.equal(priceFor("gpt-5")?.input, 1.25);
  assert.equal(priceFor("gpt-5-codex")?.input, 1.25);
  assert.equal(priceFor("gpt-5-mini-2025-08-07")?.input, 0.25);
  assert.equal(priceFor("gpt-5.1-codex")?.output, 10);
  assert.equal(priceFor("gpt-5.3-codex")?.output, 14);
  assert.equal(priceFor("gpt-5.5")?.input, 5);
  assert.equal(priceFor("openai/gpt-5.4-mini")?.output, 4.5);
  assert.equal(priceFor("gpt-4o-mini")?.input, 0.15);
  assert.equal(priceFor("o3")?.input, 2);
  assert.equal(priceFor("o4-mini")?.cache_read, 0.275);
  assert.equal(priceFor("gemini-2.5-pro-preview")?.input, 1.25);
  assert.equal(priceFor("gemini-3-pro-preview")?.output, 12);
  // Whole segments only, and a further version number is another model.
  assert.equal(priceFor("gpt-50"), undefined);
  assert.equal(priceFor("o3x"), undefined);
  assert.equal(priceFor("llama-3-70b"), undefined);
  assert.equal(matchPrice("claude-opus-4-9")?.key, "claude-opus-4-8");
  assert.equal(normalizeModelId(" OpenAI/GPT-5 "), "gpt-5");
});

Deno.test("a version missing from the table is priced by its family's nearest older version", () => {
  const codex = matchPrice("gpt-5.7-codex");
  assert.equal(codex?.key, "gpt-5.3-codex");
  assert.equal(codex?.fallback, true);
  assert.equal(matchPrice("gpt-5.3-codex")?.fallback, false);
  assert.equal(matchPrice("gpt-5.2-codex-max")?.key, "gpt-5.2-codex", "a prefix wins first");
  assert.equal(matchPrice("claude-opus-4-9-20261201")?.key, "claude-opus-4-8");
  assert.equal(matchPrice("claude-sonnet-5-7")?.key, "claude-sonnet-5-5");
  assert.equal(matchPrice("gemini-3.8-flash")?.key, "gemini-3.7-flash");
  assert.equal(matchPrice("o5-mini"), undefined, "no o5 family: a new major version");
  // A new generation is not guessed: prices change between them.
  assert.equal(matchPrice("claude-opus-6"), undefined);
  assert.equal(matchPrice("gpt-7-codex"), undefined);
  assert.equal(matchPrice("my-local-llama"), undefined);
});

Deno.test("1-hour cache writes, long prompts, fast mode, US-only, batch and web searches change the price", () => {
  // Sonnet 4.6: 5-minute writes $3.75, 1-hour writes $6 per million.
  const writes = { ...NONE, cache_write_tokens: 2 * M, cache_write_1h_tokens: M };
  assert.equal(costOf(writes, "claude-sonnet-4-6"), 3.75 + 6);
  // Opus 4.5: input 5, output 25, reads 0.5, 5m 6.25, 1h 10.
  const call = {
    input_tokens: M,
    output_tokens: M,
    cache_read_tokens: M,
    cache_write_tokens: 2 * M,
    cache_write_1h_tokens: M,
  };
  assert.equal(costOf(call, "claude-opus-4-5"), 5 + 25 + 0.5 + 6.25 + 10);
  // Sonnet 4.5 above 200K prompt tokens: every token of the call at the long-context rates.
  const short = { ...NONE, input_tokens: 100_000, cache_read_tokens: 100_000, output_tokens: M };
  assert.equal(costOf(short, "claude-sonnet-4-5"), 0.3 + 0.03 + 15);
  const long = { ...short, cache_read_tokens: 100_001 };
  assert.equal(costOf(long, "claude-sonnet-4-5"), 0.6 + 0.0600006 + 22.5);
  // Sonnet 4.6 bills its whole window flat.
  assert.equal(costOf(long, "claude-sonnet-4-6"), 0.3 + 0.0300003 + 15);
  // Haiku 5.5 above 100K prompt tokens: 5× every rate.
  assert.equal(costOf({ ...NONE, input_tokens: 100_000 }, "claude-haiku-5-5"), 0.01);
  assert.equal(costOf({ ...NONE, input_tokens: 100_001 }, "claude-haiku-5-5"), 0.0500005);
  // GPT-5.5 above 272K input: 2× input, 1.5× output.
  assert.equal(costOf({ ...NONE, input_tokens: 300_000, output_tokens: M }, "gpt-5.5"), 3 + 45);
  const input = { ...NONE, input_tokens: M };
  assert.equal(costOf({ ...input, speed: "fast" }, "claude-opus-4-6"), 30);
  assert.equal(costOf({ ...input, speed: "fast" }, "claude-opus-4-8"), 10);
  assert.equal(costOf({ ...input, speed: "standard" }, "claude-opus-4-6"), 5);
  assert.equal(costOf(input, "claude-opus-4.6-fast"), 30, "fast mode named in the model id");
  // A record summing 10 calls (Copilot's totals): the average prompt decides the tier.
  const summed = { ...NONE, input_tokens: 1_500_000, calls: 10 };
  assert.equal(costOf(summed, "claude-sonnet-4-5"), 4.5);
  assert.equal(costOf({ ...summed, calls: 5 }, "claude-sonnet-4-5"), 9);
  assert.equal(costOf({ ...input, inference_geo: "us" }, "claude-opus-4-6"), 5.5);
  assert.equal(costOf({ ...input, inference_geo: "global" }, "claude-opus-4-6"), 5);
  assert.equal(costOf({ ...input, service_tier: "batch" }, "claude-sonnet-4-6"), 1.5);
  assert.equal(costOf({ ...input, service_tier: "priority" }, "claude-sonnet-4-6"), 3);
  assert.equal(costOf({ ...NONE, web_search_requests: 3 }, "claude-sonnet-4-6"), 0.03);
  // OpenAI counts no cache writes before GPT-5.6; GPT-5.6 Sol bills them at 1.25× input.
  assert.equal(costOf({ ...NONE, cache_write_tokens: M }, "gpt-5.3-codex"), 0);
  assert.equal(costOf({ ...NONE, cache_write_tokens: 200_000 }, "gpt-5.6-sol"), 1);
});

Deno.test("unknown models have no cost, and the user's overrides win", () => {
  const usage = {
    input_tokens: M,
    output_tokens: 100_000,
    cache_read_tokens: 2 * M,
    cache_write_tokens: 400_000,
  };
  // 3 + 1.5 + 0.6 + 1.5
  assert.equal(costOf(usage, "claude-sonnet-4-6"), 6.6);
  // 1.25 + 1 + 0.25 + 0
  assert.equal(costOf(usage, "gpt-5-codex"), 2.5);
  assert.equal(costOf(usage, "my-local-model"), undefined);
  assert.equal(costOf(usage, undefined), undefined);
  assert.equal(priceCall(usage, ""), undefined);
  const overrides = { "my-local": { input: 0, output: 0, cache_read: 0, cache_write: 0 } };
  assert.equal(costOf(usage, "my-local-model", overrides), 0);
  assert.equal(priceCall(usage, "my-local-model", overrides)?.match.table, "override");
  const cheaper = { "claude-sonnet-4-6": { input: 1, output: 1, cache_read: 0, cache_write: 0 } };
  assert.equal(costOf(usage, "claude-sonnet-4-6-20260217", cheaper), 1.1);
  // An override takes part in the family fallback too, ahead of the table's row of that version.
  const newer = { "claude-opus-4-8": { input: 1, output: 1, cache_read: 0, cache_write: 0 } };
  assert.equal(matchPrice("claude-opus-4-9", newer)?.table, "override");
});

Deno.test("every row names its source, and the sources name pages and a date", () => {
  for (const [key, price] of Object.entries(DEFAULT_PRICES)) {
    assert.ok(price.source !== undefined && PRICE_SOURCES[price.source] !== undefined, key);
    assert.ok(price.input >= 0 && price.output >= price.input * 0.5, key);
  }
  for (const source of Object.values(PRICE_SOURCES)) {
    assert.ok(source.urls.length > 0 && source.urls.every((u) => u.startsWith("https://")));
    assert.match(source.as_of, /^\d{4}/);
  }
});

Deno.test("pricing.json: optional fields are read, a wrong one is named", () => {
  const home = mkdtempSync("/tmp/vantage-pricing-");
  try {
    assert.deepEqual(loadPriceOverrides(home), {});
    writeFileSync(
      join(home, "pricing.json"),
      JSON.stringify({
        "my-llm": {
          input: 1,
          output: 2,
          cache_read: 0.1,
          cache_write: 1.25,
          cache_write_1h: 2,
          fast: 3,
          web_search_per_1k: 5,
          long_context: { above: 1000, input: 2, output: 4, cache_read: 0.2, cache_write: 2.5 },
        },
      }),
    );
    const prices = loadPriceOverrides(home);
    assert.equal(prices["my-llm"].cache_write_1h, 2);
    assert.equal(prices["my-llm"].long_context?.above, 1000);
    assert.equal(
      costOf({ ...NONE, input_tokens: 2000, speed: "fast" }, "my-llm-7b", prices),
      2000 * 2 * 3 / M,
    );
    writeFileSync(join(home, "pricing.json"), '{"x": {"input": 1, "output": "2"}}');
    assert.throws(() => loadPriceOverrides(home), /'x' needs a number ≥ 0 for 'output'/);
    writeFileSync(
      join(home, "pricing.json"),
      '{"x": {"input": 1, "output": 2, "cache_read": 0, "cache_write": 0, "fast": -1}}',
    );
    assert.throws(() => loadPriceOverrides(home), /'fast' must be a number ≥ 0/);
    writeFileSync(join(home, "pricing.json"), "{oops");
    assert.throws(() => loadPriceOverrides(home), /pricing\.json is not valid JSON/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
