/**
 * Text embeddings for vector search.
 *
 * {@linkcode HashedEmbedder} works offline with nothing to download: it hashes word unigrams,
 * word bigrams and character 3-5-grams into a fixed-size signed vector (the "hashing trick").
 * It captures lexical and sub-word similarity (shared identifiers, typos, inflections), not
 * paraphrase. {@linkcode HttpEmbedder} calls a real model behind an OpenAI-compatible or Ollama
 * endpoint when one is configured.
 *
 * @module
 */

/** Anything that turns texts into fixed-size vectors. */
export interface Embedder {
  /** Stable identifier of model and settings; vectors from different ids must not be compared. */
  readonly id: string;
  /** Vector length (0 while an {@linkcode HttpEmbedder} has not yet learned it). */
  readonly dimensions: number;
  /** Embeds each text; the result has one vector per input, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * Common English function words, left out of word features because they would make every pair
 * of English texts look alike.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being " +
    "below between both but by can could did do does doing down during each few for from " +
    "further had has have having he her here hers herself him himself his how i if in into is " +
    "it its itself just me more most my myself no nor not now of off on once only or other our " +
    "ours ourselves out over own same she should so some such than that the their theirs them " +
    "themselves then there these they this those through to too under until up very was we " +
    "were what when where which while who whom why will with would you your yours yourself " +
    "yourselves also may might must shall us let"
  ).split(" "),
);

/** Options for {@linkcode HashedEmbedder}. */
export interface HashedEmbedderOptions {
  /** Vector length. Default 384. */
  dimensions?: number;
}

// FNV-1a 32-bit constants.
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

// Each feature family hashes from its own seed so "ab" the word and "ab" the n-gram differ.
const SEED_WORD = fnvString(FNV_OFFSET, "w:");
const SEED_BIGRAM = fnvString(FNV_OFFSET, "b:");
const SEED_CHARGRAM = fnvString(FNV_OFFSET, "c:");

// Whole words are the strongest evidence; n-grams are many per word, so each weighs less.
const WEIGHT_WORD = 1.0;
const WEIGHT_BIGRAM = 0.7;
const WEIGHT_CHARGRAM = 0.35;

function fnvString(seed: number, text: string): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  }
  return hash;
}

// FNV-1a alone leaves low bits poorly mixed for short keys; a final avalanche step spreads them
// before the value is reduced to a bucket index and a sign.
function finalize(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return h ^ (h >>> 16);
}

const WORD_RE = /[\p{L}\p{N}_]+/gu;

/**
 * Splits text into lowercase word tokens for feature hashing. Identifiers are also split into
 * their parts (`getUserName` and `get_user_name` both add `get`, `user`, `name`) so code and
 * prose that name the same things meet.
 *
 * @example
 * ```ts
 * import { tokenizeWords } from "./embedder.ts";
 *
 * tokenizeWords("parseHTTPRequest(x)"); // ["parsehttprequest", "parse", "http", "request", "x"]
 * ```
 */
export function tokenizeWords(text: string): string[] {
  // (Embedding counts ASCII text with a one-pass scan that finds these same words; see
  // WordCounter.)
  const out: string[] = [];
  for (const match of text.matchAll(WORD_RE)) {
    const raw = match[0];
    const lower = raw.toLowerCase();
    out.push(lower);
    // Only mixed-case or underscored tokens can have parts; skip the regex work otherwise.
    if (raw === lower && !raw.includes("_")) continue;
    const parts = identifierParts(raw);
    if (parts.length > 1) out.push(...parts);
  }
  return out;
}

/** The lowercase parts of an identifier: `parseHTTPRequest` gives parse, http, request. */
function identifierParts(raw: string): string[] {
  return raw
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[\s_]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase());
}

/**
 * Returns `vector` scaled to unit length, in place; a zero vector stays zero.
 *
 * @example
 * ```ts
 * import { normalizeL2 } from "./embedder.ts";
 *
 * normalizeL2(new Float32Array([3, 4])); // Float32Array [0.6, 0.8]
 * ```
 */
export function normalizeL2(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

/**
 * Cosine similarity in [-1, 1]; 0 when either vector is all zeros.
 *
 * @example
 * ```ts
 * import { cosine } from "./embedder.ts";
 *
 * cosine(new Float32Array([1, 0]), new Float32Array([1, 1])); // ≈ 0.7071
 * ```
 */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) {
    throw new RangeError(
      `Cannot compare vectors of different lengths (${a.length} and ${b.length})`,
    );
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  if (normA === 0 || normB === 0) return 0;
  return dot / Math.sqrt(normA * normB);
}

