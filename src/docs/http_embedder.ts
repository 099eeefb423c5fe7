/**
 * The embedder that calls a real model over HTTP: an OpenAI-compatible
 * `POST /v1/embeddings` or Ollama's `POST /api/embed`.
 *
 * @module
 */
import { type Embedder, normalizeL2 } from "./embedder.ts";

/** Which HTTP embedding API an {@linkcode HttpEmbedder} speaks. */
export type HttpEmbeddingApi = "openai" | "ollama";

/** Options for {@linkcode HttpEmbedder}. */
export interface HttpEmbedderOptions {
  /**
   * Server base URL such as `http://127.0.0.1:11434` or `https://api.example.com/v1`; the API
   * path (`/v1/embeddings` or `/api/embed`) is appended unless already present.
   */
  url: string;
  /** Model name sent with each request. */
  model: string;
  /** Request and response format. Default `"openai"`. */
  api?: HttpEmbeddingApi;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Expected vector length; responses of another length are rejected. Learned when omitted. */
  dimensions?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per-request time limit in milliseconds. Default 60000. */
  timeoutMs?: number;
  /** Scale results to unit length so cosine equals dot product. Default true. */
  normalize?: boolean;
  /** Replacement for the global `fetch` (tests, proxies). */
  fetch?: typeof fetch;
}

function endpointFor(base: string, api: HttpEmbeddingApi): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new TypeError(`Invalid embedding server URL: ${JSON.stringify(base)}`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  if (api === "ollama") {
    url.pathname = path.endsWith("/api/embed") ? path : `${path}/api/embed`;
  } else if (path.endsWith("/embeddings")) {
    url.pathname = path;
  } else {
    url.pathname = path.endsWith("/v1") ? `${path}/embeddings` : `${path}/v1/embeddings`;
  }
  return url.href;
}

function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === "number");
}

/**
 * Embedder backed by an HTTP service: OpenAI-compatible `POST /v1/embeddings` (OpenAI, vLLM,
 * llama.cpp, LM Studio, …) or Ollama `POST /api/embed`. Inputs are sent in batches; errors name
 * the endpoint, the HTTP status and the start of the response body.
 *
 * @example
 * ```ts
 * import { HttpEmbedder } from "./http_embedder.ts";
 *
 * const embedder = new HttpEmbedder({
 *   url: "http://127.0.0.1:11434",
 *   api: "ollama",
 *   model: "nomic-embed-text",
 * });
 * const [vector] = await embedder.embed(["hello"]);
 * console.log(vector.length, embedder.dimensions);
 * ```
 */
export class HttpEmbedder implements Embedder {
  /** `<api>:<model>`, e.g. `ollama:nomic-embed-text`. */
  readonly id: string;
  /** Endpoint requests go to. */
  readonly endpoint: string;
  #options: HttpEmbedderOptions;
  #api: HttpEmbeddingApi;
  #dimensions: number;

  /** Validates the options; no request is made until {@linkcode HttpEmbedder.embed}. */
  constructor(options: HttpEmbedderOptions) {
    if (!options.model) throw new TypeError("HttpEmbedder needs a model name");
    const batchSize = options.batchSize ?? 64;
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`Invalid batchSize ${batchSize} (expected a positive integer)`);
    }
    this.#api = options.api ?? "openai";
    this.#options = options;
    this.#dimensions = options.dimensions ?? 0;
    this.endpoint = endpointFor(options.url, this.#api);
    this.id = `${this.#api}:${options.model}`;
  }

  /** Vector length: as configured, else as learned from the first response, else 0. */
  get dimensions(): number {
    return this.#dimensions;
  }

  /** Embeds the texts, `batchSize` per request. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const batchSize = this.#options.batchSize ?? 64;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      out.push(...await this.#request(texts.slice(i, i + batchSize)));
    }
    return out;
  }

  async #request(batch: string[]): Promise<Float32Array[]> {
    const { model, apiKey, timeoutMs = 60_000 } = this.#options;
    const doFetch = this.#options.fetch ?? fetch;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const body = this.#api === "ollama"
      ? { model, input: batch }
      : { model, input: batch, encoding_format: "float" };
    let response: Response;
    try {
      response = await doFetch(this.endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Embedding request to ${this.endpoint} failed: ${reason}`, { cause: error });
    }
    const raw = await response.text();
    if (!response.ok) {
      throw new Error(
        `Embedding request to ${this.endpoint} returned HTTP ${response.status}: ${
          raw.slice(0, 300)
        }`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error(`Embedding response from ${this.endpoint} is not JSON: ${raw.slice(0, 300)}`);
    }
    const vectors = this.#api === "ollama" ? this.#readOllama(parsed) : this.#readOpenAi(parsed);
    if (vectors.length !== batch.length) {
      throw new Error(
        `Embedding response from ${this.endpoint} has ${vectors.length} vectors for ${batch.length} inputs`,
      );
    }
    return vectors.map((values) => this.#toVector(values));
  }

  #readOpenAi(parsed: unknown): number[][] {
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) {
      throw new Error(`Embedding response from ${this.endpoint} lacks a "data" array`);
    }
    // The API allows results in any order; `index` says which input each belongs to.
    const items = data.map((item: unknown, position) => {
      const record = item as { embedding?: unknown; index?: unknown } | null;
      if (!record || !isNumberArray(record.embedding)) {
        throw new Error(
          `Embedding response from ${this.endpoint}: data[${position}].embedding is not a number array`,
        );
      }
      const index = typeof record.index === "number" ? record.index : position;
      return { index, embedding: record.embedding };
    });
    return items.sort((a, b) => a.index - b.index).map((item) => item.embedding);
  }

  #readOllama(parsed: unknown): number[][] {
    const embeddings = (parsed as { embeddings?: unknown } | null)?.embeddings;
    if (!Array.isArray(embeddings) || !embeddings.every(isNumberArray)) {
      throw new Error(
        `Embedding response from ${this.endpoint} lacks an "embeddings" array of number arrays`,
      );
    }
    return embeddings;
  }

  #toVector(values: number[]): Float32Array {
    if (this.#dimensions === 0) this.#dimensions = values.length;
    if (values.length !== this.#dimensions) {
      throw new Error(
        `Embedding from ${this.endpoint} has ${values.length} dimensions, expected ${this.#dimensions}`,
      );
    }
    const vector = Float32Array.from(values);
    return this.#options.normalize === false ? vector : normalizeL2(vector);
  }
}
