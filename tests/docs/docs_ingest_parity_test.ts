/**
 * Adding, updating and deleting documents on both backends through the real catalog: the same
 * sequence of `docs.add` (a folder with globs and recursion, inline content, an unchanged
 * re-add, a changed file, a collection and a labelled snapshot, an older content made latest
 * again), `docs.update` and `docs.delete` runs on SQLite and on PostgreSQL, each answer must be
 * the same on both, and so must what each store then holds, read through the DocsStore
 * interface. On PostgreSQL the keyword index follows the documents, and two adds of one path at
 * once leave it one latest version.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DOCUMENT_SEARCH } from "../../src/ops/service_keys.ts";
import type { DocsStore } from "../../src/store/docs/docs_store.ts";
import type { StoreMode } from "../../src/store/repository.ts";
import { readContentFrom } from "../../src/docs/store_content.ts";
import { sharedPostgresCluster, skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { DOCS_NOW, type DocsBackend, openDocsBackends, openPostgresDocs } from "./docs_backends.ts";

const ignore = skipWithoutPostgres("the document ingest parity suite");

/** A PNG's first bytes and some more: a binary the add stores but does not index. */
const PNG = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0,
  0,
  0,
  13,
  0x49,
  0x48,
  0x44,
  0x52,
  0,
  0,
  0,
  1,
  0,
  0,
  0,
  1,
  8,
  2,
  0,
  0,
  0,
  0x90,
  0x77,
  0x53,
  0xde,
  0,
  0xff,
  0x10,
  0x80,
]);

/** `length` letters that repeat nowhere in them (so they cut into many distinct chunks). */
function letters(length: number): string {
  let state = 0x2545f491;
  let out = "";
  for (let i = 0; i < length; i++) {
    // xorshift32: the same letters every run.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out += String.fromCharCode(97 + ((state >>> 0) % 26));
  }
  return out;
}

/** The folder both backends add: texts, code, a binary, a log the add leaves out. */
async function writeFolder(root: string): Promise<void> {
  await Deno.mkdir(join(root, "sub"), { recursive: true });
  await Deno.writeTextFile(
    join(root, "alpha.md"),
    "# Alpha handbook\n\nThe zebrafish migration plan and its rollout checklist.\n",
  );
  await Deno.writeTextFile(join(root, "beta.txt"), "Beta notes: quarterly budget review.\n");
  await Deno.writeTextFile(
    join(root, "sub", "gamma.ts"),
    'import { helper } from "./helper.ts";\n\n/** Quokka counter. */\nexport function quokkaCount(n: number): number {\n  return helper(n) + 1;\n}\n',
  );
  await Deno.writeFile(join(root, "logo.png"), PNG);
  await Deno.writeTextFile(join(root, "debug.log"), "never stored\n");
}

/**
 * Gives generated snapshot ids ordinal names. A snapshot id a caller does not choose is the
 * time with three random digits, so each backend draws its own: only that field may differ,
 * and each backend's ids are named by the order they first appear in, which still requires
 * the same documents in the same snapshots on both.
 */
class SnapshotNames {
  #names = new Map<string, string>();

  name(id: unknown): unknown {
    if (typeof id !== "string" || !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(id)) return id;
    let name = this.#names.get(id);
    if (name === undefined) {
      name = `generated-${this.#names.size + 1}`;
      this.#names.set(id, name);
    }
    return name;
  }

  result(result: Record<string, unknown>): Record<string, unknown> {
    return "snapshot_id" in result
      ? { ...result, snapshot_id: this.name(result.snapshot_id) }
      : result;
  }
}

/** Runs one operation on both backends; asserts the answers are the same, and answers them. */
async function both(
  backends: DocsBackend[],
  names: SnapshotNames[],
  id: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const results: Record<string, unknown>[] = [];
  for (const [index, backend] of backends.entries()) {
    results.push(names[index].result(await backend.run(id, args)));
  }
  assert.deepEqual(results[1], results[0], `${id} ${JSON.stringify(args)} answered differently`);
  return results;
}