/**
 * Serializes a vector as little-endian float32 bytes, the layout to keep in a database BLOB.
 *
 * @example
 * ```ts
 * import { vectorFromBytes, vectorToBytes } from "./embedder.ts";
 *
 * vectorFromBytes(vectorToBytes(new Float32Array([0.5, -1]))); // Float32Array [0.5, -1]
 * ```
 */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  // On a little-endian machine (all Deno targets) the array's own bytes are the layout.
  if (LITTLE_ENDIAN) {
    return new Uint8Array(
      vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
    );
  }
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i], true);
  return bytes;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads a vector written by {@linkcode vectorToBytes}; throws when the length is not a multiple
 * of 4.
 *
 * @example
 * ```ts
 * import { vectorFromBytes } from "./embedder.ts";
 *
 * vectorFromBytes(new Uint8Array([0, 0, 128, 63])); // Float32Array [1]
 * ```
 */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  if (bytes.length % 4 !== 0) {
    throw new RangeError(`Vector blob has ${bytes.length} bytes, not a multiple of 4`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/**
 * Training-free embedder built on feature hashing. Deterministic across runs and machines, so
 * vectors can be stored and compared later; the `id` names the scheme and dimension.
 *
 * Features: lowercase word unigrams, bigrams of consecutive non-stopwords, and character
 * 3-5-grams of each non-stopword with boundary marks. Each feature adds `weight · (1 + ln tf)` to one bucket with a
 * hash-chosen sign, then the vector is L2-normalized. Text with no words yields a zero vector.
 *
 * @example
 * ```ts
 * import { cosine, HashedEmbedder } from "./embedder.ts";
 *
 * const embedder = new HashedEmbedder();
 * const [a, b, c] = await embedder.embed([
 *   "open the sqlite database",
 *   "opening a SQLite database file",
 *   "render the dashboard chart",
 * ]);
 * console.log(cosine(a, b) > cosine(a, c)); // true
 * ```
 */
export class HashedEmbedder implements Embedder {
  /** Scheme and dimension, e.g. `hashed-v1-384`. */
  readonly id: string;
  /** Vector length. */
  readonly dimensions: number;
  // Scratch tables reused by every call; embedOne is synchronous, so calls never overlap.
  #words = new FeatureCounts();
  #bigrams = new FeatureCounts();
  #grams = new FeatureCounts();
  #counter = new WordCounter();

  /** Creates an embedder; `dimensions` must be an integer from 8 to 65536. */
  constructor(options: HashedEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? 384;
    if (!Number.isInteger(dimensions) || dimensions < 8 || dimensions > 65536) {
      throw new RangeError(`Invalid embedding dimensions ${dimensions} (expected 8 to 65536)`);
    }
    this.dimensions = dimensions;
    this.id = `hashed-v1-${dimensions}`;
  }

  /** Embeds each text (synchronous work; the promise is for the {@linkcode Embedder} contract). */
  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((text) => this.embedOne(text)));
  }

  /** Embeds one text synchronously. */
  embedOne(text: string): Float32Array {
    const words = this.#words;
    const bigrams = this.#bigrams;
    const grams = this.#grams;
    words.clear();
    bigrams.clear();
    grams.clear();
    // Words repeat a lot within one text; counting them first means each distinct word's
    // character n-grams are hashed once and added with the word's count. The words table
    // counts them: its slot remembers the word, and a different word with the same hash (all
    // but never) is counted aside.
    const counter = this.#counter;
    counter.reset(words, bigrams);
    if (/[\x80-\uffff]/.test(text)) {
      for (const word of tokenizeWords(text)) counter.word(word);
    } else {
      counter.asciiText(text);
    }
    const collided = counter.collided;
    for (let i = 0; i < words.size; i++) {
      const slot = words.live[i];
      addCharGrams(grams, words.labels[slot]!, words.tally[slot]);
    }
    for (const [word, times] of collided ?? []) addCharGrams(grams, word, times);

    const vector = new Float32Array(this.dimensions);
    words.addTo(vector, WEIGHT_WORD);
    bigrams.addTo(vector, WEIGHT_BIGRAM);
    grams.addTo(vector, WEIGHT_CHARGRAM);
    return normalizeL2(vector);
  }
}

// Stopwords by their word hash, for recognizing one in a text without cutting it out.
const STOPWORD_BY_HASH = stopwordsByHash();

