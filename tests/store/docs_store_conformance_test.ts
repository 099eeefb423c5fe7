/**
 * The document store's conformance suite: every case runs against SQLite (its synchronous
 * answers awaited) and PostgreSQL with the same writes and the same expected answers —
 * documents and their versions, tags, metadata, collections, listings and totals, chunks and
 * contents, snapshots, document sessions, vectors (with the removal counter their trigger
 * moves), the code graph, the index queue and the state values — and a transaction of
 * document writes commits together or not at all.
 */
import assert from "node:assert/strict";
import type { DocsStore } from "../../src/store/docs/docs_store.ts";
import type { NewDocument } from "../../src/store/docs/documents.ts";
import type { StoreMode } from "../../src/store/repository.ts";
import { type OpenStore, storeBackends } from "../helpers/store_backends.ts";

const T0 = 1_767_000_000_000;

function doc(path: string, hash: string, fields: Partial<NewDocument> = {}): NewDocument {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return {
    hash,
    path,
    relative_path: name,
    name,
    extension: dot > 0 ? name.slice(dot).toLowerCase() : "",
    mime: "text/markdown",
    is_text: 1,
    size: 100,
    title: name,
    created_at: T0,
    modified_at: T0,
    indexed_at: T0,
    snapshot_id: null,
    session_id: null,
    source_url: null,
    ...fields,
  };
}

/** A content of one chunk whose hash is the content's own, and a document of it. */
async function addDocument(docs: DocsStore<StoreMode>, d: NewDocument): Promise<number> {
  if (!await docs.contentExists(d.hash)) {
    await docs.insertChunk(d.hash, d.size, new Uint8Array([1, 2, 3]));
    await docs.insertContent(
      d.hash,
      d.size,
      [{ seq: 0, chunk_hash: d.hash, offset: 0, length: d.size }],
      T0,
    );
  }
  return await docs.insertDocument(d);
}

const hash = (c: string) => c.repeat(64);

const CASES: Array<{ name: string; run: (s: OpenStore) => Promise<void> }> = [];
const conformance = (name: string, run: (s: OpenStore) => Promise<void>) =>
  CASES.push({ name, run });

