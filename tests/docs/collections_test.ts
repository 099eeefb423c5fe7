/**
 * Collections are labels: a document is in any number of them. Adding an unchanged tree into a
 * second collection adds membership; list, search, restore and delete work by any of them.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { migrate, openDatabase } from "../../src/store/database.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { type DocsHarness, openHarness, randomBytes, readTree, writeTree } from "./harness.ts";

const TREE = {
  "README.md": "# Rollout\n\nHow the canary rollout works.\n",
  "src/app.ts": "export const rollout = (stage: number) => stage * 2;\n",
  "src/lib/util.ts": "export function canary() {\n  return 'canary';\n}\n",
  "data/blob.bin": randomBytes(200_000, 11),
  "data/empty.txt": "",
  "docs/naïve café.md": "# Ünïcode\n\nnames and text ✓\n",
};

async function withTree(
  test: (docs: DocsHarness, source: string, scratch: string) => Promise<void>,
): Promise<void> {
  const docs = await openHarness();
  const scratch = await Deno.makeTempDir({ prefix: "vantage-collections-" });
  const source = join(scratch, "tree");
  try {
    await writeTree(source, TREE);
    await test(docs, source, scratch);
  } finally {
    await docs.close();
    await Deno.remove(scratch, { recursive: true });
  }
}

async function assertRestores(
  docs: DocsHarness,
  collection: string,
  output: string,
  expected: Map<string, Uint8Array>,
): Promise<void> {
  const restored = await docs.run("docs.restore", { collection, output_directory: output });
  assert.equal(restored.restored, expected.size, `${collection}: ${JSON.stringify(restored)}`);
  const after = await readTree(output);
  assert.deepEqual([...after.keys()].sort(), [...expected.keys()].sort(), collection);
  for (const [path, bytes] of expected) assert.deepEqual(after.get(path), bytes, path);
}

Deno.test("an unchanged tree re-added into a second collection is in both; each restores it byte for byte", async () => {
  await withTree(async (docs, source, scratch) => {
    const files = Object.keys(TREE).length;
    const first = await docs.run("docs.add", { path: source, collection: "A" });
    assert.equal(first.documents_added, files);
    const second = await docs.run("docs.add", { path: source, collection: "B" });
    assert.equal(second.documents_unchanged, files);
    assert.equal(second.documents_added, 0);

    const before = await readTree(source);
    await assertRestores(docs, "A", join(scratch, "out-a"), before);
    await assertRestores(docs, "B", join(scratch, "out-b"), before);

    // List and search filter by either collection.
    for (const collection of ["A", "B"]) {
      const listed = await docs.run("docs.list", { collection, paths_only: true });
      assert.equal(listed.total, files, collection);
      const found = await docs.run("docs.search", { query: "canary", collection });
      const paths = (found.results as Array<{ path: string }>).map((hit) => hit.path);
      assert.ok(paths.some((path) => path.endsWith("src/lib/util.ts")), `${collection}: ${paths}`);
    }
    const info = await docs.run("docs.get", { name: join(source, "src/app.ts") });
    assert.deepEqual(info.collections, ["A", "B"]);
    const collections = await docs.run("docs.list_collections", {});
    assert.deepEqual(
      (collections.collections as Array<{ name: string; document_count: number }>).map((c) => [
        c.name,
        c.document_count,
      ]),
      [["A", files], ["B", files]],
    );

    // Taking the tree out of A deletes nothing: B still holds every document.
    const dry = await docs.run("docs.delete", { collection: "A", dry_run: true });
    assert.equal(dry.deleted, 0);
    assert.equal((dry.kept as unknown[]).length, files);
    const removed = await docs.run("docs.delete", { collection: "A" });
    assert.equal(removed.deleted, 0);
    assert.equal(removed.removed_from_collection, files);
    assert.equal(removed.chunks_freed, 0);
    const kept = removed.kept as Array<{ collections: string[] }>;
    assert.equal(kept.length, files);
    assert.ok(kept.every((doc) => doc.collections.join() === "B"));
    assert.equal((await docs.run("docs.list", { collection: "A" })).total, 0);
    const gone = await docs.call("docs.restore", {
      collection: "A",
      output_directory: join(scratch, "out-a2"),
    });
    assert.ok(
      "operation_error" in gone && gone.operation_error.kind === "not_found",
      JSON.stringify(gone),
    );
    await assertRestores(docs, "B", join(scratch, "out-b2"), before);

    // Out of its last collection, a document goes, and its bytes with it.
    const last = await docs.run("docs.delete", { collection: "B" });
    assert.equal(last.deleted, files);
    assert.deepEqual(last.kept, []);
    assert.ok((last.chunks_freed as number) > 0);
    assert.equal((await docs.run("docs.list", {})).total, 0);
  });
});

Deno.test("a delete narrowed to a collection touches only that collection's matches", async () => {
  await withTree(async (docs, source) => {
    await docs.run("docs.add", { path: source, collection: "A" });
    await docs.run("docs.add", { path: join(source, "src"), collection: "B" });
    // In A only: deleted. In A and B: kept in B.
    const result = await docs.run("docs.delete", { names: ["*.md", "*.ts"], collection: "A" });
    assert.deepEqual(
      (result.documents as Array<{ path: string }>).map((doc) => doc.path.slice(source.length))
        .sort(),
      ["/README.md", "/docs/naïve café.md"],
    );
    assert.deepEqual(
      (result.kept as Array<{ path: string }>).map((doc) => doc.path.slice(source.length)).sort(),
      ["/src/app.ts", "/src/lib/util.ts"],
    );
    const inA = await docs.run("docs.list", { collection: "A", paths_only: true });
    assert.deepEqual(
      (inA.paths as string[]).map((path) => path.slice(source.length)).sort(),
      ["/data/blob.bin", "/data/empty.txt"],
    );
    // Without a collection, a delete removes the documents whatever holds them.
    const all = await docs.run("docs.delete", { name: "*.ts" });
    assert.equal(all.deleted, 2);
    assert.equal(all.kept, undefined);
    assert.equal((await docs.run("docs.list", { collection: "B" })).total, 0);
  });
});

Deno.test("each collection restores the layout it was added with", async () => {
  await withTree(async (docs, source, scratch) => {
    await docs.run("docs.add", { path: source, collection: "whole" });
    await docs.run("docs.add", { path: join(source, "src"), collection: "code" });
    const code = await docs.run("docs.restore", {
      collection: "code",
      output_directory: join(scratch, "code"),
    });
    assert.equal(code.restored, 2);
    const restored = await readTree(join(scratch, "code"));
    assert.deepEqual([...restored.keys()].sort(), ["app.ts", "lib/util.ts"]);
    assert.deepEqual(
      restored.get("lib/util.ts"),
      new TextEncoder().encode(TREE["src/lib/util.ts"]),
    );
    await assertRestores(docs, "whole", join(scratch, "whole"), await readTree(source));
  });
});

Deno.test("a new version of a path stays in the collections of the one it replaces", async () => {
  await withTree(async (docs, source, scratch) => {
    await docs.run("docs.add", { path: source, collection: "A" });
    await docs.run("docs.add", { path: source, collection: "B" });
    await Deno.writeTextFile(join(source, "src/app.ts"), "export const rollout = 3;\n");
    const changed = await docs.run("docs.add", { path: join(source, "src/app.ts") });
    assert.equal(changed.documents_updated, 1);
    const info = await docs.run("docs.get", { name: join(source, "src/app.ts") });
    assert.deepEqual(info.collections, ["A", "B"]);
    const now = await readTree(source);
    await assertRestores(docs, "A", join(scratch, "a"), now);
    await assertRestores(docs, "B", join(scratch, "b"), now);
  });
});

Deno.test("docs.update adds documents to collections and takes them out, keeping them stored", async () => {
  await withTree(async (docs, source) => {
    await docs.run("docs.add", { path: source });
    const name = join(source, "README.md");
    await docs.run("docs.update", { name, collections: ["notes", "rollout"] });
    assert.deepEqual((await docs.run("docs.get", { name })).collections, ["notes", "rollout"]);
    await docs.run("docs.update", { name, remove_collections: ["notes"] });
    assert.deepEqual((await docs.run("docs.get", { name })).collections, ["rollout"]);
    const listed = await docs.run("docs.list", { collection: "rollout", paths_only: true });
    assert.deepEqual(listed.paths, [name]);
    assert.equal((await docs.run("docs.list", { collection: "notes" })).total, 0);
  });
});

Deno.test("migration 19 moves each document's single collection into the membership table", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vantage-collections-migration-" });
  const file = join(dir, "vantage.db");
  try {
    const old = openDatabase(file, { migrations: MIGRATIONS.filter((m) => m.version < 19) });
    old.exec(
      `INSERT INTO docs_contents (hash, size, chunk_count, created_at) VALUES ('h1', 1, 0, 0), ('h2', 1, 0, 0);
       INSERT INTO docs_documents (id, hash, path, relative_path, name, extension, mime, is_text,
         size, title, created_at, modified_at, indexed_at, collection)
       VALUES (1, 'h1', '/r/a.md', 'a.md', 'a.md', '.md', 'text/markdown', 1, 1, 'a', 0, 0, 0, 'notes'),
              (2, 'h2', '/r/sub/b.md', 'sub/b.md', 'b.md', '.md', 'text/markdown', 1, 1, 'b', 0, 0, 0, NULL);`,
    );
    old.close();
    const db = openDatabase(file);
    const members = db.prepare(
      "SELECT collection, document_id, relative_path FROM docs_collection_members",
    ).all().map((row) => ({ ...row }));
    assert.deepEqual(members, [{ collection: "notes", document_id: 1, relative_path: "a.md" }]);
    const columns = (db.prepare("PRAGMA table_info(docs_documents)").all() as Array<
      { name: string }
    >).map((column) => column.name);
    assert.ok(!columns.includes("collection"), columns.join());
    db.close();
    // Applying the list again changes nothing.
    const again = new DatabaseSync(file);
    migrate(again, MIGRATIONS);
    assert.equal(
      (again.prepare("SELECT count(*) AS n FROM docs_collection_members").get() as { n: number }).n,
      1,
    );
    again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
