/**
 * Document search in four modes. `keyword`: FTS5 BM25 over title, path and
 * body, title and path weighted higher. `fuzzy`: each query word widened to
 * vocabulary words within a trigram similarity, then BM25. `semantic`:
 * cosine over embedded pieces of each document. `hybrid` (the default):
 * reciprocal-rank fusion of keyword and semantic (plus fuzzy when enabled).
 * The fusion constants were tuned on the Cranfield collection; see
 * `scripts/bench/docs.ts`.
 *
 * A search writes nothing: it runs under a read grant. Documents without
 * stored vectors are embedded for the one search (`unstored_vectors.ts`),
 * and index changes a stopped process left queued are reported, not
 * applied; the write paths store both (`search_upkeep.ts`).
 *
 * The modes and the fusion ({@linkcode rankWith}) are written once for every
 * backend; SQLite's legs read its index file and sealed vector files here, a
 * database server's are in `server_search/server_ranking.ts`.
 *
 * @module
 */
import { type DatabaseSync, storeFailure } from "../store/database.ts";
import {
  type DocumentFilter,
  filteredIds,
  isNarrowFilter,
} from "../store/docs/document_listing.ts";
import {
  type ColumnWeights,
  docsIndex,
  docsIndexFile,
  matchFts,
  termsSharingTrigrams,
} from "../store/docs/search_index.ts";
import type { Embedder } from "./embedder.ts";
import { syncEmbedding } from "./embedding_config.ts";
import { abandonedIndexChanges } from "./search_upkeep.ts";
import {
  anyTermExpression,
  queryKeywords,
  sharedTrigramExpression,
  trigramSimilarity,
} from "./search_terms.ts";
import {
  rankUnstored,
  SEARCH_EMBED_BUDGET_MS,
  type UnstoredVectors,
  unstoredVectors,
} from "./unstored_vectors.ts";
import { VectorIndex } from "./vector_index.ts";

/** The search modes. */
export type SearchMode = "hybrid" | "keyword" | "semantic" | "fuzzy";

/** How the legs of a search are weighted and fused. */
export interface FusionSettings {
  /** Reciprocal-rank constant: larger flattens the difference between ranks. */
  k: number;
  /** Weight of the keyword ranking in hybrid mode. */
  keywordWeight: number;
  /** Weight of the semantic ranking in hybrid mode. */
  semanticWeight: number;
  /** Weight of the fuzzy ranking in hybrid mode (when `fuzzy` is on). */
  fuzzyWeight: number;
  /** Candidates each leg contributes. */
  depth: number;
  /** BM25 column weights. */
  columns: ColumnWeights;
}

/** The shipped fusion settings (tuned on Cranfield; see `scripts/bench/docs.ts`). */
export const DEFAULT_FUSION: FusionSettings = {
  // A plateau on Cranfield spans k 10–20 and semantic weight 0.2–0.3 (nDCG@10 0.383–0.386);
  // the middle of it is shipped rather than its single best point. The hashed embedder is
  // lexical, so it adds a nudge to BM25 rather than an equal vote.
  k: 15,
  keywordWeight: 1,
  semanticWeight: 0.3,
  fuzzyWeight: 0.1,
  depth: 100,
  columns: { title: 4, path: 2, body: 1 },
};

/** One search. */
export interface SearchRequest {
  /** The query text. */
  query: string;
  /** Which mode. */
  mode: SearchMode;
  /** Most documents to return. */
  limit: number;
  /** Widen query words to similar vocabulary words. */
  fuzzy: boolean;
  /** Least trigram similarity for a fuzzy match (0–1). */
  similarity: number;
  /** Which documents may be returned. */
  filter: DocumentFilter;
  /** The embedder. */
  embedder: Embedder;
  /** Overrides of {@linkcode DEFAULT_FUSION}. */
  fusion?: Partial<FusionSettings>;
}

/** A ranked document. */
export interface RankedDocument {
  /** Document id. */
  id: number;
  /** Score in the mode's own scale (BM25, cosine, or fused). */
  score: number;
}

/** What {@linkcode rankDocuments} found. */
export interface Ranking {
  /** Best first, at most `limit`. */
  hits: RankedDocument[];
  /** Candidates found before the limit (bounded by the search depth). */
  total: number;
  /**
   * What the results may lack: a leg that could not run (an unreachable
   * embedding service) when hybrid went on without it, documents the
   * keyword index or the stored vectors do not cover yet.
   */
  warnings?: string[];
}

/**
 * Ranks documents for a query.
 *
 * @example
 * ```ts ignore
 * const { hits } = await rankDocuments(db, {
 *   query: "refresh token", mode: "hybrid", limit: 10, fuzzy: true, similarity: 0.7,
 *   filter: {}, embedder: new HashedEmbedder(),
 * });
 * ```
 */
