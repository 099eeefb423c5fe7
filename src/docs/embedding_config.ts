/**
 * Which embedder the document store uses: the built-in hashed n-gram
 * embedder (offline, deterministic, fast), or a real model behind an HTTP
 * endpoint when `VANTAGE_EMBEDDINGS_URL` is set (`VANTAGE_EMBEDDINGS_MODEL`,
 * `VANTAGE_EMBEDDINGS_API=openai|ollama`, optional `VANTAGE_EMBEDDINGS_KEY`).
 *
 * @module
 */
import { readEnv } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import type { Embedder } from "./embedder.ts";
import { HashedEmbedder } from "./hashed_embedder.ts";
import { HttpEmbedder } from "./http_embedder.ts";

let cached: { key: string; embedder: Embedder } | undefined;

/**
 * The embedder configured by the environment, built once per configuration.
 *
 * @example
 * ```ts
 * import { configuredEmbedder } from "./embedding_config.ts";
 * configuredEmbedder().id; // "hashed-v1-384" unless VANTAGE_EMBEDDINGS_URL is set
 * ```
 */
export function configuredEmbedder(): Embedder {
  const url = readEnv("VANTAGE_EMBEDDINGS_URL");
  const model = readEnv("VANTAGE_EMBEDDINGS_MODEL");
  const api = readEnv("VANTAGE_EMBEDDINGS_API") ?? "openai";
  const key = `${url ?? ""}\u0000${model ?? ""}\u0000${api}`;
  if (cached !== undefined && cached.key === key) return cached.embedder;
  let embedder: Embedder;
  if (url === undefined) {
    embedder = new HashedEmbedder();
  } else {
    if (model === undefined) {
      throw new VantageError(
        "invalid_arguments",
        "VANTAGE_EMBEDDINGS_URL is set but VANTAGE_EMBEDDINGS_MODEL is not; name the model to use",
      );
    }
    if (api !== "openai" && api !== "ollama") {
      throw new VantageError(
        "invalid_arguments",
        `VANTAGE_EMBEDDINGS_API must be 'openai' or 'ollama'; got '${api}'`,
      );
    }
    embedder = new HttpEmbedder({ url, model, api, apiKey: readEnv("VANTAGE_EMBEDDINGS_KEY") });
  }
  cached = { key, embedder };
  return embedder;
}

/** The synchronous embedding function of an embedder that has one (the hashed embedder). */
export function syncEmbedding(embedder: Embedder): ((text: string) => Float32Array) | undefined {
  return embedder instanceof HashedEmbedder ? (text) => embedder.embedOne(text) : undefined;
}
