/**
 * The fuzzy vocabulary on PostgreSQL: words stored once however often and however concurrently
 * they are added, each with its trigrams, and the words sharing a query word's trigrams found
 * most-shared first — the candidates `closestWords` then scores exactly as SQLite's search does.
 */
import assert from "node:assert/strict";
import { closestWords } from "../../../src/docs/search_terms.ts";
import { openPgPool } from "../../../src/store/postgres/connection.ts";
import { migratePostgres } from "../../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../../src/store/postgres/store_url.ts";
import {
  addVocabulary,
  termsSharingTrigrams,
  wordTrigrams,
} from "../../../src/store/postgres/docs/vocabulary.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../../helpers/postgres_cluster.ts";

Deno.test({
  name: "the fuzzy vocabulary on PostgreSQL keeps each word once and finds near words",
  ignore: skipWithoutPostgres("the fuzzy vocabulary on PostgreSQL"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
    if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
    const pool = openPgPool(location, { max: 4, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    try {
      await migratePostgres(pool);
      assert.deepEqual(wordTrigrams("token"), ["tok", "oke", "ken"]);
      assert.equal(await addVocabulary(pool, ["optimization", "operation", "token"]), 3);
      assert.equal(await addVocabulary(pool, ["token", "tokens"]), 1);
      // Four writers adding overlapping new words at once: each word once, its trigrams once.
      const added = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          addVocabulary(pool, ["refresh", "refresher", `session${"s".repeat(i)}`])
        ),
      );
      assert.equal(added.reduce((a, b) => a + b, 0), 2 + 4);
      const count = async (table: string) =>
        Number((await pool.query(`SELECT count(*) AS n FROM ${table}`))[0].n);
      assert.equal(await count("docs_terms"), 4 + 2 + 4);
      const grams = (await pool.query(
        "SELECT g.gram FROM docs_term_grams g JOIN docs_terms t ON t.id = g.term_id WHERE t.term = 'refresher' ORDER BY 1",
      )).map((row) => row.gram);
      assert.deepEqual(grams, [...wordTrigrams("refresher")].sort());

      const candidates = await termsSharingTrigrams(pool, wordTrigrams("optimisation"), 200);
      assert.equal(candidates[0], "optimization", JSON.stringify(candidates));
      assert.ok(!candidates.includes("token"));
      assert.deepEqual(closestWords("optimisation", candidates, 0.7).map((c) => c.word), [
        "optimization",
      ]);
      assert.deepEqual(await termsSharingTrigrams(pool, wordTrigrams("tok"), 2), [
        "token",
        "tokens",
      ]);
      assert.deepEqual(await termsSharingTrigrams(pool, [], 5), []);
    } finally {
      await pool.close();
    }
  },
});