/** Everything one store holds of its documents, read through the interface. */
async function storedState(docs: DocsStore<StoreMode>, names: SnapshotNames) {
  const { total, rows } = await docs.listDocuments({
    filter: { latestOnly: false },
    sortBy: "path",
    order: "asc",
  });
  const documents = [];
  const hashes = new Set<string>();
  for (const row of [...rows].sort((a, b) => a.id - b.id)) {
    hashes.add(row.hash);
    documents.push({
      ...row,
      snapshot_id: names.name(row.snapshot_id),
      tags: await docs.tagsOf(row.id),
      metadata: await docs.metadataOf(row.id),
      collections: await docs.collectionsOf(row.id),
    });
  }
  const manifests: Record<string, unknown> = {};
  for (const hash of [...hashes].sort()) manifests[hash] = await docs.contentManifest(hash);
  const snapshots = (await docs.listSnapshots(100)).map((row) => ({
    ...row,
    snapshot_id: names.name(row.snapshot_id),
  })).sort((a, b) => String(a.snapshot_id) < String(b.snapshot_id) ? -1 : 1);
  return {
    totals: await docs.documentTotals(),
    total,
    documents,
    manifests,
    snapshots,
    vectors: await docs.vectorCount(),
    chunks: await docs.chunkTotals(),
    edges: await docs.edgeCount(),
    nodeTypes: await docs.nodeTypeCounts(),
  };
}

/** The ids the PostgreSQL keyword index finds for a word. */
async function keywordHits(backend: DocsBackend, word: string): Promise<number[]> {
  const search = backend.services.get(DOCUMENT_SEARCH);
  const hits = await search.searchDocumentText([word], {
    weights: { title: 4, path: 2, body: 1 },
    limit: 10,
  });
  return hits.map((hit) => hit.id).sort((a, b) => a - b);
}