conformance("documents: versions of a path, lookups by id, hash, name and path", async (s) => {
  const docs = s.store.docs;
  const a1 = await addDocument(docs, doc("/w/notes/a.md", hash("a"), { size: 10 }));
  const b = await addDocument(docs, doc("/w/src/b.ts", hash("b"), { mime: "text/typescript" }));
  assert.deepEqual([a1, b], [1, 2]);
  // A new version of a.md: the older one is superseded.
  const a2 = await addDocument(docs, doc("/w/notes/a.md", hash("c"), { indexed_at: T0 + 5 }));
  assert.deepEqual(await docs.supersedeOtherVersions("/w/notes/a.md", a2), [a1]);
  assert.deepEqual(await docs.supersedeOtherVersions("/w/notes/a.md", a2), []);
  const versions = await docs.pathVersions("/w/notes/a.md", hash("a"));
  assert.equal(versions.same?.id, a1);
  assert.equal(versions.same?.is_latest, 0);
  assert.equal(versions.latest?.id, a2);
  assert.equal((await docs.latestDocumentForPath("/w/notes/a.md"))?.id, a2);
  assert.equal(await docs.latestDocumentForPath("/w/nope.md"), undefined);
  assert.deepEqual(await docs.documentById(b), {
    id: b,
    ...doc("/w/src/b.ts", hash("b"), { mime: "text/typescript" }),
    is_latest: 1,
    vector_model: null,
    person: null,
  });
  assert.equal(await docs.documentById(99), undefined);
  assert.deepEqual(
    (await docs.documentsByIds([a2, b, 99])).map((d) => d.id).sort((x, y) => x - y),
    [b, a2],
  );
  assert.deepEqual(await docs.documentsByIds([]), []);
  // Hash prefixes: latest first, then newest.
  assert.deepEqual((await docs.documentsByHashPrefix("cc", false)).map((d) => d.id), [a2]);
  assert.deepEqual((await docs.documentsByHashPrefix("aa", true)).map((d) => d.id), []);
  assert.deepEqual((await docs.documentsByHashPrefix("", false, 2)).map((d) => d.id), [a2, b]);
  // Names: the exact path, the base name, a path suffix after a slash; never a bare suffix.
  assert.deepEqual((await docs.documentsByName("a.md")).map((d) => d.id), [a2]);
  assert.deepEqual((await docs.documentsByName("notes/a.md")).map((d) => d.id), [a2]);
  assert.deepEqual((await docs.documentsByName("/w/src/b.ts")).map((d) => d.id), [b]);
  assert.deepEqual(await docs.documentsByName("otes/a.md"), []);
  assert.deepEqual(
    (await docs.documentPathsAll(false)).map((d) => [d.id, d.name]),
    [[a1, "a.md"], [b, "b.ts"], [a2, "a.md"]],
  );
  assert.deepEqual((await docs.documentPathsAll(true)).map((d) => d.id), [b, a2]);
  assert.deepEqual(
    (await docs.documentsForPaths(["/w/src/b.ts", "/w/notes/a.md", "/w/src/b.ts"])).map((d) =>
      d.id
    ),
    [b, a1, a2, b],
  );
  assert.deepEqual((await docs.documentsAfter(a1, 10)).map((d) => d.id), [b, a2]);
  assert.deepEqual((await docs.documentsAfter(0, 1)).map((d) => d.id), [a1]);
  // Re-adding the old version makes it the latest again, with the fields refreshed.
  await docs.refreshDocument(a1, { relative_path: "x/a.md", modified_at: T0 + 9, session_id: "s" });
  const refreshed = await docs.documentById(a1);
  assert.deepEqual(
    [refreshed?.relative_path, refreshed?.modified_at, refreshed?.session_id, refreshed?.is_latest],
    ["x/a.md", T0 + 9, "s", 1],
  );
  await docs.refreshDocument(a1, { relative_path: "y/a.md", modified_at: T0 + 10 });
  assert.equal((await docs.documentById(a1))?.session_id, "s");
  assert.equal(await docs.isLatestDocument(a1), true);
  assert.deepEqual(await docs.supersedeOtherVersions("/w/notes/a.md", a1), [a2]);
  assert.equal(await docs.isLatestDocument(a2), false);
  assert.equal(await docs.isLatestDocument(99), false);
  // Vectors wanted: latest text documents without this model's vectors.
  await docs.setVectorModel(b, "m1");
  assert.deepEqual((await docs.documentsNeedingVectors("m1", 10)).map((d) => d.id), [a1]);
  assert.deepEqual((await docs.documentsNeedingVectors("m2", 10)).map((d) => d.id), [a1, b]);
  await docs.deleteDocumentRow(a2);
  assert.equal(await docs.documentById(a2), undefined);
  assert.equal(await s.count("docs_documents"), 2);
});

