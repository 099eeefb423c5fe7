/**
 * The document store's conformance cases beside docs_store_conformance_test.ts (which is at its
 * size limit): the batched reads a listing uses — every document's tags, metadata and
 * collections in one read each, answering what the one-document reads answer — and the index
 * queue's lease and deletion a server's catch-up uses, on SQLite and PostgreSQL alike.
 */
import assert from "node:assert/strict";
import type { DocsStore } from "../../src/store/docs/docs_store.ts";
import type { StoreMode } from "../../src/store/repository.ts";
import { type OpenStore, storeBackends } from "../helpers/store_backends.ts";

const T0 = 1_767_000_000_000;

/** Stores a one-chunk content and a latest document of it at `path`; answers its id. */
async function addDocument(docs: DocsStore<StoreMode>, path: string, c: string): Promise<number> {
  const hash = c.repeat(64);
  await docs.insertChunk(hash, 3, new Uint8Array([1, 2, 3]));
  await docs.insertContent(hash, 3, [{ seq: 0, chunk_hash: hash, offset: 0, length: 3 }], T0);
  const name = path.slice(path.lastIndexOf("/") + 1);
  return await docs.insertDocument({
    hash,
    path,
    relative_path: name,
    name,
    extension: ".md",
    mime: "text/markdown",
    is_text: 1,
    size: 3,
    title: name,
    created_at: T0,
    modified_at: T0,
    indexed_at: T0,
    snapshot_id: null,
    session_id: null,
    source_url: null,
  });
}

const CASES: Array<{ name: string; run: (s: OpenStore) => Promise<void> }> = [];
const conformance = (name: string, run: (s: OpenStore) => Promise<void>) =>
  CASES.push({ name, run });

conformance("tags, metadata and collections of many documents at once", async (s) => {
  const docs = s.store.docs;
  const a = await addDocument(docs, "/w/a.md", "a");
  const b = await addDocument(docs, "/w/b.md", "b");
  const c = await addDocument(docs, "/w/c.md", "c");
  await docs.addTags(a, ["zeta", "Alpha", "beta"]);
  await docs.addTags(c, ["only"]);
  await docs.setMetadata(a, { team: "core", owner: "ana", "10": "x", "2": "y" });
  await docs.setMetadata(b, { owner: "ben" });
  await docs.addToCollection(a, "handbook", "a.md");
  await docs.addToCollection(a, "Archive", "old/a.md");
  await docs.addToCollection(b, "handbook", "b.md");

  // Asked in any order, with an id twice and one no document has: an entry for each id asked.
  const ids = [c, a, 999, b, a];
  const tags = await docs.tagsOfMany(ids);
  const metadata = await docs.metadataOfMany(ids);
  const collections = await docs.collectionsOfMany(ids);
  for (const id of [a, b, c]) {
    assert.deepEqual(tags.get(id), await docs.tagsOf(id));
    assert.deepEqual(metadata.get(id), await docs.metadataOf(id));
    assert.deepEqual(collections.get(id), await docs.collectionsOf(id));
    // Key order too: an answer built from either read serialises the same.
    assert.equal(JSON.stringify(metadata.get(id)), JSON.stringify(await docs.metadataOf(id)));
  }
  assert.deepEqual(tags.get(a), ["Alpha", "beta", "zeta"]);
  assert.deepEqual(tags.get(b), []);
  assert.deepEqual(metadata.get(a), { "2": "y", "10": "x", owner: "ana", team: "core" });
  assert.deepEqual(metadata.get(c), {});
  assert.deepEqual(collections.get(a), ["Archive", "handbook"]);
  assert.deepEqual(collections.get(c), []);
  assert.deepEqual(tags.get(999), []);
  assert.deepEqual(metadata.get(999), {});
  assert.deepEqual(collections.get(999), []);
  assert.deepEqual([...tags.keys()].sort((x, y) => x - y), [a, b, c, 999]);
  assert.equal((await docs.tagsOfMany([])).size, 0);
  assert.equal((await docs.metadataOfMany([])).size, 0);
  assert.equal((await docs.collectionsOfMany([])).size, 0);
});

conformance(
  "index queue: a lease takes old changes once, and deleting them clears them",
  async (s) => {
    const docs = s.store.docs;
    const first = await docs.queueIndexChange(7, "add");
    const second = await docs.queueIndexChange(8, "remove");
    const third = await docs.queueIndexChange(9, "add");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Nothing has waited an hour: nothing to take.
    assert.deepEqual(await docs.leaseIndexChanges(10, 3_600_000), []);
    assert.deepEqual(await docs.leaseIndexChanges(2, 0), [
      { seq: first, op: "add", id: 7 },
      { seq: second, op: "remove", id: 8 },
    ]);
    // Their wait restarted: a catch-up that waits for changes 150 ms old leaves them alone now…
    assert.deepEqual(await docs.leaseIndexChanges(10, 150), [{ seq: third, op: "add", id: 9 }]);
    // …and they are still queued for whoever takes them once the lease is over.
    assert.deepEqual((await docs.queuedIndexChanges(10)).map((change) => change.seq), [
      first,
      second,
      third,
    ]);
    assert.equal(await docs.deleteIndexChanges([first, third, 12345]), 2);
    assert.equal(await docs.deleteIndexChanges([first]), 0);
    assert.equal(await docs.deleteIndexChanges([]), 0);
    assert.deepEqual(await docs.queuedIndexChanges(10), [{ seq: second, op: "remove", id: 8 }]);
    assert.equal(await s.count("docs_index_queue"), 1);
  },
);

for (const backend of storeBackends("the document store's batched reads on PostgreSQL")) {
  for (const testCase of CASES) {
    Deno.test({
      name: `docs store conformance (${backend.name}): ${testCase.name}`,
      ignore: backend.ignore,
      async fn() {
        const store = await backend.open();
        try {
          await testCase.run(store);
        } finally {
          await store.close();
        }
      },
    });
  }
}
