import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../src/store/database.ts";
import { ingestPath } from "../../src/docs/doc_ingest.ts";
import { vectorToBytes } from "../../src/docs/embedder.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { IndexWorker } from "../../src/docs/index_worker.ts";
import { documentsNeedingVectors } from "../../src/store/docs/documents.ts";
import { vectorCount } from "../../src/store/docs/vectors.ts";
import { embeddingPieces } from "../../src/docs/doc_index.ts";

Deno.test("the embedding worker computes exactly the main thread's vectors", async () => {
  const embedder = new HashedEmbedder();
  const worker = new IndexWorker({ embedder });
  try {
    const pieces = ["parseHTTPRequest get_user_name", "Ünïcode wörds, 42 and more", ""];
    const [out] = (await worker.run([], [{ id: 7, pieces }])).embedded;
    assert.equal(out.id, 7);
    for (const [i, piece] of pieces.entries()) {
      assert.deepEqual(out.vectors[i], vectorToBytes(embedder.embedOne(piece)));
    }
  } finally {
    worker.close();
  }
});

Deno.test("a large folder add embeds on the worker and every document has its vectors", async () => {
  const dir = await Deno.makeTempDir();
  const db = openDatabase(":memory:");
  try {
    for (let i = 0; i < 300; i++) {
      await Deno.writeTextFile(join(dir, `n${i}.md`), `# Note ${i}\n\nalpha beta gamma${i} delta`);
    }
    const embedder = new HashedEmbedder();
    const report = await ingestPath(db, dir, { session: null, embedder, now: Date.now() });
    assert.equal(report.documents_added, 300);
    assert.equal(documentsNeedingVectors(db, embedder.id, 10).length, 0);
    assert.equal(vectorCount(db), 300);
    const row = db.prepare(
      "SELECT v.vector FROM docs_vectors v JOIN docs_documents d ON d.id = v.document_id WHERE d.name = 'n5.md'",
    ).get() as { vector: Uint8Array };
    const text = "# Note 5\n\nalpha beta gamma5 delta";
    assert.deepEqual(
      new Uint8Array(row.vector),
      vectorToBytes(embedder.embedOne(embeddingPieces("Note 5", text)[0])),
    );
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an index worker that cannot open its index rejects the batch with the reason", async () => {
  const worker = new IndexWorker({ indexPath: "/nonexistent-vantage-dir/docs-index.db" });
  try {
    await assert.rejects(
      worker.run([{ seq: 1, op: "add", id: 1, title: "t", path: "p", text: "x" }], []),
      /index worker: .*(unable to open|no such file|not found)/i,
    );
  } finally {
    worker.close();
  }
});

Deno.test("jobs the main thread steals are left out by the worker, and every job is done once", async () => {
  const embedder = new HashedEmbedder();
  const worker = new IndexWorker({ embedder });
  try {
    const piece = "alpha beta gamma delta ".repeat(60);
    const jobs = Array.from({ length: 400 }, (_, id) => ({ id, pieces: [piece, piece] }));
    const done = worker.run([], jobs);
    // Taken at once, before the worker can have reached the end of the batch.
    const stolen = [worker.steal()!, worker.steal()!, worker.steal()!];
    assert.deepEqual(stolen.map((job) => job.id), [399, 398, 397], "newest last job first");
    const out = await done;
    assert.ok(out.ms.embed >= 0 && out.ms.index >= 0);
    const embedded = out.embedded.map((doc) => doc.id);
    assert.equal(embedded.length + stolen.length, jobs.length);
    assert.deepEqual(
      [...embedded, ...stolen.map((job) => job.id)].sort((a, b) => a - b),
      jobs.map((job) => job.id),
    );
    assert.equal(worker.steal(), undefined, "an answered batch has nothing left to take");
  } finally {
    worker.close();
  }
});

Deno.test("the main thread sees the worker finish batches while it is too busy to take messages", async () => {
  const embedder = new HashedEmbedder();
  const worker = new IndexWorker({ embedder });
  try {
    const job = { id: 1, pieces: ["alpha beta gamma"] };
    const first = worker.run([], [job]);
    const second = worker.run([], [{ ...job, id: 2 }]);
    assert.equal(worker.unfinished, 2);
    // Busy without yielding, as while storing a batch: no message can arrive, the count moves.
    const deadline = Date.now() + 20_000;
    while (worker.unfinished > 0 && Date.now() < deadline) {
      // Spin.
    }
    assert.equal(worker.unfinished, 0, "both batches were seen finished without a message");
    assert.deepEqual((await first).embedded.map((doc) => doc.id), [1]);
    assert.deepEqual((await second).embedded.map((doc) => doc.id), [2]);
    assert.equal(worker.unfinished, 0);
  } finally {
    worker.close();
  }
});