conformance("tags, metadata and collections hang off a document and go with it", async (s) => {
  const docs = s.store.docs;
  const a = await addDocument(docs, doc("/w/a.md", hash("a")));
  const b = await addDocument(docs, doc("/w/b.md", hash("b")));
  await docs.addTags(a, ["zeta", "alpha", "alpha", "Beta"]);
  await docs.addTags(a, ["alpha"]);
  assert.deepEqual(await docs.tagsOf(a), ["Beta", "alpha", "zeta"]);
  await docs.removeTags(a, ["zeta", "nope"]);
  assert.deepEqual(await docs.tagsOf(a), ["Beta", "alpha"]);
  await docs.addTags(a, []);
  await docs.setMetadata(a, { owner: "ann", kind: "note" });
  await docs.setMetadata(a, { owner: "bob" });
  assert.deepEqual(await docs.metadataOf(a), { kind: "note", owner: "bob" });
  await docs.removeMetadata(a, ["kind"]);
  assert.deepEqual(await docs.metadataOf(a), { owner: "bob" });
  assert.deepEqual(await docs.metadataOf(b), {});

  await docs.addToCollection(a, "docs", "a.md");
  await docs.addToCollection(a, "docs", "moved/a.md");
  await docs.addToCollection(a, "archive", "old/a.md");
  await docs.addToCollection(b, "docs", "b.md");
  assert.deepEqual(await docs.collectionsOf(a), ["archive", "docs"]);
  assert.equal(await docs.collectionExists("docs"), true);
  assert.equal(await docs.collectionExists("nope"), false);
  assert.deepEqual(
    await docs.collectionPaths("docs"),
    new Map([[a, "moved/a.md"], [b, "b.md"]]),
  );
  assert.deepEqual(await docs.collectionRows(), [
    { name: "archive", document_count: 1, total_bytes: 100 },
    { name: "docs", document_count: 2, total_bytes: 200 },
  ]);
  // A new version of a.md inherits its collections, keeping the ones it has.
  const a2 = await addDocument(docs, doc("/w/a.md", hash("c")));
  await docs.addToCollection(a2, "docs", "new/a.md");
  await docs.inheritCollections(a, a2);
  assert.deepEqual(await docs.collectionsOf(a2), ["archive", "docs"]);
  assert.equal((await docs.collectionPaths("docs")).get(a2), "new/a.md");
  assert.equal(await docs.removeFromCollection(a, "archive"), true);
  assert.equal(await docs.removeFromCollection(a, "archive"), false);
  await docs.deleteDocumentRow(a);
  for (const table of ["docs_tags", "docs_metadata"]) assert.equal(await s.count(table), 0);
  assert.deepEqual(await docs.collectionsOf(a), []);
});

conformance("listing: filters, sort orders, pages, totals and file types", async (s) => {
  const docs = s.store.docs;
  await docs.startSession("work", null, null, T0);
  const ids = [
    await addDocument(docs, doc("/w/b.md", hash("1"), { size: 30, session_id: "work" })),
    await addDocument(docs, doc("/w/a.TS", hash("2"), { size: 10, mime: "text/typescript" })),
    await addDocument(
      docs,
      doc("/w/c.png", hash("3"), { size: 20, mime: "image/png", is_text: 0, indexed_at: T0 + 1 }),
    ),
    await addDocument(docs, doc("/w/d.md", hash("4"), { size: 40, snapshot_id: "snap" })),
  ];
  const [b, a, c, d] = ids;
  const old = await addDocument(docs, doc("/w/b.md", hash("5"), { size: 5 }));
  await docs.supersedeOtherVersions("/w/b.md", b);
  await docs.pinDocuments("work", [d], T0);
  await docs.addTags(b, ["x", "y"]);
  await docs.addTags(d, ["x"]);
  await docs.addToCollection(a, "col", "a.ts");
  await docs.upsertSnapshot({
    snapshot_id: "other",
    label: null,
    created_at: T0,
    directory_path: null,
    collection: null,
    session_id: null,
    git_commit: null,
    git_branch: null,
    git_remote: null,
    files_count: 0,
  });
  await docs.addSnapshotMember("other", c);
  const sorted = async (filter: Parameters<typeof docs.filteredIds>[0]) =>
    (await docs.filteredIds(filter)).sort((x, y) => x - y);
  assert.deepEqual(await sorted({}), [b, a, c, d]);
  assert.deepEqual(await sorted({ latestOnly: false }), [b, a, c, d, old]);
  assert.deepEqual(await sorted({ session: "work" }), [b, d]);
  assert.deepEqual(await sorted({ isText: false }), [c]);
  assert.deepEqual(await sorted({ extension: "TS" }), [a]);
  assert.deepEqual(await sorted({ extension: ".md" }), [b, d]);
  assert.deepEqual(await sorted({ collection: "col" }), [a]);
  assert.deepEqual(await sorted({ snapshotId: "snap" }), [d]);
  assert.deepEqual(await sorted({ snapshotId: "other" }), [c]);
  assert.deepEqual(await sorted({ tags: ["x"] }), [b, d]);
  assert.deepEqual(await sorted({ tags: ["x", "y"] }), [b]);
  assert.deepEqual(await sorted({ tags: ["x"], session: "work", isText: true }), [b, d]);

  const list = async (query: Parameters<typeof docs.listDocuments>[0]) => {
    const { total, rows } = await docs.listDocuments(query);
    return { total, ids: rows.map((row) => row.id) };
  };
  assert.deepEqual(await list({ filter: {} }), { total: 4, ids: [c, d, a, b] });
  assert.deepEqual(await list({ filter: {}, sortBy: "size", order: "asc" }), {
    total: 4,
    ids: [a, c, b, d],
  });
  // Byte order: an upper-case name sorts before lower-case ones, as SQLite sorts text.
  assert.deepEqual(await list({ filter: {}, sortBy: "path", order: "asc", limit: 2 }), {
    total: 4,
    ids: [a, b],
  });
  assert.deepEqual(
    await list({ filter: { latestOnly: false }, sortBy: "name", limit: 2, offset: 1 }),
    { total: 5, ids: [c, old] },
  );
  assert.deepEqual(await list({ filter: {}, sortBy: "name", order: "asc", offset: 3 }), {
    total: 4,
    ids: [d],
  });
  assert.deepEqual(await docs.documentTotals(), {
    documents: 5,
    bytes: 105,
    latest_documents: 4,
    text_documents: 3,
    binary_documents: 1,
    contents: 5,
    content_bytes: 105,
  });
  assert.deepEqual(await docs.fileTypeCounts(), [
    { extension: ".md", mime: "text/markdown", count: 2, bytes: 70 },
    { extension: ".png", mime: "image/png", count: 1, bytes: 20 },
    { extension: ".ts", mime: "text/typescript", count: 1, bytes: 10 },
  ]);
});

