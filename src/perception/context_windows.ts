/**
 * Context window sizes of the models coding agents use, so context pressure is measured against
 * the real limit (a 1M-token session at 160k is fine; a 200k session at 160k is not).
 *
 * Agents that report the window (Codex's `model_context_window`) should be believed over this
 * table; it is the fallback when they do not.
 *
 * @module
 */

/** What is known about a model's window. */
export interface ContextWindow {
  /** Input tokens the model accepts. */
  tokens: number;
  /** The model was found in the table (otherwise `tokens` is the fallback). */
  known: boolean;
}

/** Used for models not in the table. Most current coding models accept at least this. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

// First match wins. Ids are normalised first (lower case, provider prefixes and date/version
// suffixes do not matter because patterns match prefixes).
const WINDOWS: ReadonlyArray<[RegExp, number]> = [
  // Claude models run with the 1M-token beta are suffixed `[1m]` by Claude Code.
  [/\[1m\]|-1m$/, 1_000_000],
  [/^claude-/, 200_000],
  [/^gpt-5/, 272_000],
  [/^codex-/, 272_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^gpt-4/, 8_192],
  [/^o[134](-|$)/, 200_000],
  [/^gpt-oss/, 131_072],
  [/^gemini-/, 1_048_576],
  [/^deepseek/, 128_000],
  [/^qwen3-coder/, 262_144],
  [/^qwen/, 131_072],
  [/^kimi-k2/, 262_144],
  [/^glm-4\.[56]/, 200_000],
  [/^grok-(4|code)/, 256_000],
  [/^(devstral|codestral)/, 256_000],
  [/^mistral/, 128_000],
  [/^llama-?3/, 128_000],
];

/**
 * Normalises a model id as agents and gateways spell it: `anthropic/claude-…`,
 * `us.anthropic.claude-…-v1:0` (Bedrock), `claude-…@20250929` (Vertex).
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  const slash = id.lastIndexOf("/");
  if (slash !== -1) id = id.slice(slash + 1);
  id = id.replace(/^(?:(?:us|eu|apac|global)\.)?anthropic\./, "");
  return id;
}

/**
 * The context window of a model id.
 *
 * @example
 * ```ts
 * contextWindowFor("claude-sonnet-4-5-20250929");  // { tokens: 200000, known: true }
 * contextWindowFor("claude-sonnet-4-5[1m]");       // { tokens: 1000000, known: true }
 * contextWindowFor("my-local-model");              // { tokens: 200000, known: false }
 * ```
 */
export function contextWindowFor(model: string | undefined): ContextWindow {
  if (model === undefined || model.trim() === "") {
    return { tokens: DEFAULT_CONTEXT_WINDOW, known: false };
  }
  const id = normalizeModelId(model);
  for (const [pattern, tokens] of WINDOWS) if (pattern.test(id)) return { tokens, known: true };
  return { tokens: DEFAULT_CONTEXT_WINDOW, known: false };
}