export async function rankDocuments(db: DatabaseSync, request: SearchRequest): Promise<Ranking> {
  const warnings: string[] = [];
  // Opened first: a new index file (the last one lost or damaged) has its refill queued as it opens.
  if (request.mode !== "semantic" && fromIndex(db, () => abandonedIndexChanges(db))) {
    warnings.push(
      "the keyword index lacks changes a stopped process left queued; the next add or docs.repair applies them",
    );
  }
  // The documents a narrowing filter allows, looked up once for every leg.
  const allow = allowed(db, request.filter);
  return await rankWith(
    {
      keyword: (query, limit, columns) => keywordHits(db, query, limit, columns, allow),
      fuzzy: (query, similarity, limit, columns) =>
        fuzzyHits(db, query, similarity, limit, columns, allow),
      semantic: (limit, legWarnings) => semanticHits(db, request, limit, allow, legWarnings),
    },
    request,
    warnings,
  );
}

/**
 * The legs of a search on one backend, each already limited to the documents the request's
 * filter allows: SQLite's here, a database server's in server_search/server_ranking.ts.
 */
export interface SearchLegs {
  /** BM25 hits for any of the query's terms. */
  keyword(
    query: string,
    limit: number,
    columns: ColumnWeights,
  ): RankedDocument[] | Promise<RankedDocument[]>;
  /** BM25 hits for the query's words widened to similar index words. */
  fuzzy(
    query: string,
    similarity: number,
    limit: number,
    columns: ColumnWeights,
  ): RankedDocument[] | Promise<RankedDocument[]>;
  /** Cosine hits for the request's query; what it could not cover goes to `warnings`. */
  semantic(limit: number, warnings: string[]): Promise<RankedDocument[]>;
}

/**
 * Ranks documents for a query with one backend's legs: the mode picks the legs, and hybrid
 * fuses them by reciprocal rank with the request's fusion settings — the same on every
 * backend. `warnings` (what the caller already noted) are returned with the ranking's own.
 */
export async function rankWith(
  legs: SearchLegs,
  request: SearchRequest,
  warnings: string[] = [],
): Promise<Ranking> {
  const fusion = { ...DEFAULT_FUSION, ...request.fusion };
  const depth = Math.max(fusion.depth, request.limit);
  let ranking: Ranking;
  switch (request.mode) {
    case "keyword": {
      let hits = await legs.keyword(request.query, depth, fusion.columns);
      if (request.fuzzy && hits.length < request.limit) {
        hits = appendNew(
          hits,
          await legs.fuzzy(request.query, request.similarity, depth, fusion.columns),
        );
      }
      ranking = cut(hits, request.limit);
      break;
    }
    case "fuzzy":
      ranking = cut(
        await legs.fuzzy(request.query, request.similarity, depth, fusion.columns),
        request.limit,
      );
      break;
    case "semantic":
      ranking = cut(await legs.semantic(depth, warnings), request.limit);
      break;
    case "hybrid": {
      // The legs run at once (on a server each is a round trip of its own); the fused order
      // depends only on their lists, and only the semantic leg adds warnings.
      const semantic = legs.semantic(depth, warnings).catch((error): RankedDocument[] => {
        // Keyword evidence still answers when an external embedding service is down.
        warnings.push(
          `semantic search was skipped: ${error instanceof Error ? error.message : String(error)}`,
        );
        return [];
      });
      const keyword = (async () => await legs.keyword(request.query, depth, fusion.columns))();
      const fuzzy = request.fuzzy && fusion.fuzzyWeight > 0
        ? (async () => await legs.fuzzy(request.query, request.similarity, depth, fusion.columns))()
        : undefined;
      // All awaited together, so a leg that fails while another is still at work is not left
      // failing unheard.
      const [byWords, byMeaning, bySpelling] = await Promise.all([keyword, semantic, fuzzy]);
      const lists: Array<{ hits: RankedDocument[]; weight: number }> = [
        { hits: byWords, weight: fusion.keywordWeight },
        { hits: byMeaning, weight: fusion.semanticWeight },
      ];
      if (bySpelling !== undefined) lists.push({ hits: bySpelling, weight: fusion.fuzzyWeight });
      ranking = cut(reciprocalRankFusion(lists, fusion.k), request.limit);
      break;
    }
  }
  return warnings.length > 0 ? { ...ranking, warnings } : ranking;
}

/**
 * Reciprocal-rank fusion: each list adds `weight / (k + rank)` (rank from 1)
 * to a document's score.
 *
 * @example
 * ```ts
 * import { reciprocalRankFusion } from "./doc_search.ts";
 * reciprocalRankFusion([
 *   { hits: [{ id: 1, score: 9 }, { id: 2, score: 5 }], weight: 1 },
 *   { hits: [{ id: 2, score: 0.9 }], weight: 1 },
 * ], 60)[0].id; // 2
 * ```
 */
export function reciprocalRankFusion(
  lists: ReadonlyArray<{ hits: readonly RankedDocument[]; weight: number }>,
  k: number,
): RankedDocument[] {
  const scores = new Map<number, number>();
  for (const { hits, weight } of lists) {
    if (weight <= 0) continue;
    for (const [index, hit] of hits.entries()) {
      scores.set(hit.id, (scores.get(hit.id) ?? 0) + weight / (k + index + 1));
    }
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) =>
    b.score - a.score || a.id - b.id
  );
}

