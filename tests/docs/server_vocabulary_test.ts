/**
 * The words a server's fuzzy search widens a query word to (src/docs/server_search/
 * server_vocabulary.ts and server_fuzzy.ts) on a real PostgreSQL index: read whole once, then
 * only for documents indexed since, found by id even when a lower id is indexed later, read
 * whole again after many removals — and a misspelt word found through them.
 */
import assert from "node:assert/strict";
import { serverFuzzyHits } from "../../src/docs/server_search/server_fuzzy.ts";
import { ServerVocabulary } from "../../src/docs/server_search/server_vocabulary.ts";
import { putContentIn } from "../../src/docs/store_content.ts";
import type { DocsStore } from "../../src/store/docs/docs_store.ts";
import { openPgPool } from "../../src/store/postgres/connection.ts";
import {
  type PgDocsSearch,
  pgDocsSearch,
  pgDocsStore,
} from "../../src/store/postgres/docs/docs_store.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";

const WEIGHTS = { title: 4, path: 2, body: 1 };

/** Stores a text document (not yet indexed); answers its id. */
async function store(docs: DocsStore<"async">, name: string, text: string): Promise<number> {
  const put = await putContentIn(docs, new TextEncoder().encode(text), 0);
  return await docs.insertDocument({
    hash: put.hash,
    path: `/notes/${name}`,
    relative_path: name,
    name,
    extension: ".md",
    mime: "text/markdown",
    is_text: 1,
    size: put.size,
    title: name,
    created_at: 0,
    modified_at: 0,
    indexed_at: 0,
    snapshot_id: null,
    session_id: null,
    source_url: null,
  });
}

/** The search with its vocabulary reads recorded: undefined for a whole read, else the ids. */
function recording(search: PgDocsSearch, reads: Array<number[] | undefined>): PgDocsSearch {
  return {
    ...search,
    searchVocabulary: (ids?: readonly number[]) => {
      reads.push(ids === undefined ? undefined : [...ids]);
      return search.searchVocabulary(ids);
    },
  };
}

Deno.test({
  name: "a server's fuzzy vocabulary reads only new documents, by id, and widens misspelt words",
  ignore: skipWithoutPostgres("the server vocabulary test"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
    if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
    const pool = openPgPool(location, { max: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    try {
      await migratePostgres(pool);
      const docs = pgDocsStore(pool);
      const reads: Array<number[] | undefined> = [];
      const search = recording(pgDocsSearch(pool), reads);
      const index = async (id: number, text: string) => {
        await search.indexDocumentText(id, { title: "", path: "", text });
        await docs.bumpCounter("index_generation");
      };
      const glacier = await store(docs, "glacier.md", "glacier moraine crevasse");
      const turbine = await store(docs, "turbine.md", "turbine gearbox lubrication");
      await index(glacier, "glacier moraine crevasse");
      await index(turbine, "turbine gearbox lubrication");

      let vocabulary = await ServerVocabulary.for(docs, search);
      assert.deepEqual(reads, [undefined], "the first search reads every word");
      assert.equal(vocabulary.documents, 2);
      assert.ok(vocabulary.candidates("moraine").has("morain"), "the index's lexemes are held");

      // Unchanged generation: nothing is read.
      vocabulary = await ServerVocabulary.for(docs, search);
      assert.equal(reads.length, 1);

      // Two documents stored, the later one indexed first (on a server, its write committed
      // first): each is read when it appears, whatever its id.
      const early = await store(docs, "volcano.md", "volcano crater tremor");
      const late = await store(docs, "harbour.md", "harbour mackerel herring");
      await index(late, "harbour mackerel herring");
      vocabulary = await ServerVocabulary.for(docs, search);
      assert.deepEqual(reads.at(-1), [late]);
      assert.ok(vocabulary.candidates("mackerel").has("mackerel"));
      assert.ok(!vocabulary.candidates("volcano").has("volcano"));
      await index(early, "volcano crater tremor");
      vocabulary = await ServerVocabulary.for(docs, search);
      assert.deepEqual(reads.at(-1), [early]);
      assert.ok(vocabulary.candidates("volcano").has("volcano"));
      assert.equal(vocabulary.documents, 4);

      // A misspelt word reaches the document through the held words.
      const hits = await serverFuzzyHits(docs, search, "makerel", 0.6, 10, WEIGHTS, undefined);
      assert.deepEqual(hits.map((hit) => hit.id), [late]);
      assert.deepEqual(
        await serverFuzzyHits(docs, search, "makerel", 0.6, 10, WEIGHTS, new Set([glacier])),
        [],
        "only among the allowed documents",
      );

      // More than a quarter of the documents gone: every word is read again, theirs left out.
      await search.removeDocumentText(glacier);
      await search.removeDocumentText(turbine);
      await docs.bumpCounter("index_generation");
      vocabulary = await ServerVocabulary.for(docs, search);
      assert.equal(reads.at(-1), undefined);
      assert.equal(reads.length, 4);
      assert.ok(!vocabulary.candidates("gearbox").has("gearbox"));
      assert.equal(vocabulary.documents, 2);
    } finally {
      await pool.close();
    }
  },
});
