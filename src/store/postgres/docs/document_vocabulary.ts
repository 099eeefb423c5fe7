/**
 * The words of PostgreSQL's keyword index over documents, for fuzzy search: what SQLite's index
 * file keeps as a vocabulary table with a trigram index (../../docs/search_index.ts), read here
 * from the `tsvector`s themselves, for every document or only for some (those indexed since a
 * reader last looked). The words are the index's lexemes — stemmed, stop words left out — so a
 * query's words are turned into lexemes the same way ({@linkcode queryLexemes}) before they are
 * compared with them.
 *
 * @module
 */
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";

const WORD = new RowReader<{ word: string }>("index word", { word: "text" });
const ID = new RowReader<{ id: number }>("indexed document", { id: "number" });
const LEXEMES = new RowReader<{ term: number; lexeme: string }>("query lexeme", {
  term: "number",
  lexeme: "text",
});

/**
 * Every distinct lexeme the keyword index holds for the documents `ids` (all of them when
 * undefined), sorted. One pass over those documents' `tsvector`s: a caller keeps the answer,
 * and asks again only for documents indexed since ({@linkcode indexedDocumentIds}).
 */
export async function searchVocabulary(
  q: PgQueryable,
  ids?: readonly number[],
): Promise<string[]> {
  if (ids?.length === 0) return [];
  // ts_stat takes the statement whose tsvectors it reads as text: the ids go in as a literal.
  const source = ids === undefined
    ? "'SELECT search FROM docs_search'"
    : "format('SELECT search FROM docs_search WHERE document_id = ANY(%L::bigint[])', $1::bigint[])";
  const rows = await readRows(
    q,
    WORD,
    `SELECT word FROM ts_stat(${source}) ORDER BY word COLLATE "C"`,
    ids === undefined ? [] : [ids],
  );
  return rows.map((row) => row.word);
}

/** The ids of the documents the keyword index holds, ascending. */
export async function indexedDocumentIds(q: PgQueryable): Promise<number[]> {
  const rows = await readRows(q, ID, "SELECT document_id AS id FROM docs_search ORDER BY 1", []);
  return rows.map((row) => row.id);
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
