import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { resolvePaths } from "../../src/core/config.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { vantageServices } from "../../src/ops/runtime.ts";
import { openHarness, writeTree } from "./harness.ts";

const SCOPES = { scopes: ["docs:read", "docs:write"] };

function queued(db: DatabaseSync): number {
  return (db.prepare("SELECT count(*) AS n FROM docs_index_queue").get() as { n: number }).n;
}

async function keywordPaths(
  run: (id: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  query: string,
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  const result = await run("docs.search", { query, type: "keyword", limit: 500, ...extra });
  return (result.results as Array<{ path: string }>).map((hit) => hit.path).sort();
}

Deno.test("a large add indexes on the worker into its own file, and narrowed searches still work", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-many-" });
  try {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) {
      files[`notes/n${i}.md`] = `# Note ${i}\n\ncommon words uniq${i}x here`;
    }
    files["other/special.md"] = "# Other\n\ncommon words zebraword";
    await writeTree(source, files);
    const added = await docs.run("docs.add", { path: join(source, "notes"), collection: "notes" });
    assert.equal(added.documents_added, 300);
    await docs.run("docs.add", { path: join(source, "other"), collection: "other" });
    const dataDir = dirname(resolvePaths(docs.home).database);
    assert.ok((await Deno.stat(join(dataDir, "docs-index.db"))).isFile);
    assert.equal(queued(docs.db), 0, "every change was applied and taken off the queue");

    assert.deepEqual(await keywordPaths(docs.run, "uniq257x"), [join(source, "notes/n257.md")]);
    assert.equal((await keywordPaths(docs.run, "common")).length, 301);
    // Narrowed by collection: the index file is filtered by the store's ids.
    assert.deepEqual(await keywordPaths(docs.run, "common", { collection: "other" }), [
      join(source, "other/special.md"),
    ]);
    assert.deepEqual(await keywordPaths(docs.run, "zebraword", { collection: "notes" }), []);
    // Fuzzy search reads the vocabulary the worker wrote.
    const fuzzy = await docs.run("docs.search", { query: "zebrawrd", type: "fuzzy", limit: 5 });
    assert.equal(
      (fuzzy.results as Array<{ path: string }>)[0]?.path,
      join(source, "other/special.md"),
    );

    // Deleting applies the removal at once.
    await docs.run("docs.delete", { name: join(source, "other/special.md") });
    assert.deepEqual(await keywordPaths(docs.run, "zebraword"), []);
    assert.equal(queued(docs.db), 0);
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});

Deno.test("changes a stopped process left queued are applied by the next add, and searches say so meanwhile", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-queue-" });
  try {
    await writeTree(source, { "a.md": "# A\n\nalphaword", "b.md": "# B\n\nbetaword" });
    await docs.run("docs.add", { path: source });
    const ids = new Map(
      (docs.db.prepare("SELECT id, name FROM docs_documents").all() as Array<
        { id: number; name: string }
      >).map((row) => [row.name, row.id]),
    );
    // As if a process stored both documents and stopped before its index committed:
    // the index lacks a.md, still has b.md although b.md was since superseded.
    const index = new DatabaseSync(
      join(dirname(resolvePaths(docs.home).database), "docs-index.db"),
    );
    index.prepare("DELETE FROM docs_fts WHERE rowid = ?").run(ids.get("a.md")!);
    index.close();
    docs.db.prepare("INSERT INTO docs_index_queue (document_id, op) VALUES (?, 1)").run(
      ids.get("a.md")!,
    );
    docs.db.prepare("UPDATE docs_documents SET is_latest = 0 WHERE id = ?").run(ids.get("b.md")!);
    docs.db.prepare("INSERT INTO docs_index_queue (document_id, op) VALUES (?, 1)").run(
      ids.get("b.md")!,
    );
    assert.equal(queued(docs.db), 2);

    // A search writes nothing: it finds what the index holds and says what it lacks.
    const searched = await docs.run("docs.search", { query: "alphaword", type: "keyword" });
    assert.deepEqual(searched.results, []);
    assert.match(String(searched.warnings), /keyword index lacks changes .* docs\.repair/);
    assert.equal(queued(docs.db), 2);

    // The next add, of anything, applies them.
    await docs.run("docs.add", { content: "unrelated", name: "c.md" });
    assert.deepEqual(await keywordPaths(docs.run, "alphaword"), [join(source, "a.md")]);
    assert.deepEqual(await keywordPaths(docs.run, "betaword"), []);
    assert.equal(queued(docs.db), 0);
    const clean = await docs.run("docs.search", { query: "alphaword", type: "keyword" });
    assert.equal(clean.warnings, undefined);

    // A change queued moments ago belongs to a process still at work: an add leaves it to
    // that process, and applies it once it has waited long enough to look abandoned.
    const index2 = new DatabaseSync(
      join(dirname(resolvePaths(docs.home).database), "docs-index.db"),
    );
    index2.prepare("DELETE FROM docs_fts WHERE rowid = ?").run(ids.get("a.md")!);
    index2.close();
    docs.db.prepare(
      "INSERT INTO docs_index_queue (document_id, op, queued_at) VALUES (?, 1, ?)",
    ).run(ids.get("a.md")!, Date.now());
    await docs.run("docs.add", { content: "unrelated too", name: "d.md" });
    assert.deepEqual(await keywordPaths(docs.run, "alphaword"), []);
    assert.equal(queued(docs.db), 1);
    docs.db.prepare("UPDATE docs_index_queue SET queued_at = ?").run(Date.now() - 60_000);
    await docs.run("docs.add", { content: "unrelated three", name: "e.md" });
    assert.deepEqual(await keywordPaths(docs.run, "alphaword"), [join(source, "a.md")]);
    assert.equal(queued(docs.db), 0);
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});

Deno.test("a lost or damaged index file is rebuilt from the store by the next repair", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-rebuild-" });
  try {
    await writeTree(source, { "a.md": "# A\n\nrebuildword one", "b.bin": "\u0000\u0001binary" });
    await docs.run("docs.add", { path: source });
    const paths = resolvePaths(docs.home);
    const dataDir = dirname(paths.database);
    docs.db.close(); // as if the process had stopped
    // Another process (services of its own) after the index file is gone, then after it is
    // overwritten with garbage.
    for (
      const damage of [
        () => Deno.remove(join(dataDir, "docs-index.db")),
        () => Deno.writeTextFile(join(dataDir, "docs-index.db"), "not a database ".repeat(500)),
      ]
    ) {
      for (const suffix of ["-wal", "-shm"]) {
        await Deno.remove(join(dataDir, `docs-index.db${suffix}`)).catch(() => {});
      }
      await damage();
      const services = vantageServices(paths);
      const run = async (id: string, args: Record<string, unknown>) => {
        const response = await executeOperation(builtinCatalog(), id, args, SCOPES, { services });
        assert.ok("result" in response, JSON.stringify(response));
        return response.result as Record<string, unknown>;
      };
      try {
        // A search finds nothing in the new, empty index and says why.
        const before = await run("docs.search", { query: "rebuildword", type: "keyword" });
        assert.deepEqual(before.results, []);
        assert.match(String(before.warnings), /keyword index lacks changes/);
        const repaired = await run("docs.repair", {});
        assert.equal(repaired.ok, true, JSON.stringify(repaired));
        const after = await run("docs.search", { query: "rebuildword", type: "keyword" });
        const hits = after.results as Array<{ path: string }>;
        assert.deepEqual(hits.map((hit) => hit.path), [join(source, "a.md")]);
        assert.equal(after.warnings, undefined);
      } finally {
        services.close();
      }
    }
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});
