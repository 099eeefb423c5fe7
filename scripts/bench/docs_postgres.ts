/**
 * The Cranfield documents searched by keyword on PostgreSQL, for the retrieval-quality table of
 * the docs benchmark: a throwaway cluster (tests/helpers/postgres_cluster.ts) gets the same
 * documents the SQLite store was given — the same titles, paths and texts its index holds —
 * through the PostgreSQL document store, and each query is asked with the terms SQLite's
 * keyword search asks for (`queryKeywords`) and the same column weights. The same vectors
 * are stored too, so every mode of `docs.search` on a server's store (server_ranking.ts:
 * keyword, fuzzy, semantic and hybrid) is ranked as well. Its figures are printed beside
 * SQLite's and a plain BM25's from the same run.
 */
import { VECTORS_COMPLETE_KEY } from "../../src/docs/doc_index.ts";
import type { SearchMode } from "../../src/docs/doc_search.ts";
import type { Embedder } from "../../src/docs/embedder.ts";
import { queryKeywords } from "../../src/docs/search_terms.ts";
import { rankOnServer } from "../../src/docs/server_search/server_ranking.ts";
import type { DocumentRow } from "../../src/store/docs/documents.ts";
import type { VectorRow } from "../../src/store/docs/vectors.ts";
import { openPgPool } from "../../src/store/postgres/connection.ts";
import type {
  DocumentRanking,
  SearchWeights,
} from "../../src/store/postgres/docs/document_search.ts";
import { pgDocsSearch, pgDocsStore } from "../../src/store/postgres/docs/docs_store.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import { median } from "./stats.ts";
import { POSTGRES_MISSING, startPostgresCluster } from "../../tests/helpers/postgres_cluster.ts";

/** A stored document with the text its keyword index was given. */
export interface IndexedDocument {
  /** The SQLite store's row. */
  row: DocumentRow;
  /** Its text. */
  text: string;
}

/** The vectors SQLite stored for the documents (document ids are the SQLite rows'). */
export interface StoredVectors {
  /** The embedder that made them (and embeds the queries). */
  embedder: Embedder;
  /** Every vector, in the order stored. */
  rows: readonly VectorRow[];
}

/**
 * Each ranking's results for every query, as ids of the SQLite rows — the keyword index's own
 * two rankings, and `docs.search`'s modes on the server's store — with the median time of one
 * query in each mode; or why it did not run.
 */
export type PostgresRankings = {
  ranked: Map<DocumentRanking | SearchMode, number[][]>;
  medianMs: Map<SearchMode, number>;
} | string;

/**
 * Indexes `documents` (and stores `vectors`) in a fresh PostgreSQL database and ranks every
 * query with each ranking, `depth` results deep.
 */
export async function rankOnPostgres(
  documents: readonly IndexedDocument[],
  vectors: StoredVectors,
  queries: readonly string[],
  weights: SearchWeights,
  depth: number,
): Promise<PostgresRankings> {
  if (POSTGRES_MISSING !== undefined) return POSTGRES_MISSING;
  const cluster = startPostgresCluster();
  try {
    const location = parseStoreLocation(await cluster.createDatabase("cranfield"));
    if (location.kind !== "postgres") return "the cluster gave no PostgreSQL URL";
    const pool = openPgPool(location, { max: 2 });
    try {
      await migratePostgres(pool);
      const docs = pgDocsStore(pool);
      const search = pgDocsSearch(pool);
      const sqliteId = new Map<number, number>();
      for (const { row, text } of documents) {
        const bytes = new TextEncoder().encode(text);
        if (!await docs.contentExists(row.hash)) {
          await docs.insertChunk(row.hash, bytes.length, bytes);
          await docs.insertContent(row.hash, bytes.length, [
            { seq: 0, chunk_hash: row.hash, offset: 0, length: bytes.length },
          ], row.created_at);
        }
        const id = await docs.insertDocument(row);
        await search.indexDocumentText(id, { title: row.title, path: row.path, text });
        sqliteId.set(id, row.id);
      }
      const postgresId = new Map([...sqliteId].map(([id, fromId]) => [fromId, id]));
      for (const vector of vectors.rows) {
        const id = postgresId.get(vector.document_id);
        if (id !== undefined) {
          await docs.insertVector(id, vector.seq, vectors.embedder.id, vector.vector);
        }
      }
      await docs.writeState(VECTORS_COMPLETE_KEY, vectors.embedder.id);
      await pool.query("ANALYZE");
      const out = new Map<DocumentRanking | SearchMode, number[][]>();
      for (const ranking of ["bm25", "ts_rank_cd"] as const) {
        const ranked: number[][] = [];
        for (const query of queries) {
          const hits = await search.searchDocumentText(queryKeywords(query), {
            weights,
            limit: depth,
            ranking,
          });
          ranked.push(hits.map((hit) => sqliteId.get(hit.id)!));
        }
        out.set(ranking, ranked);
      }
      const medianMs = new Map<SearchMode, number>();
      for (const mode of ["keyword", "fuzzy", "semantic", "hybrid"] as const) {
        const ranked: number[][] = [];
        const times: number[] = [];
        for (const query of queries) {
          const started = performance.now();
          const { hits } = await rankOnServer({ store: docs, search }, {
            query,
            mode,
            limit: depth,
            fuzzy: true,
            similarity: 0.7,
            filter: {},
            embedder: vectors.embedder,
          });
          times.push(performance.now() - started);
          ranked.push(hits.map((hit) => sqliteId.get(hit.id)!));
        }
        out.set(mode, ranked);
        medianMs.set(mode, median(times));
      }
      return { ranked: out, medianMs };
    } finally {
      await pool.close();
    }
  } finally {
    cluster.stop();
  }
}