function cut(hits: RankedDocument[], limit: number): Ranking {
  return { hits: hits.slice(0, limit), total: hits.length };
}

function appendNew(first: RankedDocument[], more: RankedDocument[]): RankedDocument[] {
  const seen = new Set(first.map((hit) => hit.id));
  return [...first, ...more.filter((hit) => !seen.has(hit.id))];
}

/** BM25 keyword hits for a query, only among `allow` when given. */
export function keywordHits(
  db: DatabaseSync,
  query: string,
  limit: number,
  columns: ColumnWeights,
  allow: ReadonlySet<number> | undefined,
): RankedDocument[] {
  const terms = queryKeywords(query);
  if (terms.length === 0) return [];
  return fromIndex(
    db,
    (index) => matchFts(index, anyTermExpression(terms), columns, limit, allow),
  );
}

/**
 * Runs a read on the search index file; an error from a damaged file names
 * the file (and what to run) instead of SQLite's bare "malformed".
 */
function fromIndex<T>(db: DatabaseSync, read: (index: DatabaseSync) => T): T {
  const index = docsIndex(db);
  try {
    return read(index);
  } catch (error) {
    throw storeFailure(error, "searching the document index", docsIndexFile(db));
  }
}

/**
 * Vocabulary words within `similarity` of `word` (Dice over padded
 * trigrams), best first, the word itself included when known.
 */
export function similarWords(
  db: DatabaseSync,
  word: string,
  similarity: number,
  limit = 5,
): Array<{ word: string; similarity: number }> {
  const expression = sharedTrigramExpression(word);
  if (expression === undefined) return [{ word, similarity: 1 }];
  const scored = fromIndex(db, (index) => termsSharingTrigrams(index, expression, 200))
    .map((candidate) => ({ word: candidate, similarity: trigramSimilarity(word, candidate) }))
    .filter((candidate) => candidate.similarity >= similarity)
    .sort((a, b) => b.similarity - a.similarity || a.word.localeCompare(b.word));
  return scored.slice(0, limit);
}

/** Fuzzy hits: each query word widened to similar vocabulary words, then BM25 (only among `allow` when given). */
export function fuzzyHits(
  db: DatabaseSync,
  query: string,
  similarity: number,
  limit: number,
  columns: ColumnWeights,
  allow: ReadonlySet<number> | undefined,
): RankedDocument[] {
  const terms = queryKeywords(query);
  const widened = new Set<string>();
  for (const term of terms) {
    if (term.includes(" ")) {
      widened.add(term);
      continue;
    }
    for (const match of similarWords(db, term, similarity)) widened.add(match.word);
  }
  if (widened.size === 0) return [];
  return fromIndex(
    db,
    (index) => matchFts(index, anyTermExpression([...widened]), columns, limit, allow),
  );
}

/** The documents a narrowing filter allows; undefined when it narrows nothing. */
function allowed(db: DatabaseSync, filter: DocumentFilter): Set<number> | undefined {
  return isNarrowFilter(filter) ? new Set(filteredIds(db, filter)) : undefined;
}

/**
 * Semantic hits: cosine over the stored vectors of the configured embedder,
 * and over vectors computed for this search of documents that have none
 * stored (only among `allow` when given). What the search could not cover
 * is said in `warnings`.
 */
export async function semanticHits(
  db: DatabaseSync,
  request: Pick<SearchRequest, "query" | "embedder">,
  limit: number,
  allow: ReadonlySet<number> | undefined,
  warnings: string[] = [],
): Promise<RankedDocument[]> {
  if (request.query.trim() === "") return [];
  const unstored = await unstoredVectors(db, request.embedder, {
    budgetMs: SEARCH_EMBED_BUDGET_MS,
    allow,
  });
  const vector = await queryVector(request.embedder, request.query);
  const index = VectorIndex.for(db, request.embedder.id);
  const stored = index.search(
    vector,
    limit,
    allow === undefined ? undefined : (id) => allow.has(id),
  );
  return withUnstored(stored, unstored, vector, limit, request.embedder.id, warnings);
}

/** The query's vector (unit length) from the embedder. */
export async function queryVector(embedder: Embedder, query: string): Promise<Float32Array> {
  const sync = syncEmbedding(embedder);
  return sync !== undefined ? sync(query) : (await embedder.embed([query]))[0];
}

/**
 * Stored-vector hits merged with those of documents embedded for this search only (which
 * `warnings` then names), best first, at most `limit`.
 */
export function withUnstored(
  stored: RankedDocument[],
  unstored: UnstoredVectors,
  vector: Float32Array,
  limit: number,
  model: string,
  warnings: string[],
): RankedDocument[] {
  if (unstored.documents.length === 0 && unstored.complete) return stored;
  const count = unstored.documents.length;
  warnings.push(
    `${count} document${count === 1 ? " has" : "s have"} no stored vectors from ${model}${
      unstored.complete ? "" : " (and more than this search had time to embed)"
    }: embedded for this search only; the next add or docs.repair stores them`,
  );
  return [...stored, ...rankUnstored(unstored.documents, vector, limit)]
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit);
}