Deno.test({
  name: "docs.add, docs.update and docs.delete answer and store the same on SQLite and PostgreSQL",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-ingest-parity-" });
    const backends = await openDocsBackends(dir);
    const names = [new SnapshotNames(), new SnapshotNames()];
    const [, postgres] = backends;
    try {
      const folder = join(dir, "handbook");
      await writeFolder(folder);
      // A current document session: what is added now carries it.
      for (const backend of backends) {
        await backend.docs.startSession("review", null, null, DOCS_NOW);
      }

      const [first] = await both(backends, names, "docs.add", {
        path: folder,
        exclude: ["*.log"],
        tags: ["team"],
        metadata: { owner: "ana" },
      });
      assert.equal(first.snapshot_id, "generated-1");
      assert.equal(first.session_id, "review");
      assert.equal(first.documents_added, 4);
      const paths = (first.documents as Array<{ path: string; status: string }>).map((d) => d.path);
      // Texts first, the binary last; the log left out.
      assert.deepEqual(paths, [
        join(folder, "alpha.md"),
        join(folder, "beta.txt"),
        join(folder, "sub", "gamma.ts"),
        join(folder, "logo.png"),
      ]);

      const [inline] = await both(backends, names, "docs.add", {
        content: "Inline note about the walrus archive.",
        name: "notes/inline.md",
        no_session: true,
      });
      assert.equal(inline.session_id, null);
      assert.equal((inline.documents as Array<{ status: string }>)[0].status, "added");

      // Not recursive, only Markdown: the one unchanged file at the top.
      const [shallow] = await both(backends, names, "docs.add", {
        path: folder,
        recursive: false,
        include: ["*.md"],
      });
      assert.equal(shallow.files_scanned, 1);
      assert.equal(shallow.documents_unchanged, 1);

      // Unchanged again, now into a collection and a labelled snapshot of the caller's id.
      const [again] = await both(backends, names, "docs.add", {
        path: folder,
        exclude: "*.log",
        collection: "handbook",
        snapshot_id: "release-1",
        snapshot_label: "First release",
      });
      assert.equal(again.documents_unchanged, 4);
      assert.equal(again.new_chunks, 0);
      assert.equal(again.snapshot_id, "release-1");

      // A changed file is a new version, in the collections of the one it replaces.
      const betaPath = join(folder, "beta.txt");
      const betaBefore = await Deno.readFile(betaPath);
      await Deno.writeTextFile(betaPath, "Beta notes: the capybara budget was approved.\n");
      const [changed] = await both(backends, names, "docs.add", { path: betaPath });
      const changedDoc = (changed.documents as Array<{ id: number; status: string }>)[0];
      assert.equal(changedDoc.status, "updated");
      for (const backend of backends) {
        assert.deepEqual(await backend.docs.collectionsOf(changedDoc.id), ["handbook"]);
      }
      const betaHits = await keywordHits(postgres, "capybara");
      assert.deepEqual(betaHits, [changedDoc.id]);

      // Its first content again: that older version is the latest once more.
      await Deno.writeFile(betaPath, betaBefore);
      const [restored] = await both(backends, names, "docs.add", { path: betaPath });
      const restoredDoc = (restored.documents as Array<{ id: number; status: string }>)[0];
      assert.equal(restoredDoc.status, "unchanged");
      assert.notEqual(restoredDoc.id, changedDoc.id);
      assert.deepEqual(await keywordHits(postgres, "capybara"), []);
      assert.deepEqual(await keywordHits(postgres, "quarterly"), [restoredDoc.id]);

      await both(backends, names, "docs.update", {
        name: "alpha.md",
        tags: ["reviewed"],
        remove_tags: ["team"],
        metadata: ["status=done"],
        remove_metadata: ["owner"],
      });
      // Collections through an update: beta joins a second one, the binary leaves the first.
      await both(backends, names, "docs.update", { name: "beta.txt", collections: ["archive"] });
      await both(backends, names, "docs.update", {
        name: "logo.png",
        remove_collections: ["handbook"],
      });
      // A dry run by glob reports and deletes nothing; a delete narrowed to a collection keeps
      // what another collection holds.
      const [dry] = await both(backends, names, "docs.delete", { name: "*.png", dry_run: true });
      assert.equal(dry.deleted, 1);
      const [narrowed] = await both(backends, names, "docs.delete", {
        name: "beta.txt",
        collection: "handbook",
      });
      // Every version of the path: the older one (the capybara text) is in no other collection
      // and goes; the latest, in the archive too, stays.
      assert.deepEqual((narrowed.documents as Array<{ id: number }>).map((d) => d.id), [
        changedDoc.id,
      ]);
      assert.equal(narrowed.removed_from_collection, 2);
      assert.deepEqual((narrowed.kept as Array<{ collections: string[] }>)[0].collections, [
        "archive",
      ]);
      const [refused] = await Promise.all(
        backends.map((b) => b.call("docs.update", { hash: "xyz", tags: ["t"] })),
      );
      assert.ok("operation_error" in refused);

      // The keyword index finds what was added, and no longer what is deleted.
      const gamma = (first.documents as Array<{ id: number; path: string }>)[2];
      assert.deepEqual(await keywordHits(postgres, "quokka"), [gamma.id]);
      const [deleted] = await both(backends, names, "docs.delete", { name: "sub/gamma.ts" });
      assert.equal(deleted.deleted, 1);
      assert.deepEqual(await keywordHits(postgres, "quokka"), []);
      assert.deepEqual(await keywordHits(postgres, "zebrafish"), [
        (first.documents as Array<{ id: number }>)[0].id,
      ]);

      const [sqliteState, postgresState] = [
        await storedState(backends[0].docs, names[0]),
        await storedState(backends[1].docs, names[1]),
      ];
      assert.deepEqual(postgresState, sqliteState);
      // The comparison is of something: every stage left its mark.
      assert.equal(sqliteState.totals.documents, 4);
      assert.ok(sqliteState.vectors > 0);
      const alpha = sqliteState.documents.find((d) => d.name === "alpha.md")!;
      assert.deepEqual(alpha.tags, ["reviewed"]);
      assert.deepEqual(alpha.metadata, { status: "done" });
      assert.deepEqual(alpha.collections, ["handbook"]);
      assert.equal(alpha.session_id, "review");
    } finally {
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "two servers adding one path at once leave it one latest version on PostgreSQL",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-ingest-race-" });
    const url = await sharedPostgresCluster().createDatabase();
    const servers = [
      await openPostgresDocs(dir, DOCS_NOW, url),
      await openPostgresDocs(dir, DOCS_NOW, url),
    ];
    try {
      const file = join(dir, "shared.md");
      await Deno.writeTextFile(file, "# Shared\n\nOne file, two writers.\n");
      for (let round = 0; round < 4; round++) {
        // The same file at once: one stores it, the other finds it stored.
        const sameFile = await Promise.all(servers.map((s) => s.run("docs.add", { path: file })));
        const statuses = sameFile.map((r) => (r.documents as Array<{ status: string }>)[0].status);
        assert.deepEqual(
          statuses.sort(),
          round === 0 ? ["added", "unchanged"] : ["unchanged", "unchanged"],
        );
        // Different contents of one name at once: one adds or updates, the other supersedes it.
        const name = `race-${round}.md`;
        await Promise.all(
          servers.map((s, index) =>
            s.run("docs.add", { content: `writer ${index} of round ${round}`, name })
          ),
        );
        const versions = await servers[0].docs.documentsForPaths([name]);
        assert.equal(versions.length, 2);
        assert.equal(versions.filter((row) => row.is_latest === 1).length, 1, `round ${round}`);
        const latest = await servers[1].docs.documentsByName(name);
        assert.equal(latest.length, 1);
        // Only the latest version is in the keyword index.
        const hits = await servers[0].services.get(DOCUMENT_SEARCH).searchDocumentText(
          [`round ${round}`],
          { weights: { title: 4, path: 2, body: 1 }, limit: 10 },
        );
        assert.deepEqual(hits.map((hit) => hit.id), [latest[0].id]);
      }
      const latestShared = await servers[0].docs.documentsForPaths([file]);
      assert.equal(latestShared.length, 1);
      assert.equal(latestShared[0].is_latest, 1);

      // Two new contents sharing their first chunks, at once: both are stored, and each shared
      // chunk holds both references (deleting one leaves the other whole, deleting both frees
      // every chunk they brought).
      const chunksBefore = (await servers[0].docs.chunkTotals()).chunks;
      const prefix = letters(512 * 1024);
      const big = await Promise.all(
        servers.map((s, index) =>
          s.run("docs.add", {
            content: `${prefix}\ntail of writer ${index}`,
            name: `big-${index}.txt`,
          })
        ),
      );
      assert.deepEqual(big.map((r) => r.documents_added), [1, 1]);
      assert.ok(big.every((r) => (r.new_chunks as number) > 0));
      assert.ok((await servers[0].docs.chunkTotals()).chunks > chunksBefore + 10);
      await servers[0].run("docs.delete", { name: "big-0.txt" });
      const [kept] = await servers[1].docs.documentsByName("big-1.txt");
      const bytes = await readContentFrom(servers[1].docs, kept.hash, {
        path: kept.path,
        id: kept.id,
      });
      assert.equal(new TextDecoder().decode(bytes), `${prefix}\ntail of writer 1`);
      await servers[1].run("docs.delete", { name: "big-1.txt" });
      assert.equal((await servers[0].docs.chunkTotals()).chunks, chunksBefore);
    } finally {
      for (const server of servers) await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
