/**
 * A small in-memory BM25F ranker: each document has weighted fields whose
 * term frequencies are combined before saturation, so a word in an
 * operation's name counts for more than the same word deep in a parameter
 * description.
 *
 * @module
 */
import { tokenize } from "./tokenize.ts";

/** One document to index: a key and its fields' texts. */
export interface Bm25Document {
  /** The document's key, returned in results. */
  key: string;
  /** Field name → text. */
  fields: Record<string, string>;
}

/** One ranked hit. */
export interface Bm25Hit {
  /** The matched document's key. */
  key: string;
  /** Its BM25F score (higher is better). */
  score: number;
}

/** Tuning of the ranker. */
export interface Bm25Options {
  /** Field name → weight (default 1 for unnamed fields). */
  weights?: Record<string, number>;
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Length normalisation (default 0.75). */
  b?: number;
}

interface IndexedDocument {
  key: string;
  length: number;
  frequencies: Map<string, number>;
}

/**
 * A BM25F index over a fixed set of documents.
 *
 * @example
 * ```ts
 * import { Bm25Index } from "./bm25.ts";
 * const index = new Bm25Index([
 *   { key: "a", fields: { name: "get_session_state", text: "state of one session" } },
 *   { key: "b", fields: { name: "exec_query", text: "run one SELECT" } },
 * ], { weights: { name: 3 } });
 * index.search("session")[0].key; // "a"
 * ```
 */
export class Bm25Index {
  #documents: IndexedDocument[] = [];
  #documentFrequency = new Map<string, number>();
  #averageLength = 0;
  #k1: number;
  #b: number;

  /** Indexes `documents` once. */
  constructor(documents: readonly Bm25Document[], options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2;
    this.#b = options.b ?? 0.75;
    const weights = options.weights ?? {};
    let totalLength = 0;
    for (const document of documents) {
      const frequencies = new Map<string, number>();
      let length = 0;
      for (const [field, text] of Object.entries(document.fields)) {
        const weight = weights[field] ?? 1;
        for (const token of tokenize(text)) {
          frequencies.set(token, (frequencies.get(token) ?? 0) + weight);
          length += weight;
        }
      }
      for (const token of frequencies.keys()) {
        this.#documentFrequency.set(token, (this.#documentFrequency.get(token) ?? 0) + 1);
      }
      totalLength += length;
      this.#documents.push({ key: document.key, length, frequencies });
    }
    this.#averageLength = documents.length === 0 ? 0 : totalLength / documents.length;
  }

  /**
   * Ranks the documents that `accept` lets through (all by default) for
   * `query`, best first; documents with no query term are left out.
   */
  search(query: string, accept: (key: string) => boolean = () => true): Bm25Hit[] {
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0) return [];
    const count = this.#documents.length;
    const hits: Bm25Hit[] = [];
    for (const document of this.#documents) {
      if (!accept(document.key)) continue;
      let score = 0;
      for (const term of terms) {
        const frequency = matchFrequency(document.frequencies, term);
        if (frequency === 0) continue;
        const df = this.#documentFrequency.get(term) ?? 1;
        const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
        const norm = 1 - this.#b + this.#b * (document.length / (this.#averageLength || 1));
        score += idf * (frequency * (this.#k1 + 1)) / (frequency + this.#k1 * norm);
      }
      if (score > 0) hits.push({ key: document.key, score });
    }
    hits.sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    return hits;
  }
}

/**
 * The weighted frequency of `term`, counting a query word that is a prefix of
 * an indexed word at half weight, so "sess" or "transcripts" still find
 * their operation.
 */
function matchFrequency(frequencies: Map<string, number>, term: string): number {
  const exact = frequencies.get(term);
  if (exact !== undefined) return exact;
  if (term.length < 3) return 0;
  let partial = 0;
  for (const [token, frequency] of frequencies) {
    if (token.startsWith(term) || (token.length >= 4 && term.startsWith(token))) {
      partial = Math.max(partial, frequency * 0.5);
    }
  }
  return partial;
}
