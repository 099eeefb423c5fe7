import assert from "node:assert/strict";
import { vectorToBytes } from "../../src/docs/embedder.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { VectorIndex } from "../../src/docs/vector_index.ts";
import { openDatabase, transaction } from "../../src/store/database.ts";
import { bumpCounter } from "../../src/store/docs/state.ts";
import { deleteVectors, insertVector } from "../../src/store/docs/vectors.ts";

Deno.test("the vector index finds the closest document, loads new rows, and reloads after removals", () => {
  const db = openDatabase(":memory:");
  const embedder = new HashedEmbedder();
  const texts = ["sqlite database index", "bread flour yeast", "database vacuum sqlite file"];
  db.exec("PRAGMA foreign_keys = OFF");
  transaction(db, () => {
    for (const [i, text] of texts.entries()) {
      insertVector(db, i + 1, 0, embedder.id, vectorToBytes(embedder.embedOne(text)));
    }
  });
  const query = embedder.embedOne("sqlite database");
  let hits = VectorIndex.for(db, embedder.id).search(query, 2);
  assert.deepEqual(hits.map((h) => h.id).sort(), [1, 3]);
  assert.ok(hits[0].score >= hits[1].score);
  // A second piece of document 2 that matches better makes document 2 count by its best piece.
  transaction(
    db,
    () => insertVector(db, 2, 1, embedder.id, vectorToBytes(embedder.embedOne("sqlite database"))),
  );
  hits = VectorIndex.for(db, embedder.id).search(query, 1);
  assert.equal(hits[0].id, 2);
  assert.ok(hits[0].score > 0.99);
  // Only allowed documents count.
  hits = VectorIndex.for(db, embedder.id).search(query, 3, (id) => id !== 2);
  assert.deepEqual(hits.map((h) => h.id).sort(), [1, 3]);
  transaction(db, () => {
    deleteVectors(db, 2);
    bumpCounter(db, "vector_removals");
  });
  const index = VectorIndex.for(db, embedder.id);
  assert.equal(index.size, 2);
  assert.ok(!index.search(query, 3).some((h) => h.id === 2));
  db.close();
});
