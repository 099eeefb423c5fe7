/**
 * Sealed vector files: what a new connection (a new process) finds by reading a few columns
 * must be exactly what one pass over every stored vector finds, through seals, merges,
 * removals, rewrites and a damaged file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { semanticHits } from "../../src/docs/doc_search.ts";
import { vectorToBytes } from "../../src/docs/embedder.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { type VectorHit, VectorIndex } from "../../src/docs/vector_index.ts";
import {
  maintainVectorIndex,
  SEAL_MAX_ROWS,
  SEAL_MIN_ROWS,
  vectorMaintenanceSettled,
} from "../../src/docs/vector_segments.ts";
import { type DatabaseSync, openDatabase, transaction } from "../../src/store/database.ts";
import {
  deleteVectors,
  insertVector,
  vectorsAfter,
  vectorSegments,
} from "../../src/store/docs/vectors.ts";

const embedder = new HashedEmbedder();
const WORDS = ("sqlite vector index column segment merge seal tail query search document store " +
  "rollout canary deploy build failure cache token session agent hook transcript memory " +
  "collection restore snapshot chunk pack graph symbol import export module worker thread")
  .split(" ");

function textOf(n: number): string {
  const words: string[] = [];
  let state = n * 2654435761 >>> 0 || 1;
  for (let i = 0; i < 12; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words.push(WORDS[(state >>> 0) % WORDS.length]);
  }
  return words.join(" ");
}

/** Stores one vector for each of documents `from`..`to - 1` (two for every seventh). */
function storeDocuments(db: DatabaseSync, from: number, to: number): void {
  transaction(db, () => {
    for (let n = from; n < to; n++) {
      insertVector(db, n, 0, embedder.id, vectorToBytes(embedder.embedOne(textOf(n))));
      if (n % 7 === 0) {
        insertVector(db, n, 1, embedder.id, vectorToBytes(embedder.embedOne(textOf(n + 1))));
      }
    }
  });
}