conformance("chunks and contents: bytes, chunk lists, references, release", async (s) => {
  const docs = s.store.docs;
  const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) % 256);
  assert.equal(await docs.chunkExists(hash("1")), false);
  await docs.insertChunk(hash("1"), 10, bytes(8));
  await docs.insertChunk(hash("2"), 20, bytes(16));
  assert.deepEqual(await docs.readChunk(hash("1")), { size: 10, data: bytes(8) });
  assert.equal(await docs.readChunk(hash("9")), undefined);
  // A content of two chunks, one of them twice.
  const manifest = [
    { seq: 0, chunk_hash: hash("1"), offset: 0, length: 10 },
    { seq: 1, chunk_hash: hash("2"), offset: 10, length: 20 },
    { seq: 2, chunk_hash: hash("1"), offset: 30, length: 10 },
  ];
  await docs.addChunkReferences(hash("1"), 1);
  await docs.insertContent(hash("c"), 40, manifest, T0);
  assert.equal(await docs.contentExists(hash("c")), true);
  assert.deepEqual(await docs.contentManifest(hash("c")), manifest);
  assert.equal(await docs.contentSize(hash("c")), 40);
  assert.equal(await docs.contentSize(hash("9")), undefined);
  assert.deepEqual(await docs.contentManifest(hash("9")), []);
  assert.equal(await docs.chunkReferenceCount(hash("1")), 2);
  // A content of one chunk is that chunk: no list stored, one reference counted.
  await docs.insertChunk(hash("3"), 5, bytes(5));
  await docs.insertContent(
    hash("3"),
    5,
    [{ seq: 0, chunk_hash: hash("3"), offset: 0, length: 5 }],
    T0,
  );
  assert.deepEqual(await docs.contentManifest(hash("3")), [
    { seq: 0, chunk_hash: hash("3"), offset: 0, length: 5 },
  ]);
  assert.equal(await docs.chunkReferenceCount(hash("3")), 1);
  assert.equal(await s.count("docs_content_chunks"), 3);
  assert.deepEqual(await docs.chunkTotals(), { chunks: 3, raw_bytes: 35, stored_bytes: 29 });

  // A content a document uses stays; released, its chunks lose their references.
  const id = await docs.insertDocument(doc("/w/c.bin", hash("c"), { size: 40 }));
  assert.equal(await docs.releaseContentIfUnused(hash("c")), false);
  await docs.deleteDocumentRow(id);
  assert.equal(await docs.releaseContentIfUnused(hash("c")), true);
  assert.equal(await docs.contentExists(hash("c")), false);
  assert.equal(await s.count("docs_content_chunks"), 0);
  assert.deepEqual(await docs.deleteUnreferencedChunks(), { chunks: 2, bytes: 24 });
  assert.deepEqual(await docs.deleteUnreferencedChunks(), { chunks: 0, bytes: 0 });
  assert.equal(await docs.chunkExists(hash("3")), true);
  // Damaged bytes put back keep the references; a lost row comes back with those counted.
  await docs.rewriteChunkBytes(hash("3"), 5, bytes(6), () => 99);
  assert.deepEqual(await docs.readChunk(hash("3")), { size: 5, data: bytes(6) });
  await docs.rewriteChunkBytes(hash("4"), 7, bytes(7), () => 3);
  assert.deepEqual(await docs.readChunk(hash("4")), { size: 7, data: bytes(7) });
  await docs.addChunkReferences(hash("4"), -3);
  await docs.addChunkReferences(hash("3"), -1);
  assert.deepEqual(await docs.deleteUnreferencedChunks(), { chunks: 2, bytes: 13 });
  // Nothing packed in memory (SQLite) or ever (PostgreSQL): nothing to compact.
  assert.equal(await docs.compactChunkPacks(1 << 20), false);
});

