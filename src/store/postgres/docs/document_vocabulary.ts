/**
 * The words of PostgreSQL's keyword index over documents, for fuzzy search: what SQLite's index
 * file keeps as a vocabulary table with a trigram index (../../docs/search_index.ts), read here
 * from the `tsvector`s themselves. The words are the index's lexemes — stemmed, stop words left
 * out — so a query's words are turned into lexemes the same way ({@linkcode queryLexemes})
 * before they are compared with them.
 *
 * @module
 */
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";

const WORD = new RowReader<{ word: string }>("index word", { word: "text" });
const LEXEMES = new RowReader<{ term: number; lexeme: string }>("query lexeme", {
  term: "number",
  lexeme: "text",
});

/**
 * Every distinct lexeme the keyword index holds, sorted. One pass over the index: a caller
 * keeps the answer while the index is unchanged.
 */
export async function searchVocabulary(q: PgQueryable): Promise<string[]> {
  const rows = await readRows(
    q,
    WORD,
    `SELECT word FROM ts_stat('SELECT search FROM docs_search') ORDER BY word COLLATE "C"`,
    [],
  );
  return rows.map((row) => row.word);
}

/**
 * The lexemes each of `terms` becomes in the index's text configuration, punctuation turned
 * into spaces as the index's text is (none for a stop word), in the order of `terms`.
 */
export async function queryLexemes(q: PgQueryable, terms: readonly string[]): Promise<string[][]> {
  if (terms.length === 0) return [];
  const rows = await readRows(
    q,
    LEXEMES,
    `SELECT t.ord::int AS term, l.lexeme
     FROM unnest($1::text[]) WITH ORDINALITY AS t(term, ord),
       LATERAL unnest(tsvector_to_array(to_tsvector('english'::regconfig,
         regexp_replace(t.term, '[[:punct:]]+', ' ', 'g')))) AS l(lexeme)
     ORDER BY t.ord, l.lexeme COLLATE "C"`,
    [terms],
  );
  const out: string[][] = terms.map(() => []);
  for (const row of rows) out[row.term - 1].push(row.lexeme);
  return out;
}
