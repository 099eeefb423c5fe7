/**
 * The vector search a server's store is searched with (src/docs/server_search/server_vectors.ts)
 * reads vectors only through the DocsStore interface, so it runs here on SQLite's store, beside
 * SQLite's own index over the same rows: the same hits with the same scores, new vectors found
 * without reading the rest again, vectors committed out of id order found once the generation
 * moves, removals honoured, and concurrent searches reading each vector once.
 */
import assert from "node:assert/strict";
import { vectorToBytes } from "../../src/docs/embedder.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { ServerVectorIndex } from "../../src/docs/server_search/server_vectors.ts";
import { VectorIndex } from "../../src/docs/vector_index.ts";
import { type DatabaseSync, openDatabase, transaction } from "../../src/store/database.ts";
import { sqliteDocsStore } from "../../src/store/docs/docs_store.ts";
import { bumpCounter } from "../../src/store/docs/state.ts";
import { deleteVectors, insertVector } from "../../src/store/docs/vectors.ts";

const embedder = new HashedEmbedder();

const TOPICS = [
  "sqlite database index pages",
  "bread flour yeast oven",
  "glacier ice valley retreat",
  "compiler parser syntax tree",
  "harbour boats mackerel herring",
  "telescope mount nebulae",
];

/** A store whose documents need not exist for their vectors (as the index test does it). */
function vectorStore(): DatabaseSync {
  const db = openDatabase(":memory:");
  db.exec("PRAGMA foreign_keys = OFF");
  return db;
}

function addVectors(db: DatabaseSync, rows: Array<[document: number, text: string]>): void {
  transaction(db, () => {
    const seqs = new Map<number, number>();
    for (const [document, text] of rows) {
      const seq = seqs.get(document) ?? 0;
      seqs.set(document, seq + 1);
      insertVector(db, document, seq, embedder.id, vectorToBytes(embedder.embedOne(text)));
    }
  });
}

Deno.test("a server's vector search scores every vector as SQLite's index does", async () => {
  const db = vectorStore();
  const rows: Array<[number, string]> = [];
  // Several pieces per document, topics mixed, so best-piece merging and ties are exercised.
  for (let document = 1; document <= 120; document++) {
    for (let piece = 0; piece < 3; piece++) {
      const topic = TOPICS[(document * 7 + piece * 3) % TOPICS.length];
      rows.push([document, `${topic} note ${document % 11} part ${piece}`]);
    }
  }
  addVectors(db, rows);
  const docs = sqliteDocsStore(db);
  for (const text of ["database index", "glacier valley", "mackerel boats note 3", "flour"]) {
    const query = embedder.embedOne(text);
    for (const limit of [1, 5, 40]) {
      const onServer = (await ServerVectorIndex.for(docs, embedder.id)).search(query, limit);
      const onSqlite = VectorIndex.for(db, embedder.id).search(query, limit);
      assert.ok(onSqlite.length > 0, text);
      assert.deepEqual(onServer, onSqlite, `${text}, limit ${limit}`);
      const even = (id: number) => id % 2 === 0;
      assert.deepEqual(
        (await ServerVectorIndex.for(docs, embedder.id)).search(query, limit, even),
        VectorIndex.for(db, embedder.id).search(query, limit, even),
      );
    }
  }
  db.close();
});

Deno.test("a server's vector search finds new vectors, late commits and removals", async () => {
  const db = vectorStore();
  const docs = sqliteDocsStore(db);
  addVectors(db, TOPICS.map((text, i) => [i + 1, text]));
  const query = embedder.embedOne("glacier ice valley retreat");
  let index = await ServerVectorIndex.for(docs, embedder.id);
  assert.equal(index.size, TOPICS.length);
  assert.equal(index.search(query, 1)[0].id, 3);

  // Stored since the last search, no counter moved: read after the last id held.
  addVectors(db, [[40, "glacier ice valley retreat"]]);
  index = await ServerVectorIndex.for(docs, embedder.id);
  assert.equal(index.size, TOPICS.length + 1);
  assert.deepEqual(index.search(query, 2).map((hit) => hit.id).sort(), [3, 40]);

  // A vector whose id is below one already read (on a server: its transaction committed
  // later) is found once the write that stored it moves the generation.
  const vector = vectorToBytes(embedder.embedOne("glacier ice valley retreat"));
  const withId = (id: number, document: number) =>
    db.prepare(
      "INSERT INTO docs_vectors (id, document_id, seq, model, vector) VALUES (?, ?, ?, ?, ?)",
    ).run(id, document, 0, embedder.id, vector);
  withId(100, 50);
  index = await ServerVectorIndex.for(docs, embedder.id);
  assert.ok(index.search(query, 10).some((hit) => hit.id === 50));
  withId(50, 60);
  index = await ServerVectorIndex.for(docs, embedder.id);
  assert.ok(!index.search(query, 10).some((hit) => hit.id === 60), "not yet: no change was told");
  bumpCounter(db, "index_generation");
  index = await ServerVectorIndex.for(docs, embedder.id);
  assert.ok(index.search(query, 10).some((hit) => hit.id === 60));
  assert.equal(index.size, TOPICS.length + 3);

  // A new vector with a generation moved: read after the last id, checked by a count, not
  // every vector read again.
  const afters: number[] = [];
  const vectorsAfter = docs.vectorsAfter;
  docs.vectorsAfter = (model, after, limit) => {
    afters.push(after);
    return vectorsAfter(model, after, limit);
  };
  addVectors(db, [[70, "glacier ice valley retreat"]]);
  bumpCounter(db, "index_generation");
  index = await ServerVectorIndex.for(docs, embedder.id);
  assert.ok(index.search(query, 10).some((hit) => hit.id === 70));
  assert.ok(afters.length > 0 && !afters.includes(0), JSON.stringify(afters));
  assert.equal(index.size, TOPICS.length + 4);

  // A removal (the store's trigger moves the removal counter) reloads without the vectors.
  transaction(db, () => deleteVectors(db, 3));
  index = await ServerVectorIndex.for(docs, embedder.id);
  assert.ok(!index.search(query, 10).some((hit) => hit.id === 3));
  assert.equal(index.size, TOPICS.length + 3);
  db.close();
});

Deno.test("concurrent searches on a server's store read each vector once", async () => {
  const db = vectorStore();
  const docs = sqliteDocsStore(db);
  addVectors(db, TOPICS.map((text, i) => [i + 1, text]));
  const indexes = await Promise.all(
    [1, 2, 3, 4].map(() => ServerVectorIndex.for(docs, embedder.id)),
  );
  assert.ok(indexes.every((index) => index === indexes[0]));
  assert.equal(indexes[0].size, TOPICS.length);
  db.close();
});
