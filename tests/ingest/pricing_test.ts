import assert from "node:assert/strict";
import { costOf, normalizeModelId, priceFor } from "../../src/ingest/pricing.ts";

Deno.test("priceFor matches model families by longest prefix", () => {
  assert.equal(priceFor("claude-sonnet-4-5-20250929")?.input, 3);
  assert.equal(priceFor("claude-opus-4-20250514")?.output, 75);
  assert.equal(priceFor("claude-opus-4-1-20250805")?.output, 75);
  assert.equal(priceFor("claude-opus-4-8")?.output, 25);
  assert.equal(priceFor("claude-opus-4-8[1m]")?.output, 25);
  assert.equal(priceFor("claude-sonnet-4.5")?.input, 3);
  assert.equal(priceFor("anthropic/claude-haiku-4-5")?.input, 1);
  assert.equal(priceFor("gpt-5")?.input, 1.25);
  assert.equal(priceFor("gpt-5-codex")?.input, 1.25);
  assert.equal(priceFor("gpt-5-mini-2025-08-07")?.input, 0.25);
  assert.equal(priceFor("gpt-5.1-codex")?.output, 10);
  assert.equal(priceFor("gpt-4o-mini")?.input, 0.15);
  assert.equal(priceFor("o3")?.input, 2);
  assert.equal(priceFor("gemini-2.5-pro-preview")?.input, 1.25);
  assert.equal(priceFor("gpt-50"), undefined);
  assert.equal(priceFor("o3x"), undefined);
  assert.equal(priceFor("llama-3-70b"), undefined);
  assert.equal(normalizeModelId(" OpenAI/GPT-5 "), "gpt-5");
});

Deno.test("costOf adds input, output and cache tokens; unknown models have no cost", () => {
  const usage = {
    input_tokens: 1_000_000,
    output_tokens: 100_000,
    cache_read_tokens: 2_000_000,
    cache_write_tokens: 400_000,
  };
  // 3 + 1.5 + 0.6 + 1.5
  assert.equal(costOf(usage, "claude-sonnet-4-5"), 6.6);
  // 1.25 + 1 + 0.25 + 0
  assert.equal(costOf(usage, "gpt-5-codex"), 2.5);
  assert.equal(costOf(usage, "my-local-model"), undefined);
  assert.equal(costOf(usage, undefined), undefined);
  const overrides = { "my-local": { input: 0, output: 0, cache_read: 0, cache_write: 0 } };
  assert.equal(costOf(usage, "my-local-model", overrides), 0);
  const cheaper = { "claude-sonnet-4": { input: 1, output: 1, cache_read: 0, cache_write: 0 } };
  assert.equal(costOf(usage, "claude-sonnet-4-5", cheaper), 1.1);
});
