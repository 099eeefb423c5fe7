/**
 * Keyword search over documents on PostgreSQL: what SQLite's search index file does with FTS5
 * (../../docs/search_index.ts), done with a `tsvector` per document and a GIN index
 * (`docs_search`, see ../docs_schema.ts).
 *
 * Writing: a document's title, path and text become one `tsvector`, weighted A, B and D, in
 * the `english` configuration (Snowball stemming, as FTS5's porter tokenizer stems; it also
 * drops English stop words, which FTS5 keeps). Punctuation is turned into spaces first, so
 * `tests/login.test.ts` or `a-b` are words apart as SQLite's unicode61 tokenizer makes them:
 * PostgreSQL's own parser would keep a path or a hyphenated word whole, and a search for
 * `login` would miss it. One difference stays: that parser always splits at an underscore,
 * where SQLite's index keeps `refresh_token` one word (`tokenchars '_'`) — here `refresh` finds
 * it too, and a search for `refresh_token` finds it as the phrase `refresh token`.
 *
 * Ranking: BM25 (k1 1.2, b 0.75, as FTS5's), computed here, not `ts_rank_cd`. `ts_rank_cd`
 * knows nothing of how rare a word is across the documents (no inverse document frequency),
 * so a query's common words outweigh its telling ones; BM25 needs each query word's document
 * frequency, which the GIN index counts for one word at a time. As FTS5's `bm25()`, a column's
 * weight multiplies each occurrence of a word in it (title 4, path 2, body 1 by default), and the
 * length BM25 normalises by is the whole document's (its number of word positions). The idf is
 * ln(1 + (N − n + ½) / (n + ½)), which stays positive where FTS5's (without the 1) is floored. `ts_rank_cd` stays
 * available ({@linkcode DocumentRanking}) so the benchmark can show the difference.
 *
 * Vectors: {@linkcode vectorBackend} says whether the server offers pgvector.
 *
 * @module
 */
import { RowReader } from "../../rows.ts";
import type { PgQueryable, PgValue } from "../connection.ts";
import { readRows } from "../reads.ts";

/** The text configuration of the index and its queries. */
const CONFIG = "'english'::regconfig";

/** What of a document the index holds. */
export interface DocumentText {
  /** Its title (weight A). */
  title: string;
  /** Its path (weight B). */
  path: string;
  /** Its text, already cut to the indexing budget (weight D). */
  text: string;
}

/** Per-column weights: title, path, body (SQLite's `ColumnWeights`). */
export interface SearchWeights {
  /** Weight of the title. */
  title: number;
  /** Weight of the path. */
  path: number;
  /** Weight of the body. */
  body: number;
}

/** How matches are ordered: BM25 computed in SQL (the default), or PostgreSQL's `ts_rank_cd`. */
export type DocumentRanking = "bm25" | "ts_rank_cd";

/** One keyword hit. */
export interface DocumentHit {
  /** Document id. */
  id: number;
  /** Its score (higher is better). */
  score: number;
}

const HIT = new RowReader<DocumentHit>("document search hit", { id: "number", score: "number" });

/** `expr` with punctuation turned into spaces (as the messages' index does). */
function words(expr: string): string {
  return `regexp_replace(${expr}, '[[:punct:]]+', ' ', 'g')`;
}

/** A tsvector of `expr`, weighted `weight`. */
function weighted(expr: string, weight: string): string {
  return `setweight(to_tsvector(${CONFIG}, ${words(expr)}), '${weight}')`;
}

/**
 * Characters of a document's text the index takes: a `tsvector` holds at most 1 MB, which text
 * of unique words past about 230,000 characters could exceed (the messages' index takes the
 * same). SQLite's index takes the first MiB.
 */
export const MAX_SEARCH_CHARS = 200_000;

/**
 * Indexes a document's text (its first {@linkcode MAX_SEARCH_CHARS} characters), replacing what
 * was indexed for it: a document must be indexed again when its row is a new version, as on
 * SQLite.
 */
export async function indexDocumentText(
  q: PgQueryable,
  id: number,
  doc: DocumentText,
): Promise<void> {
  await q.query(
    `INSERT INTO docs_search (document_id, search, length)
     SELECT $1, v, (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(v))
     FROM (SELECT ${weighted("$2", "A")} || ${weighted("$3", "B")} || ${
      weighted(`left($4, ${MAX_SEARCH_CHARS})`, "D")
    } AS v) t
     ON CONFLICT (document_id) DO UPDATE SET search = excluded.search, length = excluded.length`,
    [id, doc.title, doc.path, doc.text],
  );
}

/** Takes a document out of the index; answers whether it was in it. */
export async function removeDocumentText(q: PgQueryable, id: number): Promise<boolean> {
  return (await q.query("DELETE FROM docs_search WHERE document_id = $1 RETURNING document_id", [
    id,
  ])).length > 0;
}