conformance("snapshots: upserted, counted, listed, emptied", async (s) => {
  const docs = s.store.docs;
  const snapshot = (id: string, at: number, fields: Record<string, string | null> = {}) => ({
    snapshot_id: id,
    label: null,
    created_at: at,
    directory_path: "/w",
    collection: null,
    session_id: null,
    git_commit: null,
    git_branch: null,
    git_remote: null,
    files_count: 0,
    ...fields,
  });
  assert.equal(await docs.snapshotExists("s1"), false);
  await docs.upsertSnapshot(snapshot("s1", T0, { label: "first", git_commit: "abc" }));
  await docs.upsertSnapshot(snapshot("s1", T0 + 9, { git_branch: "main", directory_path: null }));
  assert.deepEqual(await docs.snapshotById("s1"), {
    ...snapshot("s1", T0, { label: "first", git_commit: "abc", git_branch: "main" }),
  });
  await docs.upsertSnapshot(snapshot("s2", T0 + 1));
  await docs.upsertSnapshot(snapshot("s0", T0 + 1));
  const a = await addDocument(docs, doc("/w/a.md", hash("a"), { snapshot_id: "s1" }));
  const b = await addDocument(docs, doc("/w/b.md", hash("b"), { snapshot_id: "s2" }));
  await docs.addSnapshotMember("s1", b);
  await docs.addSnapshotMember("s1", b);
  await docs.addSnapshotMember("s1", a);
  for (const id of ["s0", "s1", "s2"]) await docs.refreshSnapshotCount(id);
  assert.deepEqual(await docs.snapshotMemberIds("s1"), [a, b]);
  assert.deepEqual(await docs.snapshotMemberIds("s0"), []);
  assert.deepEqual(
    (await docs.listSnapshots(10)).map((r) => [r.snapshot_id, r.files_count]),
    [["s2", 1], ["s0", 0], ["s1", 2]],
  );
  assert.deepEqual((await docs.listSnapshots(1)).map((r) => r.snapshot_id), ["s2"]);
  assert.equal(await docs.snapshotCount(), 3);
  assert.deepEqual(
    (await docs.snapshotsByIds(["s2", "nope", "s1", "s2"])).map((r) => r.snapshot_id),
    ["s2", "s1", "s2"],
  );
  // Only a snapshot that had documents and has none left is deleted.
  await docs.deleteDocumentRow(b);
  assert.equal(await docs.deleteEmptySnapshots(), 1);
  assert.deepEqual((await docs.listSnapshots(10)).map((r) => r.snapshot_id), ["s0", "s1"]);
});

