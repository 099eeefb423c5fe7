import assert from "node:assert/strict";
import { join } from "node:path";
import { vectorToBytes } from "../../src/docs/embedder.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { VectorIndex } from "../../src/docs/vector_index.ts";
import { maintainVectorIndex, SEAL_MIN_ROWS } from "../../src/docs/vector_segments.ts";
import { releaseConnection, releaseOnClose } from "../../src/store/connection_releases.ts";
import { openDatabase, transaction } from "../../src/store/database.ts";
import { insertVector } from "../../src/store/docs/vectors.ts";

Deno.test("a connection's releases run once each, the latest under a name, all of them when one throws", () => {
  const db = openDatabase(":memory:");
  try {
    const ran: string[] = [];
    releaseOnClose(db, "a", () => ran.push("a, replaced"));
    releaseOnClose(db, "a", () => ran.push("a"));
    releaseOnClose(db, "b", () => {
      ran.push("b");
      throw new Error("b failed");
    });
    releaseOnClose(db, "c", () => ran.push("c"));
    assert.throws(() => releaseConnection(db), /b failed/);
    assert.deepEqual(ran, ["a", "b", "c"]);
    releaseConnection(db); // Forgotten once run.
    assert.deepEqual(ran, ["a", "b", "c"]);
  } finally {
    db.close();
  }
});

/** The files of `folder` this process holds open. */
function openFilesIn(folder: string): string[] {
  const held: string[] = [];
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      const target = Deno.readLinkSync(join("/proc/self/fd", entry.name));
      if (target.startsWith(folder + "/")) held.push(target);
    } catch {
      // Closed while listed (the listing's own descriptor).
    }
  }
  return held;
}

Deno.test("releasing a store connection closes the sealed vector files its searches opened", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-releases-" });
  const db = openDatabase(join(home, "vantage.db"));
  try {
    db.exec("PRAGMA foreign_keys = OFF"); // Vectors only: no document rows behind them.
    const embedder = new HashedEmbedder();
    transaction(db, () => {
      for (let n = 1; n <= SEAL_MIN_ROWS + 24; n++) {
        const text = `document ${n} about ${n % 2 === 0 ? "sqlite" : "canary"} ${n % 7}`;
        insertVector(db, n, 0, embedder.id, vectorToBytes(embedder.embedOne(text)));
      }
    });
    assert.equal((await maintainVectorIndex(db, embedder.id)).sealed, 1);
    const folder = join(home, "docs-vectors");
    const search = () => VectorIndex.for(db, embedder.id).search(embedder.embedOne("sqlite"), 3);
    assert.equal(search().length, 3);
    assert.notDeepEqual(openFilesIn(folder), []);
    releaseConnection(db);
    assert.deepEqual(openFilesIn(folder), []);
    // A later search opens them again, and registers their release again.
    assert.equal(search().length, 3);
    assert.notDeepEqual(openFilesIn(folder), []);
    releaseConnection(db);
    assert.deepEqual(openFilesIn(folder), []);
  } finally {
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});