function stopwordsByHash(): Map<number, string[]> {
  const byHash = new Map<number, string[]>();
  for (const word of STOPWORDS) {
    const hash = fnvString(SEED_WORD, word);
    byHash.set(hash, [...(byHash.get(hash) ?? []), word]);
  }
  return byHash;
}

// Identifier parts by identifier: the same names recur through a codebase.
const IDENTIFIER_PARTS: Map<string, string[]> = new Map();
const MAX_IDENTIFIER_PARTS = 50_000;

/** Whether `text[start, end)`, ASCII capitals lowered, spells `word`. */
function spellsLower(text: string, start: number, end: number, word: string): boolean {
  if (word.length !== end - start) return false;
  for (let k = 0; k < word.length; k++) {
    const c = text.charCodeAt(start + k);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== word.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * Counts a text's words and word pairs into the embedder's tables, in the
 * order {@linkcode tokenizeWords} gives them, stopwords left out. ASCII text
 * is read in one pass that hashes each word as it goes and compares it with
 * the word already counted under that hash, so a repeated word (most of
 * them) is never cut out of the text as a string of its own.
 */
class WordCounter {
  words: FeatureCounts = new FeatureCounts();
  bigrams: FeatureCounts = new FeatureCounts();
  /** Words whose hash another word already had (all but never), with their counts. */
  collided: Map<string, number> | undefined;
  #previous: number | undefined;

  reset(words: FeatureCounts, bigrams: FeatureCounts): void {
    this.words = words;
    this.bigrams = bigrams;
    this.collided = undefined;
    this.#previous = undefined;
  }

  /** Counts one lowercase word. */
  word(word: string): void {
    if (STOPWORDS.has(word)) return;
    const hash = fnvString(SEED_WORD, word);
    const words = this.words;
    const slot = words.add(hash, 1);
    if (words.created) {
      words.labels[slot] = word;
      words.tally[slot] = 1;
    } else if (words.labels[slot] === word) {
      words.tally[slot]++;
    } else {
      this.#collide(word);
    }
    this.#pair(hash);
  }

  /** Counts the words of an ASCII text (see {@linkcode tokenizeWords}). */
  asciiText(text: string): void {
    let start = -1;
    let capitals = false;
    let underscore = false;
    let hash = SEED_WORD;
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95) {
        if (start < 0) {
          start = i;
          capitals = false;
          underscore = false;
          hash = SEED_WORD;
        }
        if (c === 95) underscore = true;
        hash = Math.imul(hash ^ c, FNV_PRIME);
      } else if (c >= 65 && c <= 90) {
        if (start < 0) {
          start = i;
          capitals = false;
          underscore = false;
          hash = SEED_WORD;
        }
        capitals = true;
        hash = Math.imul(hash ^ (c + 32), FNV_PRIME);
      } else if (start >= 0) {
        this.#token(text, start, i, hash, capitals);
        if (capitals || underscore) this.#parts(text.slice(start, i));
        start = -1;
      }
    }
  }

  /** Counts the token `text[start, end)`, whose lowercase form hashes to `hash`. */
  #token(text: string, start: number, end: number, hash: number, capitals: boolean): void {
    const stopwords = STOPWORD_BY_HASH.get(hash);
    if (stopwords !== undefined) {
      for (const stopword of stopwords) if (spellsLower(text, start, end, stopword)) return;
    }
    const words = this.words;
    const slot = words.add(hash, 1);
    if (words.created) {
      const raw = text.slice(start, end);
      words.labels[slot] = capitals ? raw.toLowerCase() : raw;
      words.tally[slot] = 1;
    } else if (spellsLower(text, start, end, words.labels[slot]!)) {
      words.tally[slot]++;
    } else {
      const raw = text.slice(start, end);
      this.#collide(capitals ? raw.toLowerCase() : raw);
    }
    this.#pair(hash);
  }

  /** Counts an identifier's parts (`getUserName`: get, user, name) when it has several. */
  #parts(raw: string): void {
    let parts = IDENTIFIER_PARTS.get(raw);
    if (parts === undefined) {
      parts = identifierParts(raw);
      if (IDENTIFIER_PARTS.size >= MAX_IDENTIFIER_PARTS) IDENTIFIER_PARTS.clear();
      IDENTIFIER_PARTS.set(raw, parts);
    }
    if (parts.length > 1) { for (const part of parts) this.word(part); }
  }

  #collide(word: string): void {
    this.collided ??= new Map();
    this.collided.set(word, (this.collided.get(word) ?? 0) + 1);
  }

  #pair(hash: number): void {
    if (this.#previous !== undefined) {
      // Order matters ("index build" is not "build index"), so the pair hash is asymmetric.
      this.bigrams.add(
        Math.imul(Math.imul(this.#previous ^ SEED_BIGRAM, FNV_PRIME) ^ hash, FNV_PRIME),
        1,
      );
    }
    this.#previous = hash;
  }
}