conformance("document sessions: one current, pins, served suggestions", async (s) => {
  const docs = s.store.docs;
  assert.equal(await docs.currentSession(), undefined);
  await docs.startSession("one", "First", null, T0);
  await docs.startSession("two", null, "the second", T0 + 1);
  assert.equal((await docs.currentSession())?.session_id, "two");
  await docs.stopSession("two", T0 + 2);
  assert.equal(await docs.currentSession(), undefined);
  await docs.startSession("one", null, "now described", T0 + 3);
  assert.deepEqual(await docs.sessionById("one"), {
    session_id: "one",
    label: "First",
    description: "now described",
    started_at: T0,
    stopped_at: null,
    is_current: 1,
  });
  assert.deepEqual(await docs.sessionById("two"), {
    session_id: "two",
    label: null,
    description: "the second",
    started_at: T0 + 1,
    stopped_at: T0 + 2,
    is_current: 0,
  });
  assert.deepEqual((await docs.listSessions(10)).map((r) => r.session_id), ["two", "one"]);
  assert.deepEqual((await docs.listSessions(1)).map((r) => r.session_id), ["two"]);
  const a = await addDocument(docs, doc("/w/a.md", hash("a"), { session_id: "one" }));
  const b = await addDocument(docs, doc("/w/b.md", hash("b")));
  assert.equal(await docs.sessionDocumentCount("one"), 1);
  assert.equal(await docs.pinDocuments("one", [a, b, b], T0), 2);
  assert.equal(await docs.pinDocuments("one", [b], T0), 0);
  assert.equal(await docs.pinCount("one"), 2);
  assert.equal(await docs.unpinDocuments("one", [b, 99]), 1);
  assert.equal(await docs.pinCount("one"), 1);
  assert.equal(await docs.lastServedSuggestions("one", "q"), undefined);
  for (let i = 0; i < 30; i++) {
    await docs.recordServedSuggestions("one", i % 2 === 0 ? "q" : "r", `[${i}]`, T0 + i);
  }
  await docs.recordServedSuggestions("two", "q", "[two]", T0);
  assert.equal(await docs.lastServedSuggestions("one", "q"), "[28]");
  assert.equal(await docs.lastServedSuggestions("one", "r"), "[29]");
  assert.equal(await docs.lastServedSuggestions("two", "q"), "[two]");
  // The newest 25 of a session are kept.
  assert.equal(await s.count("docs_suggestions_served"), 26);
});

conformance("vectors: stored, paged, first pieces, removals counted", async (s) => {
  const docs = s.store.docs;
  const a = await addDocument(docs, doc("/w/a.md", hash("a")));
  const b = await addDocument(docs, doc("/w/b.md", hash("b")));
  const v = (n: number) => new Uint8Array(new Float32Array([n, -n, n / 2]).buffer);
  await docs.insertVector(a, 0, "m1", v(1));
  await docs.insertVector(a, 1, "m1", v(2));
  await docs.insertVector(b, 0, "m1", v(3));
  await docs.insertVector(b, 0, "m2", v(4));
  assert.equal(await docs.vectorCount(), 4);
  const page = await docs.vectorsAfter("m1", 0, 2);
  assert.deepEqual(page, [
    { id: 1, document_id: a, seq: 0, vector: v(1) },
    { id: 2, document_id: a, seq: 1, vector: v(2) },
  ]);
  assert.deepEqual((await docs.vectorsAfter("m1", 2, 10)).map((r) => r.id), [3]);
  assert.deepEqual(await docs.firstVectors("m1"), [
    { document_id: a, vector: v(1) },
    { document_id: b, vector: v(3) },
  ]);
  assert.equal(await docs.readCounter("vector_removals"), 0);
  assert.equal(await docs.deleteVectors(a), 2);
  assert.equal(await docs.deleteVectors(a), 0);
  assert.equal(await docs.readCounter("vector_removals"), 2);
  // A deleted document's vectors go with it, and are counted too.
  await docs.deleteDocumentRow(b);
  assert.equal(await docs.vectorCount(), 0);
  assert.equal(await docs.readCounter("vector_removals"), 4);
  // Ids are never reused.
  await docs.insertVector(a, 0, "m1", v(5));
  assert.deepEqual((await docs.vectorsAfter("m1", 0, 10)).map((r) => r.id), [5]);
});