/** Options of {@linkcode searchDocumentText}. */
export interface DocumentSearch {
  /** Per-column weights. */
  weights: SearchWeights;
  /** Most hits. */
  limit: number;
  /** Only these documents (a narrowing filter's), when given. */
  allow?: readonly number[];
  /** The ranking (default BM25). */
  ranking?: DocumentRanking;
}

/**
 * The best documents matching any of `terms` (words, or phrases of several words, as the
 * engine's query parsing gives them), best first; ties by id.
 *
 * @example
 * ```ts ignore
 * import { searchDocumentText } from "./document_search.ts";
 * await searchDocumentText(pool, ["refresh token", "flow"], {
 *   weights: { title: 4, path: 2, body: 1 },
 *   limit: 10,
 * }); // [{ id: 7, score: 3.1 }, …]
 * ```
 */
export async function searchDocumentText(
  q: PgQueryable,
  terms: readonly string[],
  search: DocumentSearch,
): Promise<DocumentHit[]> {
  if (terms.length === 0 || search.allow?.length === 0) return [];
  const params: PgValue[] = [];
  const add = (value: PgValue) => `$${params.push(value)}`;
  // Each term a phrase; a document matches when any of them does, as FTS5's OR of quoted terms.
  const query = terms.map((term) => `phraseto_tsquery(${CONFIG}, ${words(add(term))})`)
    .join(" || ");
  const allowed = search.allow === undefined
    ? ""
    : `AND s.document_id = ANY(${add(search.allow)}::bigint[])`;
  const { title, path, body } = search.weights;
  let sql: string;
  if (search.ranking === "ts_rank_cd") {
    // Weights in {D, C, B, A} order, scaled into 0–1 as ts_rank_cd requires.
    const top = Math.max(title, path, body);
    const scale = `ARRAY[${body / top}, 0, ${path / top}, ${title / top}]::float4[]`;
    sql = `SELECT s.document_id AS id, ts_rank_cd(${scale}, s.search, t.q, 1)::float8 AS score
      FROM docs_search s, (SELECT ${query} AS q) t WHERE s.search @@ t.q ${allowed}
      ORDER BY score DESC, id LIMIT ${add(search.limit)}`;
  } else {
    const weight = `CASE w WHEN 'A' THEN ${add(title)}::float8 WHEN 'B' THEN ${
      add(path)
    }::float8 ELSE ${add(body)}::float8 END`;
    // Each matching document's words are narrowed to the query's before their weights are
    // summed: the rest would only be joined away, and summing them was a third of a search.
    sql = `WITH t AS (SELECT ${query} AS q),
      lexemes AS (
        SELECT DISTINCT lexeme FROM unnest(tsvector_to_array(to_tsvector(${CONFIG}, ${
      words(add(terms.join(" ")))
    }))) AS lexeme),
      stats AS (SELECT count(*)::float8 AS n, coalesce(avg(length), 1)::float8 AS average
        FROM docs_search),
      idf AS (
        SELECT l.lexeme, ln(1 + (stats.n - f.n + 0.5) / (f.n + 0.5)) AS idf
        FROM lexemes l, stats, LATERAL (SELECT count(*)::float8 AS n FROM docs_search
          WHERE search @@ quote_literal(l.lexeme)::tsquery) f)
      SELECT s.document_id AS id, sum(idf.idf * tf.tf * 2.2
          / (tf.tf + 1.2 * (0.25 + 0.75 * s.length / stats.average))) AS score
      FROM docs_search s CROSS JOIN t CROSS JOIN stats
      CROSS JOIN LATERAL (
        SELECT u.lexeme, (SELECT sum(${weight}) FROM unnest(u.weights) AS w) AS tf
        FROM unnest(s.search) AS u WHERE u.lexeme IN (SELECT lexeme FROM idf)) tf
      JOIN idf ON idf.lexeme = tf.lexeme
      WHERE s.search @@ t.q ${allowed}
      GROUP BY s.document_id ORDER BY score DESC, id LIMIT ${add(search.limit)}`;
  }
  return await readRows(q, HIT, sql, params);
}

/**
 * How this server can hold vectors: `pgvector` when the extension is available to it (it may
 * still need `CREATE EXTENSION vector` by someone allowed to), else `builtin` — rows of bytes
 * the engine ranks in memory (graph_and_vectors.ts), which is what the store uses on either for
 * now: ranking on the server with pgvector is not written yet, since no server here has it
 * (Debian's PostgreSQL 15 packages none) to test it on.
 */
export async function vectorBackend(q: PgQueryable): Promise<"pgvector" | "builtin"> {
  const rows = await q.query("SELECT 1 AS x FROM pg_available_extensions WHERE name = 'vector'");
  return rows.length > 0 ? "pgvector" : "builtin";
}