/** One pass over every stored vector in id order: the ranking the files must reproduce. */
function reference(
  db: DatabaseSync,
  query: Float32Array,
  limit: number,
  allow?: (id: number) => boolean,
): VectorHit[] {
  const scored: Array<{ score: number; id: number; document: number }> = [];
  for (const row of vectorsAfter(db, embedder.id, 0, 1_000_000)) {
    const view = new DataView(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength);
    let score = 0;
    for (let d = 0; d < query.length; d++) {
      if (query[d] !== 0) score = Math.fround(score + query[d] * view.getFloat32(d * 4, true));
    }
    if (score > 0 && (allow === undefined || allow(row.document_id))) {
      scored.push({ score, id: row.id, document: row.document_id });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.id - b.id);
  const best = new Map<number, number>();
  for (const piece of scored.slice(0, limit * 4 + 16)) {
    if (!best.has(piece.document)) best.set(piece.document, piece.score);
  }
  return [...best].slice(0, limit).map(([id, score]) => ({ id, score }));
}

function openStore(file: string): DatabaseSync {
  const db = openDatabase(file);
  // Vectors only: no document rows behind them.
  db.exec("PRAGMA foreign_keys = OFF");
  return db;
}

const QUERIES = ["sqlite index", "canary rollout deploy", "session hook transcript", "zzz"];

/** A fresh connection (as a new process has) must rank exactly as one pass over the store. */
function assertExact(file: string, label: string): VectorIndex {
  const db = openStore(file);
  try {
    const index = VectorIndex.for(db, embedder.id);
    for (const text of QUERIES) {
      const query = embedder.embedOne(text);
      for (const limit of [1, 10, 100]) {
        assert.deepEqual(
          index.search(query, limit),
          reference(db, query, limit),
          `${label}: '${text}' limit ${limit}`,
        );
      }
      const even = (id: number) => id % 2 === 0;
      assert.deepEqual(index.search(query, 10, even), reference(db, query, 10, even), label);
    }
    return index;
  } finally {
    db.close();
  }
}

Deno.test("sealed files rank exactly like one pass over every vector, through merges and removals", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-vectors-" });
  const file = join(home, "vantage.db");
  const db = openStore(file);
  try {
    // Nine adds of about 1,200 vectors: nine seals; each fourth file of the first tier makes
    // the four merge into one of the next.
    const perAdd = SEAL_MIN_ROWS + 24;
    for (let add = 0; add < 9; add++) {
      storeDocuments(db, add * perAdd + 1, (add + 1) * perAdd + 1);
      const done = await maintainVectorIndex(db, embedder.id);
      assert.equal(done.sealed, 1, `add ${add}`);
      assert.equal(done.merged, add === 3 || add === 7 ? 1 : 0, `add ${add}`);
    }
    assert.deepEqual(
      vectorSegments(db, embedder.id).map((row) => row.rows > 4 * SEAL_MIN_ROWS),
      [true, true, false],
    );
    let index = assertExact(file, "merged");
    assert.equal(index.tailSize, 0);
    assert.equal(index.segmentCount, 3);

    // A small add stays in the tail, read from the store.
    storeDocuments(db, 9 * perAdd + 1, 9 * perAdd + 41);
    assert.equal((await maintainVectorIndex(db, embedder.id)).sealed, 0);
    index = assertExact(file, "tail");
    assert.ok(index.tailSize >= 40, String(index.tailSize));

    // Removed vectors are skipped in the files that still hold them, and a reader that already
    // holds columns sees the removal too.
    const held = VectorIndex.for(db, embedder.id);
    transaction(db, () => {
      for (let n = 3; n < 400; n += 3) deleteVectors(db, n);
      deleteVectors(db, 9 * perAdd + 5);
    });
    assertExact(file, "removed");
    const query = embedder.embedOne("sqlite index");
    assert.deepEqual(VectorIndex.for(db, embedder.id).search(query, 10), reference(db, query, 10));
    assert.equal(held, VectorIndex.for(db, embedder.id));

    // Out of a file's first quarter, most removed: that file is written again without them.
    const before = vectorSegments(db, embedder.id);
    transaction(db, () => {
      for (let n = 1; n < 3000; n++) deleteVectors(db, n);
    });
    const done = await maintainVectorIndex(db, embedder.id);
    assert.ok(done.merged >= 1, JSON.stringify(done));
    const after = vectorSegments(db, embedder.id);
    assert.notDeepEqual(after.map((row) => row.file), before.map((row) => row.file));
    // Files no segment names any more are gone.
    const onDisk = [...Deno.readDirSync(join(home, "docs-vectors"))].map((entry) => entry.name);
    assert.deepEqual(onDisk.sort(), after.map((row) => row.file).sort());
    assert.equal(
      (db.prepare("SELECT count(*) AS n FROM docs_vector_removed WHERE vector_id < 3000").get() as {
        n: number;
      }).n,
      0,
    );
    assertExact(file, "rewritten");
    // The reader that held the replaced files moves to the new ones.
    assert.deepEqual(VectorIndex.for(db, embedder.id).search(query, 10), reference(db, query, 10));
  } finally {
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a large add is sealed in files of bounded size; a tail left behind is searched, then sealed by the next maintenance", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-vectors-" });
  const file = join(home, "vantage.db");
  const db = openStore(file);
  try {
    storeDocuments(db, 1, SEAL_MAX_ROWS + 2000);
    const done = await maintainVectorIndex(db, embedder.id);
    assert.equal(done.sealed, 2);
    const rows = vectorSegments(db, embedder.id);
    assert.ok(rows.every((row) => row.rows <= SEAL_MAX_ROWS), JSON.stringify(rows));
    assertExact(file, "bounded");

    // Vectors an add left unsealed (it stopped before its end): a search answers the same from
    // the store and writes nothing (it may run under a read grant); the next add's maintenance
    // seals them.
    const top = rows.reduce((max, row) => Math.max(max, row.last_id), 0);
    storeDocuments(db, SEAL_MAX_ROWS + 2000, SEAL_MAX_ROWS + 2000 + 4 * SEAL_MIN_ROWS);
    const query = embedder.embedOne("canary rollout");
    const hits = await semanticHits(db, { query: "canary rollout", embedder }, 10, undefined);
    assert.deepEqual(
      hits,
      reference(db, query, 10).map((hit) => ({ id: hit.id, score: hit.score })),
    );
    await vectorMaintenanceSettled(db);
    assert.ok(!vectorSegments(db, embedder.id).some((row) => row.first_id > top));
    await maintainVectorIndex(db, embedder.id);
    assert.ok(vectorSegments(db, embedder.id).some((row) => row.first_id > top));
    assert.ok(VectorIndex.for(db, embedder.id).tailSize < SEAL_MIN_ROWS);
  } finally {
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a damaged or lost file is read around from the store, then sealed again", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-vectors-" });
  const file = join(home, "vantage.db");
  const db = openStore(file);
  try {
    storeDocuments(db, 1, 3 * SEAL_MIN_ROWS);
    await maintainVectorIndex(db, embedder.id);
    const [segment] = vectorSegments(db, embedder.id);
    const path = join(home, "docs-vectors", segment.file);
    const bytes = Deno.readFileSync(path);
    Deno.writeFileSync(path, bytes.subarray(0, bytes.length - 100));
    const index = assertExact(file, "damaged");
    assert.match(index.damage ?? "", /damaged/);
    assert.equal(index.segmentCount, 0);
    const done = await maintainVectorIndex(db, embedder.id);
    assert.ok(done.rebuilt);
    assert.ok(done.sealed >= 1);
    const repaired = assertExact(file, "repaired");
    assert.equal(repaired.damage, undefined);
    assert.equal(repaired.tailSize < SEAL_MIN_ROWS, true);

    // A file lost while its row still names it: the same, once listing again does not help.
    const [kept] = vectorSegments(db, embedder.id);
    Deno.removeSync(join(home, "docs-vectors", kept.file));
    assert.match(assertExact(file, "lost").damage ?? "", /missing/);
    assert.ok((await maintainVectorIndex(db, embedder.id)).rebuilt);
    assert.equal(assertExact(file, "sealed again").damage, undefined);
  } finally {
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});
