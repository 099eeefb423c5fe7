/**
 * The fuzzy vocabulary on PostgreSQL: the words fuzzy search widens a query word to, each stored
 * once with its trigrams (`docs_terms`, `docs_term_grams`, migration 27), as SQLite keeps them
 * in its index file with an FTS5 trigram table (../../docs/search_index.ts). Words are only ever
 * added, as on SQLite: a word of a deleted document stays a word people may mean.
 *
 * @module
 */
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";

const NEW_TERM = new RowReader<{ id: number; term: string }>("new term", {
  id: "number",
  term: "text",
});
const TERM = new RowReader<{ term: string }>("term", { term: "text" });

/** The distinct trigrams of a lowercase word (unpadded: what a query word is matched by). */
export function wordTrigrams(word: string): string[] {
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= word.length; i++) grams.add(word.slice(i, i + 3));
  return [...grams];
}

/** Adds words (lowercase) to the vocabulary; answers how many were new. */
export async function addVocabulary(q: PgQueryable, words: readonly string[]): Promise<number> {
  if (words.length === 0) return 0;
  // Concurrent adds of one new word: the unique key lets one insert it, and that one alone
  // writes its trigrams.
  const added = await readRows(
    q,
    NEW_TERM,
    `INSERT INTO docs_terms (term) SELECT w FROM unnest($1::text[]) WITH ORDINALITY AS t (w, n)
     ORDER BY n ON CONFLICT (term) DO NOTHING RETURNING id, term`,
    [[...words]],
  );
  if (added.length === 0) return 0;
  const grams: string[] = [];
  const ids: number[] = [];
  for (const { id, term } of added) {
    for (const gram of wordTrigrams(term)) {
      grams.push(gram);
      ids.push(id);
    }
  }
  if (grams.length > 0) {
    await q.query(
      `INSERT INTO docs_term_grams (gram, term_id)
       SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`,
      [grams, ids],
    );
  }
  return added.length;
}

/**
 * Vocabulary words sharing any of `grams`, those sharing the most first (then by word), at
 * most `limit`: the candidates a fuzzy match is scored among.
 */
export async function termsSharingTrigrams(
  q: PgQueryable,
  grams: readonly string[],
  limit: number,
): Promise<string[]> {
  if (grams.length === 0) return [];
  return (await readRows(
    q,
    TERM,
    `SELECT t.term FROM docs_term_grams g JOIN docs_terms t ON t.id = g.term_id
     WHERE g.gram = ANY($1::text[]) GROUP BY t.term ORDER BY count(*) DESC, t.term LIMIT $2`,
    [[...grams], limit],
  )).map((row) => row.term);
}