let CHAR_SCRATCH = new Uint16Array(256);

function addCharGrams(grams: FeatureCounts, word: string, times: number): void {
  // Boundary marks (virtual "<" and ">") make prefixes and suffixes distinct features.
  const codes = CHAR_SCRATCH.length >= word.length + 2
    ? CHAR_SCRATCH
    : (CHAR_SCRATCH = new Uint16Array(word.length * 2 + 2));
  const last = word.length + 2;
  codes[0] = 60; // "<"
  for (let i = 0; i < word.length; i++) codes[i + 1] = word.charCodeAt(i);
  codes[last - 1] = 62; // ">"
  for (let start = 0; start + 3 <= last; start++) {
    let hash = SEED_CHARGRAM;
    const stop = Math.min(last, start + 5);
    for (let end = start; end < stop; end++) {
      hash = Math.imul(hash ^ codes[end], FNV_PRIME);
      if (end - start >= 2) grams.add(hash, times);
    }
  }
}

// Natural logs of the small counts nearly every feature has (the very values Math.log gives).
const LOG_SMALL = Float64Array.from({ length: 64 }, (_, n) => Math.log(n));

// Open-addressing hash → count table, cheaper than a Map<number, number> in the hot loop. It is
// reused across texts: a generation stamp marks live slots, so clearing costs nothing.
class FeatureCounts {
  keys: Int32Array = new Int32Array(1024);
  counts: Float64Array = new Float64Array(1024);
  stamps: Uint32Array = new Uint32Array(1024);
  // Live slots in insertion order, so reading out costs the number of features, not capacity.
  live: Int32Array = new Int32Array(512);
  generation = 1;
  size = 0;
  // The text each live slot was first added for, and how often that same text was added (the
  // words table uses these to count distinct words without a string-keyed map).
  labels: Array<string | undefined> = new Array(1024);
  tally: Float64Array = new Float64Array(1024);
  /** Whether the last `add` created its slot. */
  created = false;

  clear(): void {
    this.size = 0;
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  /** Adds `times` to `key`'s count; returns its slot. */
  add(key: number, times: number): number {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const stamps = this.stamps;
    const generation = this.generation;
    const mask = keys.length - 1;
    let slot = finalize(key) & mask;
    while (stamps[slot] === generation && keys[slot] !== key) slot = (slot + 1) & mask;
    if (stamps[slot] !== generation) {
      stamps[slot] = generation;
      keys[slot] = key;
      this.counts[slot] = times;
      this.live[this.size++] = slot;
      this.created = true;
    } else {
      this.counts[slot] += times;
      this.created = false;
    }
    return slot;
  }

  addTo(vector: Float32Array, weight: number): void {
    const dims = vector.length;
    const { keys, counts, live, size } = this;
    for (let i = 0; i < size; i++) {
      const slot = live[i];
      // A second, differently salted mix so bucket choice is independent of table position.
      const mixed = finalize(keys[slot] ^ 0x5bd1e995);
      // Sublinear tf: a word repeated 50 times should not drown every other feature.
      const count = counts[slot];
      const value = weight * (1 + (count < 64 ? LOG_SMALL[count] : Math.log(count)));
      const index = (mixed & 0x7fffffff) % dims;
      vector[index] += mixed < 0 ? -value : value;
    }
  }

  grow(): void {
    const { keys, counts, live, size, labels, tally } = this;
    const capacity = keys.length * 2;
    this.keys = new Int32Array(capacity);
    this.counts = new Float64Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.live = new Int32Array(capacity / 2);
    this.labels = new Array(capacity);
    this.tally = new Float64Array(capacity);
    this.generation = 1;
    this.size = 0;
    for (let i = 0; i < size; i++) {
      const slot = this.add(keys[live[i]], counts[live[i]]);
      this.labels[slot] = labels[live[i]];
      this.tally[slot] = tally[live[i]];
    }
  }
}

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
 * import { HttpEmbedder } from "./embedder.ts";
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
