/**
 * Fuzzy search on a database server's keyword index: each query word widened to the index's
 * words within a trigram similarity, then BM25 — doc_search.ts's `fuzzyHits`, with the
 * server's vocabulary. That vocabulary is the index's lexemes (stemmed, stop words left out;
 * see store/postgres/docs/document_vocabulary.ts), so a query word is compared as the lexeme
 * it becomes: `optimisation` and `optimization` meet as `optimis` and `optim`, where SQLite
 * compares the words as written. The widened lexemes are searched as terms; the index's
 * stemmer leaves a lexeme as it is.
 *
 * The vocabulary is kept by the process (server_vocabulary.ts), so a fuzzy search costs a
 * counter read, the query's lexemes and one ranked query, plus the words of documents indexed
 * since the last search.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { PgDocsSearch } from "../../store/postgres/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { RankedDocument } from "../doc_search.ts";
import { queryKeywords, trigramSimilarity } from "../search_terms.ts";
import type { ColumnWeights } from "../../store/docs/search_index.ts";
import { ServerVocabulary } from "./server_vocabulary.ts";

/** Most similar words one query word is widened to (as on SQLite). */
const WIDEST = 5;

/**
 * Index words within `similarity` of `lexeme` (Dice over padded trigrams), best first, the
 * lexeme itself included when the index holds it; a lexeme under three letters stands for
 * itself, as on SQLite.
 */
function similarLexemes(
  vocabulary: ServerVocabulary,
  lexeme: string,
  similarity: number,
): string[] {
  if (lexeme.length < 3) return [lexeme];
  return [...vocabulary.candidates(lexeme)]
    .map((word) => ({ word, similarity: trigramSimilarity(lexeme, word) }))
    .filter((candidate) => candidate.similarity >= similarity)
    .sort((a, b) => b.similarity - a.similarity || a.word.localeCompare(b.word))
    .slice(0, WIDEST)
    .map((candidate) => candidate.word);
}

/**
 * Fuzzy hits on a server: each query word widened to similar index words (quoted phrases kept
 * whole), then BM25 over any of them, only among `allow` when given.
 */
export async function serverFuzzyHits(
  store: DocsStore<StoreMode>,
  search: PgDocsSearch,
  query: string,
  similarity: number,
  limit: number,
  columns: ColumnWeights,
  allow: ReadonlySet<number> | undefined,
): Promise<RankedDocument[]> {
  const terms = queryKeywords(query);
  const words = terms.filter((term) => !term.includes(" "));
  const widened = new Set(terms.filter((term) => term.includes(" ")));
  if (words.length > 0) {
    const vocabulary = await ServerVocabulary.for(store, search);
    for (const lexemes of await search.queryLexemes(words)) {
      for (const lexeme of lexemes) {
        for (const word of similarLexemes(vocabulary, lexeme, similarity)) widened.add(word);
      }
    }
  }
  if (widened.size === 0) return [];
  return await search.searchDocumentText([...widened], {
    weights: columns,
    limit,
    allow: allow === undefined ? undefined : [...allow],
  });
}