conformance("code graph: nodes, edges, DEFINES read from parents, counts", async (s) => {
  const docs = s.store.docs;
  const a = await addDocument(docs, doc("/w/a.ts", hash("a")));
  const b = await addDocument(docs, doc("/w/b.ts", hash("b")));
  await docs.insertGraph(a, [
    { node_key: "file:/w/a.ts", type: "file", name: "a.ts", line: 1 },
    {
      node_key: "symbol:/w/a.ts#main",
      type: "function",
      name: "main",
      line: 3,
      parent: "file:/w/a.ts",
    },
    { node_key: "symbol:/w/a.ts#Zed", type: "class", name: "Zed", line: 9, parent: "file:/w/a.ts" },
    { node_key: "ref:helper", type: "reference", name: "helper", line: 4 },
    { node_key: "ref:helper", type: "reference", name: "helper", line: 5 },
  ], [
    { src: "symbol:/w/a.ts#main", dst: "ref:helper", relation: "CALLS", line: 4 },
    { src: "file:/w/a.ts", dst: "module:std", relation: "IMPORTS", line: 1 },
    { src: "file:/w/a.ts", dst: "module:fs", relation: "IMPORTS", line: 2 },
    { src: "file:/w/a.ts", dst: "ref:x", relation: "CALLS", line: 7 },
  ]);
  await docs.insertGraph(b, [
    { node_key: "file:/w/b.ts", type: "file", name: "b.ts", line: 1 },
    {
      node_key: "symbol:/w/b.ts#helper",
      type: "function",
      name: "helper",
      line: 2,
      parent: "file:/w/b.ts",
    },
    { node_key: "ref:helper", type: "reference", name: "helper", line: 8 },
  ], []);
  const edges = async (key: string, reverse: boolean, relation?: string, limit = 10) =>
    (await docs.edgesOf(key, reverse, relation, limit)).map((e) =>
      `${e.document_id} ${e.src} -${e.relation}-> ${e.dst} @${e.line}`
    );
  assert.deepEqual(await edges("file:/w/a.ts", false), [
    "1 file:/w/a.ts -CALLS-> ref:x @7",
    "1 file:/w/a.ts -DEFINES-> symbol:/w/a.ts#main @3",
    "1 file:/w/a.ts -DEFINES-> symbol:/w/a.ts#Zed @9",
    "1 file:/w/a.ts -IMPORTS-> module:std @1",
    "1 file:/w/a.ts -IMPORTS-> module:fs @2",
  ]);
  assert.deepEqual(await edges("file:/w/a.ts", false, "IMPORTS", 1), [
    "1 file:/w/a.ts -IMPORTS-> module:std @1",
  ]);
  assert.deepEqual(await edges("file:/w/a.ts", false, undefined, 2), [
    "1 file:/w/a.ts -CALLS-> ref:x @7",
    "1 file:/w/a.ts -DEFINES-> symbol:/w/a.ts#main @3",
  ]);
  assert.deepEqual(await edges("symbol:/w/b.ts#helper", true), [
    "2 file:/w/b.ts -DEFINES-> symbol:/w/b.ts#helper @2",
  ]);
  assert.deepEqual(await edges("ref:helper", true, "CALLS"), [
    "1 symbol:/w/a.ts#main -CALLS-> ref:helper @4",
  ]);
  // A key met twice in one document keeps its first row.
  assert.deepEqual(await docs.nodesByKey("ref:helper"), [
    { document_id: a, node_key: "ref:helper", type: "reference", name: "helper", line: 4 },
    { document_id: b, node_key: "ref:helper", type: "reference", name: "helper", line: 8 },
  ]);
  assert.deepEqual((await docs.definitionsNamed("helper", 10)).map((n) => n.node_key), [
    "symbol:/w/b.ts#helper",
  ]);
  assert.deepEqual(await docs.nodeTypeCounts(), [
    { type: "file", count: 2 },
    { type: "function", count: 2 },
    { type: "class", count: 1 },
    { type: "reference", count: 1 },
  ]);
  assert.deepEqual(await docs.nodesOfType("reference", 10), [
    { document_id: a, node_key: "ref:helper", type: "reference", name: "helper", line: 4 },
  ]);
  assert.deepEqual((await docs.nodesOfType("file", 1)).map((n) => n.node_key), ["file:/w/a.ts"]);
  assert.equal(await docs.edgeCount(), 7);
  await docs.deleteGraph(a);
  assert.equal(await docs.edgeCount(), 1);
  await docs.deleteDocumentRow(b);
  assert.equal(await docs.edgeCount(), 0);
  assert.deepEqual(await docs.nodeTypeCounts(), []);
});

