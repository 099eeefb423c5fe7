import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../../src/store/database.ts";
import { docsIndex } from "../../../src/store/docs/search_index.ts";
import { HashedEmbedder } from "../../../src/docs/hashed_embedder.ts";
import { storeBatch } from "../../../src/docs/doc_ingest/batches.ts";
import { Ingest, newReport } from "../../../src/docs/doc_ingest/ingest.ts";
import { listFiles } from "../../../src/docs/doc_ingest/scan.ts";
import { NO_GIT } from "../../../src/docs/doc_ingest/snapshot.ts";
import type { IngestOptions } from "../../../src/docs/doc_ingest.ts";

Deno.test({
  name:
    "a batch commits after the file in hand when another writer waits, and goes on once it has had its turn",
  sanitizeResources: false,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "vantage-batches-" });
    const folder = join(work, "docs");
    await Deno.mkdir(folder);
    for (let i = 0; i < 6; i++) await Deno.writeTextFile(join(folder, `n${i}.md`), `note ${i}\n`);
    const storePath = join(work, "store.db");
    const db = openDatabase(storePath);
    // A writer of another process announces that it waits by holding `<store>.wait` shared; an
    // open file of its own stands for it here (flock locks of two opens conflict).
    const waiter = Deno.openSync(`${storePath}.wait`, { read: true, write: true, create: true });
    let waiting = false;
    const documents = () =>
      (db.prepare("SELECT count(*) AS n FROM docs_documents").get() as { n: number }).n;
    try {
      const options: IngestOptions = {
        session: null,
        embedder: new HashedEmbedder(),
        now: Date.now(),
      };
      const report = newReport(options);
      docsIndex(db);
      const ingest = new Ingest(db, options, report);
      ingest.openSnapshot(folder, NO_GIT);
      const files = listFiles(folder, options, report);
      assert.equal(files.length, 6);
      waiter.lockSync(false);
      waiting = true;
      const storing = storeBatch(ingest, files, undefined);
      // The first write stored one file and committed; the batch now waits for the waiter.
      for (let i = 0; i < 1000 && documents() === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(documents(), 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(documents(), 1, "nothing is written while a writer waits for its turn");
      waiter.unlockSync();
      waiting = false;
      await storing;
      assert.equal(documents(), 6);
      assert.equal(report.files_scanned, 6);
      assert.equal(report.documents_added, 6);
      ingest.close();
    } finally {
      if (waiting) waiter.unlockSync();
      waiter.close();
      db.close();
      await Deno.remove(work, { recursive: true });
    }
  },
});
