/**
 * Keyword search over documents on PostgreSQL: the `tsvector` index a document's title, path
 * and text are written to, matched for any of a query's terms (phrases kept whole), ranked by
 * BM25 with the title weighted above the path and the body, narrowed to the documents a
 * filter allows, and cleared when a document goes. SQLite's equivalent is its index file
 * (tests/docs/search_index_test.ts); the figures of both on Cranfield are in the benchmark.
 */
import assert from "node:assert/strict";
import { openPgPool, type PgPool } from "../../../src/store/postgres/connection.ts";
import {
  type PgDocsSearch,
  pgDocsSearch,
  pgDocsStore,
} from "../../../src/store/postgres/docs/docs_store.ts";
import { MAX_SEARCH_CHARS } from "../../../src/store/postgres/docs/document_search.ts";
import { migratePostgres } from "../../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../../src/store/postgres/store_url.ts";
import type { DocsStore } from "../../../src/store/docs/docs_store.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../../helpers/postgres_cluster.ts";

const ignore = skipWithoutPostgres("the PostgreSQL document search tests");
const WEIGHTS = { title: 4, path: 2, body: 1 };

async function open(): Promise<{ pool: PgPool; docs: DocsStore<"async">; search: PgDocsSearch }> {
  const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
  if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
  const pool = openPgPool(location, { max: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
  await migratePostgres(pool);
  return { pool, docs: pgDocsStore(pool), search: pgDocsSearch(pool) };
}

/** Stores and indexes a text document; answers its id. */
async function add(
  docs: DocsStore<"async">,
  search: PgDocsSearch,
  path: string,
  title: string,
  text: string,
): Promise<number> {
  const hash = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(path + text))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  await docs.insertChunk(hash, text.length, new TextEncoder().encode(text));
  await docs.insertContent(hash, text.length, [
    { seq: 0, chunk_hash: hash, offset: 0, length: text.length },
  ], 0);
  const name = path.slice(path.lastIndexOf("/") + 1);
  const id = await docs.insertDocument({
    hash,
    path,
    relative_path: name,
    name,
    extension: ".md",
    mime: "text/markdown",
    is_text: 1,
    size: text.length,
    title,
    created_at: 0,
    modified_at: 0,
    indexed_at: 0,
    snapshot_id: null,
    session_id: null,
    source_url: null,
  });
  await search.indexDocumentText(id, { title, path, text });
  return id;
}

Deno.test({
  name: "postgres document search: terms, phrases, weights, BM25, filters, removal",
  ignore,
  async fn() {
    const { pool, docs, search } = await open();
    try {
      const filler = "the system keeps a record of each step it takes. ".repeat(4);
      const auth = await add(
        docs,
        search,
        "/w/notes/auth.md",
        "Authentication",
        `${filler} The refresh token flow renews an expired session token.`,
      );
      const tokens = await add(
        docs,
        search,
        "/w/notes/tokens.md",
        "Token refresh",
        `${filler} Tokens are stored encrypted.`,
      );
      const login = await add(
        docs,
        search,
        "/w/src/tests/login.test.ts",
        "login test",
        `${filler} Flows through the login form, refreshing the page.`,
      );
      const terms = (list: string[], extra: { allow?: number[]; limit?: number } = {}) =>
        search.searchDocumentText(list, { weights: WEIGHTS, limit: extra.limit ?? 10, ...extra })
          .then((hits) => hits.map((hit) => hit.id));

      // Stemmed: "refreshing" and "tokens" find "refresh" and "token"; the title outweighs
      // the body.
      assert.deepEqual(await terms(["refresh"]), [tokens, auth, login]);
      assert.deepEqual(await terms(["tokens"]), [tokens, auth]);
      // A phrase matches only where its words stand together, in its order ("Token refresh"
      // does not hold "refresh token").
      assert.deepEqual(await terms(["refresh token"]), [auth]);
      assert.deepEqual(await terms(["flow session"]), []);
      // Punctuation splits words: a path's parts are words of their own.
      assert.deepEqual(await terms(["login"]), [login]);
      // Equal counts of a word: the shorter document first (BM25's length normalisation).
      assert.deepEqual(await terms(["notes"]), [tokens, auth]);
      // Any term matches; a rare word counts for more than a common one (BM25's idf):
      // "encrypted" is in one document, "system" in all three.
      assert.deepEqual(await terms(["system", "encrypted"], { limit: 1 }), [tokens]);
      // Words every document holds match all, ranked by length.
      assert.equal((await terms(["system"])).length, 3);
      // A narrowing filter's documents only.
      assert.deepEqual(await terms(["refresh"], { allow: [login, auth] }), [auth, login]);
      assert.deepEqual(await terms(["refresh"], { allow: [] }), []);
      assert.deepEqual(await terms([]), []);
      // Scores are positive, best first.
      const hits = await search.searchDocumentText(["refresh"], { weights: WEIGHTS, limit: 3 });
      assert.ok(
        hits.every((hit, i) => hit.score > 0 && (i === 0 || hits[i - 1].score >= hit.score)),
      );
      // ts_rank_cd ranks the same matches, with scores of its own.
      const cd = await search.searchDocumentText(["refresh"], {
        weights: WEIGHTS,
        limit: 10,
        ranking: "ts_rank_cd",
      });
      assert.deepEqual(cd.map((hit) => hit.id).sort(), [auth, tokens, login].sort());

      // Indexed again, a document's old text is gone; removed or deleted, it is not found.
      await search.indexDocumentText(tokens, {
        title: "Keys",
        path: "/w/notes/tokens.md",
        text: "Keys are rotated.",
      });
      assert.deepEqual(await terms(["encrypted"]), []);
      assert.deepEqual(await terms(["rotated"]), [tokens]);
      assert.equal(await search.removeDocumentText(tokens), true);
      assert.equal(await search.removeDocumentText(tokens), false);
      assert.deepEqual(await terms(["rotated"]), []);
      await docs.deleteDocumentRow(login);
      assert.deepEqual(await terms(["login"]), []);
      // A long text of distinct words is indexed up to the cap (a tsvector holds at most 1 MB).
      const words = Array.from({ length: 60_000 }, (_, i) => `w${i.toString(36)}x`).join(" ");
      const long = await add(docs, search, "/w/long.md", "Long", words);
      // The first word wholly past the cap is not found.
      const past = words.indexOf(" ", MAX_SEARCH_CHARS) + 1;
      assert.deepEqual(await terms([words.slice(past, words.indexOf(" ", past))]), []);
      assert.deepEqual(await terms([words.slice(0, words.indexOf(" "))]), [long]);
      assert.equal(await search.vectorBackend(), "builtin");
    } finally {
      await pool.close();
    }
  },
});
