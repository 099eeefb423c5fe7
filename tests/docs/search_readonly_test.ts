/**
 * A read grant never writes: a search (or a dedupe) on a store whose
 * documents lack vectors embeds them for itself and leaves every row as it
 * was; the write paths (an add, a repair) store them.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { configuredEmbedder } from "../../src/docs/embedding_config.ts";
import { unstoredVectors } from "../../src/docs/unstored_vectors.ts";
import { databaseDigest } from "../helpers/data_snapshot.ts";
import { type DocsHarness, openHarness } from "./harness.ts";

const READ = ["docs:read"];

const NOTES: Record<string, string> = {
  "cluster.md": "# Cluster\n\nKubernetes pods are scheduled onto nodes by deployments.",
  "bread.md": "# Bread\n\nA sourdough starter needs flour, water and patience.",
  "taxes.md": "# Taxes\n\nThe quarterly filing is due before the end of the month.",
};

/** As if the embedder had been changed since the documents were added: no vectors from it. */
function dropVectors(docs: DocsHarness): void {
  docs.db.exec(`
    DELETE FROM docs_vectors;
    UPDATE docs_documents SET vector_model = NULL;
    DELETE FROM docs_state WHERE key = 'vectors_complete_for';
  `);
}

/** Every row of the store and of its search index file. */
function digest(docs: DocsHarness): string {
  const store = resolvePaths(docs.home).database;
  const index = join(dirname(store), "docs-index.db");
  return JSON.stringify([...databaseDigest(store), ...databaseDigest(index)]);
}

function vectorRows(docs: DocsHarness): number {
  return (docs.db.prepare("SELECT count(*) AS n FROM docs_vectors").get() as { n: number }).n;
}

function firstPath(result: Record<string, unknown>): string | undefined {
  return (result.results as Array<{ path: string }>)[0]?.path;
}

Deno.test("a search under a read grant on a store without vectors finds by meaning and writes no row", async () => {
  const docs = await openHarness();
  try {
    for (const [name, content] of Object.entries(NOTES)) {
      await docs.run("docs.add", { content, name });
    }
    dropVectors(docs);
    const before = digest(docs);
    assert.equal(vectorRows(docs), 0);

    for (const type of ["semantic", "hybrid"]) {
      const found = await docs.run(
        "docs.search",
        { query: "kubernetes deployment scheduling", type, limit: 3 },
        READ,
      );
      assert.equal(firstPath(found), "cluster.md", type);
      assert.match(String(found.warnings), /3 documents have no stored vectors .*this search only/);
    }
    // Semantic search alone: nothing shares a word with the query but by its parts.
    const bySubwords = await docs.run(
      "docs.search",
      { query: "sourdoughs", type: "semantic", limit: 1 },
      READ,
    );
    assert.equal(firstPath(bySubwords), "bread.md");
    const groups = await docs.run("docs.semantic_dedupe", {}, READ);
    assert.equal(groups.total, 0);
    assert.equal(digest(docs), before, "a read changed the store");

    // The next add stores what was missing; searches then read stored vectors and say nothing.
    await docs.run("docs.add", { content: "# Garden\n\nTomatoes need sun.", name: "garden.md" });
    assert.ok(vectorRows(docs) >= 4);
    const after = await docs.run(
      "docs.search",
      { query: "kubernetes deployment scheduling", type: "semantic", limit: 3 },
      READ,
    );
    assert.equal(firstPath(after), "cluster.md");
    assert.equal(after.warnings, undefined);
  } finally {
    await docs.close();
  }
});

Deno.test("a dedupe under a read grant groups documents whose vectors are not stored", async () => {
  const docs = await openHarness();
  try {
    const text = "The retry policy backs off exponentially with jitter and caps at thirty seconds. "
      .repeat(6);
    await docs.run("docs.add", { content: text, name: "notes/retry.md" });
    await docs.run("docs.add", { content: text + "Reviewed.", name: "archive/retry.md" });
    await docs.run("docs.add", { content: NOTES["bread.md"], name: "bread.md" });
    const stored = await docs.run("docs.semantic_dedupe", {}, READ);
    dropVectors(docs);
    const before = digest(docs);
    const computed = await docs.run("docs.semantic_dedupe", {}, READ);
    assert.deepEqual(computed, stored);
    assert.equal(digest(docs), before);
  } finally {
    await docs.close();
  }
});

Deno.test("docs.repair stores the vectors searches only computed", async () => {
  const docs = await openHarness();
  try {
    for (const [name, content] of Object.entries(NOTES)) {
      await docs.run("docs.add", { content, name });
    }
    dropVectors(docs);
    const dry = await docs.run("docs.repair", { dry_run: true });
    assert.deepEqual(dry.vectors, {
      model: configuredEmbedder().id,
      action: "would_store",
      documents: 3,
    });
    assert.equal(vectorRows(docs), 0);
    const repaired = await docs.run("docs.repair", {});
    assert.deepEqual(repaired.vectors, {
      model: configuredEmbedder().id,
      action: "stored",
      documents: 3,
    });
    assert.equal(repaired.ok, true);
    assert.ok(vectorRows(docs) >= 3);
    const again = await docs.run("docs.repair", {});
    assert.equal((again.vectors as { action: string }).action, "none");
  } finally {
    await docs.close();
  }
});

Deno.test("unstored vectors stop at the time budget between pages and say they are incomplete", async () => {
  const docs = await openHarness();
  try {
    const documents = Array.from({ length: 70 }, (_, i) => ({
      name: `n${i}.md`,
      content: `# Note ${i}\n\nword${i} and more`,
    }));
    for (const { name, content } of documents) await docs.run("docs.add", { content, name });
    dropVectors(docs);
    const embedder = configuredEmbedder();
    const cut = await unstoredVectors(docs.db, embedder, { budgetMs: 0 });
    assert.equal(cut.complete, false);
    assert.equal(cut.documents.length, 64, "one page, then the budget is spent");
    const all = await unstoredVectors(docs.db, embedder);
    assert.equal(all.complete, true);
    assert.deepEqual(all.documents.map((d) => d.id), documents.map((_, i) => i + 1));
    const allowed = await unstoredVectors(docs.db, embedder, { allow: new Set([3, 69]) });
    assert.deepEqual(allowed.documents.map((d) => d.id), [3, 69]);
    assert.equal(vectorRows(docs), 0);
  } finally {
    await docs.close();
  }
});
