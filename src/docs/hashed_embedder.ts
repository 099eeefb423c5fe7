/**
 * The offline embedder: it hashes word unigrams, word bigrams and character 3-5-grams into a
 * fixed-size signed vector (the "hashing trick"). It captures lexical and sub-word similarity
 * (shared identifiers, typos, inflections), not paraphrase.
 *
 * @module
 */
import { type Embedder, normalizeL2 } from "./embedder.ts";

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
 * import { tokenizeWords } from "./hashed_embedder.ts";
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
 * Training-free embedder built on feature hashing. Deterministic across runs and machines, so
 * vectors can be stored and compared later; the `id` names the scheme and dimension.
 *
 * Features: lowercase word unigrams, bigrams of consecutive non-stopwords, and character
 * 3-5-grams of each non-stopword with boundary marks. Each feature adds `weight · (1 + ln tf)` to one bucket with a
 * hash-chosen sign, then the vector is L2-normalized. Text with no words yields a zero vector.
 *
 * @example
 * ```ts
 * import { cosine } from "./embedder.ts";
 * import { HashedEmbedder } from "./hashed_embedder.ts";
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