conformance("index queue, counters and state values", async (s) => {
  const docs = s.store.docs;
  const first = await docs.queueIndexChange(7, "add");
  const second = await docs.queueIndexChange(8, "remove");
  assert.equal(second, first + 1);
  assert.deepEqual(await docs.queuedIndexChanges(10), [
    { seq: first, op: "add", id: 7 },
    { seq: second, op: "remove", id: 8 },
  ]);
  assert.deepEqual(await docs.queuedIndexChanges(1, first), [{ seq: second, op: "remove", id: 8 }]);
  assert.deepEqual(await docs.queuedIndexChanges(10, 0, 3_600_000), []);
  assert.equal(await docs.indexChangesQueued(), true);
  assert.equal(await docs.indexChangesQueued(3_600_000), false);
  assert.equal(await docs.readCounter("index_generation"), 0);
  await docs.bumpCounter("index_generation");
  await docs.bumpCounter("index_generation");
  assert.equal(await docs.readCounter("index_generation"), 2);
  assert.equal(await docs.readState("k"), undefined);
  await docs.writeState("k", "one");
  await docs.writeState("k", "two");
  assert.equal(await docs.readState("k"), "two");
  await docs.writeState("k", undefined);
  assert.equal(await docs.readState("k"), undefined);
});

conformance("a transaction of document writes commits together or not at all", async (s) => {
  // SQLite runs a transaction's work at once, PostgreSQL later: each step runs after the last.
  const then = (answer: unknown, next: () => unknown) =>
    answer instanceof Promise ? answer.then(next) : next();
  const chunk = new Uint8Array([1]);
  await assert.rejects(
    Promise.resolve().then(() =>
      s.store.transaction((inside) =>
        then(
          inside.docs.insertChunk(hash("1"), 1, chunk),
          () => inside.docs.insertChunk(hash("1"), 1, chunk),
        )
      )
    ),
  );
  assert.equal(await s.store.docs.chunkExists(hash("1")), false);
  await s.store.transaction((inside) =>
    then(
      inside.docs.insertChunk(hash("1"), 1, chunk),
      () => inside.docs.bumpCounter("index_generation"),
    )
  );
  assert.equal(await s.store.docs.chunkExists(hash("1")), true);
  assert.equal(await s.store.docs.readCounter("index_generation"), 1);
});

for (const backend of storeBackends("the document store conformance suite on PostgreSQL")) {
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
