/**
 * Document search on both backends: `docs.search`, `docs.grep` and `docs.suggest_context`
 * through the real catalog on SQLite and on PostgreSQL, over the same documents.
 *
 * SQLite is filled by the real `docs.add` of a small folder (in a session, with tags,
 * metadata and collections); what it stored is then copied into PostgreSQL through the
 * DocsStore interface in the order it was stored — contents, rows, tags, metadata,
 * collections, snapshots, sessions and the very vectors — and each latest text document is
 * put in the server's keyword index with the text SQLite's index holds. Ids match, so answers
 * can be compared whole.
 *
 * What must be equal, and what may not be:
 * - grep, semantic search and hash lookups read the same bytes and the same float vectors,
 *   scored by the same code: their answers are deepEqual — also for a document whose vectors
 *   are gone, embedded for the search on each.
 * - keyword search ranks by BM25 on each backend's own tokenizer: SQLite's FTS5 (unicode61
 *   with porter stemming, stop words indexed) and PostgreSQL's `english` configuration
 *   (Snowball stemming, stop words dropped). BM25 scores therefore differ, and so can the
 *   order of documents that match about equally. For queries of distinctive words the claim
 *   is the same documents with the same top hit, and the same snippets for each document.
 * - hybrid search and suggest_context fuse ranks, not scores: for a query whose keyword and
 *   fuzzy legs find the same documents in the same order on both, the fused answers are
 *   deepEqual; that is asserted for such queries (single distinctive words), and the same top
 *   hit and set for the others.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { storedText, VECTORS_COMPLETE_KEY } from "../../src/docs/doc_index.ts";
import { putContentIn, readContentFrom } from "../../src/docs/store_content.ts";
import { DATABASE, DOCUMENT_SEARCH } from "../../src/ops/service_keys.ts";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { DOCS_NOW, type DocsBackend, openDocsBackends } from "./docs_backends.ts";

/** Notes added in the session, tagged and in a collection. */
const NOTES: Record<string, string> = {
  "glacier.md":
    "# Glacier survey\n\nThe glacier retreat was measured in the northern valley.\nIce cores show layered volcanic ash.\n",
  "turbine.md":
    "# Wind turbine upkeep\n\nTurbine blades need lubrication every quarter.\nGearbox vibration points to bearing wear.\n",
  "orchard.txt":
    "Orchard diary\n\nApple trees were pruned in winter; the pear harvest comes in autumn.\nBees pollinate the blossoms.\n",
  "volcano.md":
    "# Volcano watch\n\nSeismic sensors near the crater record tremors.\nVolcanic ash drifted over the northern valley.\n",
  "compiler.md":
    "# Compiler passes\n\nThe parser builds a syntax tree; the optimizer folds constants.\nRegister allocation runs last.\n",
  "lighthouse.txt":
    "Lighthouse keeper\n\nThe lamp was trimmed at dusk.\nFog horns sounded through the night.\n",
};

/** Notes added outside the session, with another tag. */
const MISC: Record<string, string> = {
  "sourdough.md":
    "# Sourdough loaf\n\nFeed the starter with flour and water.\nBake until the crust crackles.\n",
  "chess.md":
    "# Chess openings\n\nThe Sicilian defence meets e4 sharply.\nKnights develop before bishops.\n",
  "telescope.md":
    "# Telescope night\n\nAlign the equatorial mount with the pole star.\nEyepieces reveal nebulae and galaxies.\n",
  "harbour.txt":
    "Harbour log\n\nFishing boats returned with mackerel and herring.\nThe lighthouse beam guided them past the reef.\n",
  "kiln.md":
    "# Pottery kiln\n\nStoneware bisque fires before the glaze.\nCones slump when the kiln reaches temperature.\n",
  "bicycle.md":
    "# Bicycle repair\n\nTrue the wheel by tightening spokes.\nA worn chain skips on the cassette.\n",
};

async function writeFolder(folder: string, files: Record<string, string>): Promise<void> {
  await Deno.mkdir(folder, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(join(folder, name), text);
  }
}

/** Stores the folders on SQLite with the real operations. */
async function seedSqlite(sqlite: DocsBackend, dir: string): Promise<void> {
  const notes = join(dir, "files", "notes");
  const misc = join(dir, "files", "misc");
  await writeFolder(notes, NOTES);
  await writeFolder(misc, MISC);
  await sqlite.run("doc_session.start", { name: "fieldwork", label: "Field work" });
  await sqlite.run("docs.add", {
    path: notes,
    tags: ["alpha", "field"],
    collection: "research",
    metadata: { project: "survey" },
    snapshot_id: "snap-notes",
    snapshot_label: "Research notes",
  });
  await sqlite.run("doc_session.stop", {});
  await sqlite.run("docs.add", {
    path: misc,
    tags: "beta",
    snapshot_id: "snap-misc",
    snapshot_label: "Hobby notes",
  });
}

/** Copies what SQLite stored into PostgreSQL through the interface, in the order it was stored. */
async function copyStore(sqlite: DocsBackend, postgres: DocsBackend): Promise<void> {
  const from = sqlite.docs;
  const to = postgres.docs;
  const db = sqlite.services.get(DATABASE);
  const search = postgres.services.get(DOCUMENT_SEARCH);
  for (const session of (await from.listSessions(100)).reverse()) {
    await to.startSession(
      session.session_id,
      session.label,
      session.description,
      session.started_at,
    );
    if (session.stopped_at !== null) await to.stopSession(session.session_id, session.stopped_at);
  }
  const snapshots = (await from.listSnapshots(100)).reverse();
  for (const snapshot of snapshots) await to.upsertSnapshot(snapshot);
  const rows = await from.documentsAfter(0, 1000);
  assert.equal(rows.length, Object.keys(NOTES).length + Object.keys(MISC).length);
  for (const row of rows) {
    const bytes = await readContentFrom(from, row.hash, { path: row.path, id: row.id });
    await putContentIn(to, bytes, row.indexed_at);
    const { id, is_latest: _latest, ...fields } = row;
    assert.equal(await to.insertDocument(fields), id, "ids match");
    const tags = await from.tagsOf(id);
    if (tags.length > 0) await to.addTags(id, tags);
    const metadata = await from.metadataOf(id);
    if (Object.keys(metadata).length > 0) await to.setMetadata(id, metadata);
    for (const collection of await from.collectionsOf(id)) {
      const relative = (await from.collectionPaths(collection)).get(id);
      assert.ok(relative !== undefined);
      await to.addToCollection(id, collection, relative);
    }
    if (row.is_latest === 1 && row.is_text === 1) {
      // The text SQLite's index was given: the same cut and extraction (doc_index.ts).
      await search.indexDocumentText(id, {
        title: row.title,
        path: row.path,
        text: storedText(db, row),
      });
    }
  }
  for (const snapshot of snapshots) {
    for (const member of await from.snapshotMemberIds(snapshot.snapshot_id)) {
      await to.addSnapshotMember(snapshot.snapshot_id, member);
    }
    await to.refreshSnapshotCount(snapshot.snapshot_id);
  }
  const models = new Set(rows.map((row) => row.vector_model).filter((model) => model !== null));
  assert.equal(models.size, 1, "the add stored vectors of one model");
  for (const model of models) {
    let after = 0;
    while (true) {
      const page = await from.vectorsAfter(model, after, 500);
      for (const vector of page) {
        await to.insertVector(vector.document_id, vector.seq, model, vector.vector);
      }
      if (page.length < 500) break;
      after = page[page.length - 1].id;
    }
  }
  const complete = await from.readState(VECTORS_COMPLETE_KEY);
  await to.writeState(VECTORS_COMPLETE_KEY, complete);
  assert.equal(await to.vectorCount(), await from.vectorCount());
  assert.deepEqual(await to.documentsAfter(0, 1000), rows, "the rows copied whole");
}

/** A search answer without its timing, which no two runs share. */
function untimed(result: Record<string, unknown>): Record<string, unknown> {
  const { execution_time_ms: _time, ...rest } = result;
  return rest;
}

interface Hit {
  id: number;
  path: string;
  score: number;
  snippet: string;
}

function hitsOf(result: Record<string, unknown>): Hit[] {
  return result.results as Hit[];
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * The same documents and, for each, the same snippet; the same top hit when `top` names it
 * (undefined where two documents match about equally and the tokenizers may order them
 * either way).
 */
function assertSameDocuments(
  onSqlite: Record<string, unknown>,
  onPostgres: Record<string, unknown>,
  top: string | undefined,
): void {
  const here = hitsOf(onSqlite);
  const there = hitsOf(onPostgres);
  assert.ok(here.length > 0, "SQLite found something to compare");
  if (top !== undefined) {
    assert.equal(baseName(here[0].path), top, "SQLite's top hit");
    assert.equal(there[0]?.path, here[0].path, "the same top hit");
  }
  assert.deepEqual(
    there.map((hit) => hit.id).sort((a, b) => a - b),
    here.map((hit) => hit.id).sort((a, b) => a - b),
    "the same documents",
  );
  const snippets = new Map(here.map((hit) => [hit.id, hit.snippet]));
  for (const hit of there) {
    assert.equal(hit.snippet, snippets.get(hit.id), `snippet of ${hit.path}`);
  }
  assert.equal(onPostgres.total, onSqlite.total);
}

Deno.test({
  name: "docs.search, docs.grep and docs.suggest_context answer on PostgreSQL as on SQLite",
  ignore: skipWithoutPostgres("the document search parity suite"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "vantage-docs-search-" });
    const [sqlite, postgres] = await openDocsBackends(dir, DOCS_NOW);
    try {
      await seedSqlite(sqlite, dir);
      await copyStore(sqlite, postgres);
      const both = async (
        id: string,
        args: Record<string, unknown>,
      ) => [await sqlite.run(id, args), await postgres.run(id, args)];

      await t.step("grep answers the same", async () => {
        const calls: Array<Record<string, unknown>> = [
          { pattern: "ash" },
          { pattern: "GLACIER|turbine", ignore_case: true, line_numbers: true },
          { pattern: "valley", context: 1, line_numbers: true },
          { pattern: "the", word: true, count: true },
          { pattern: "e", files_with_matches: true, max_count: 1 },
          { pattern: "lighthouse", ignore_case: true, paths: ["**/misc/*"] },
          { pattern: "n", session: "fieldwork", count: true },
          { pattern: "(", literal: true },
          { pattern: "zeppelin" },
        ];
        for (const args of calls) {
          const [here, there] = await both("docs.grep", args);
          assert.deepEqual(there, here, JSON.stringify(args));
        }
        const [ash] = await both("docs.grep", { pattern: "ash" });
        assert.equal(ash.files_matched, 2, "grep finds something to compare");
      });

      await t.step("semantic search answers the same, filters and options included", async () => {
        const calls: Array<Record<string, unknown>> = [
          { query: "volcanic ash over the valley", type: "semantic" },
          { query: "glacier ice", type: "semantic", limit: 3, line_numbers: true, context: 1 },
          { query: "bees pollinate", type: "semantic", tags: ["beta"] },
          { query: "bees pollinate", type: "semantic", tags: "alpha,field" },
          { query: "night sky", type: "semantic", collection: "research" },
          { query: "night sky", type: "semantic", session: "fieldwork" },
          { query: "chess knights", type: "semantic", paths_only: true },
          { query: "xylophone zeppelin", type: "semantic" },
        ];
        for (const args of calls) {
          const [here, there] = await both("docs.search", args);
          assert.deepEqual(untimed(there), untimed(here), JSON.stringify(args));
        }
        const [found] = await both("docs.search", { query: "volcanic ash", type: "semantic" });
        assert.equal(baseName(hitsOf(found)[0].path), "volcano.md");
        const [scoped] = await both("docs.search", {
          query: "lighthouse",
          type: "semantic",
          session: "fieldwork",
        });
        for (const hit of hitsOf(scoped)) assert.match(hit.path, /\/notes\//);
      });

      await t.step("a hash looks up the same document", async () => {
        const rows = await sqlite.docs.documentsAfter(0, 1);
        const [here, there] = await both("docs.search", { hash: rows[0].hash.slice(0, 12) });
        assert.deepEqual(untimed(there), untimed(here));
        assert.equal(here.total, 1);
        const refused = await sqlite.call("docs.search", { hash: "not-a-hash" });
        assert.ok(!("result" in refused), JSON.stringify(refused));
        assert.deepEqual(await postgres.call("docs.search", { hash: "not-a-hash" }), refused);
      });

      await t.step("keyword search finds the same documents", async () => {
        const cases: Array<[Record<string, unknown>, string | undefined]> = [
          [{ query: "glacier" }, "glacier.md"],
          [{ query: "seismic crater", line_numbers: true }, "volcano.md"],
          // Both the glacier survey and the volcano watch say "volcanic ash" once: a tie BM25
          // breaks by document length, which each tokenizer counts its own way.
          [{ query: "volcanic ash", line_numbers: true }, undefined],
          [{ query: "mackerel herring" }, "harbour.txt"],
          [{ query: "lighthouse", context: 1 }, "lighthouse.txt"],
          [{ query: "lighthouse", tags: ["beta"] }, "harbour.txt"],
          [{ query: "ash", collection: "research" }, undefined],
          [{ query: "lighthouse", session: "fieldwork" }, "lighthouse.txt"],
          [{ query: '"syntax tree" optimizer' }, "compiler.md"],
        ];
        for (const [args, top] of cases) {
          const call = { ...args, type: "keyword", fuzzy: false };
          const [here, there] = await both("docs.search", call);
          assertSameDocuments(here, there, top);
        }
        const [scoped] = await both("docs.search", {
          query: "lighthouse",
          type: "keyword",
          tags: ["beta"],
        });
        assert.equal(hitsOf(scoped).length, 1, "the tag filter leaves the harbour log alone");
        const [none, noneThere] = await both("docs.search", {
          query: "xylophone zeppelin",
          type: "keyword",
        });
        assert.deepEqual(untimed(noneThere), untimed(none));
        assert.equal(none.total, 0);
      });

      await t.step("fuzzy search widens a word on both", async () => {
        for (const [query, top] of [["vibrations", "turbine.md"], ["telescopes", "telescope.md"]]) {
          const [here, there] = await both("docs.search", { query, type: "fuzzy" });
          assertSameDocuments(here, there, top);
        }
      });

      await t.step("hybrid search fuses the same way", async () => {
        for (const query of ["glacier", "mackerel", "sourdough", "gearbox"]) {
          const [here, there] = await both("docs.search", { query });
          assert.deepEqual(untimed(there), untimed(here), query);
          assert.ok(hitsOf(here).length > 0, query);
        }
        for (
          const [args, top] of [
            [{ query: "seismic crater tremors" }, "volcano.md"],
            [{ query: "volcanic ash valley" }, undefined],
            [{ query: "lighthouse", tags: ["beta"] }, "harbour.txt"],
            [{ query: "lighthouse", collection: "research" }, "lighthouse.txt"],
          ] as Array<[Record<string, unknown>, string | undefined]>
        ) {
          const [here, there] = await both("docs.search", args);
          assertSameDocuments(here, there, top);
        }
      });

      await t.step("the current session scopes search, grep and suggestions alike", async () => {
        // Made current again on each store through the interface, as doc_session.start does.
        for (const backend of [sqlite, postgres]) {
          await backend.docs.startSession("fieldwork", "Field work", null, DOCS_NOW);
        }
        const scoped = { use_session: true };
        for (
          const [id, args] of [
            ["docs.search", { query: "boats and the lighthouse", type: "semantic", ...scoped }],
            ["docs.search", { query: "mackerel", ...scoped }],
            ["docs.grep", { pattern: "the", ignore_case: true, count: true, ...scoped }],
            ["docs.suggest_context", { query: "seismic tremors", ...scoped }],
          ] as Array<[string, Record<string, unknown>]>
        ) {
          const [here, there] = await both(id, args);
          assert.deepEqual(untimed(there), untimed(here), `${id} ${JSON.stringify(args)}`);
        }
        const [mackerel] = await both("docs.search", { query: "mackerel", ...scoped });
        for (const hit of hitsOf(mackerel)) assert.match(hit.path, /\/notes\//);
        const [grepped] = await both("docs.grep", { pattern: "the", count: true, ...scoped });
        assert.ok((grepped.results as unknown[]).length > 0);
        for (const backend of [sqlite, postgres]) {
          await backend.docs.stopSession("fieldwork", DOCS_NOW);
        }
      });

      await t.step("suggest_context suggests the same snapshots", async () => {
        for (const query of ["glacier", "mackerel", "telescope"]) {
          const [here, there] = await both("docs.suggest_context", { query });
          assert.deepEqual(there, here, query);
          assert.ok((here.suggestions as unknown[]).length > 0, query);
        }
        // In a session the set served last time is held back, on both.
        const args = { query: "glacier", session: "fieldwork" };
        const [first, firstThere] = await both("docs.suggest_context", args);
        assert.deepEqual(firstThere, first);
        const [again, againThere] = await both("docs.suggest_context", args);
        assert.deepEqual(againThere, again);
        assert.equal(again.suppressed, 1);
      });

      await t.step(
        "documents without stored vectors are embedded for the search alike",
        async () => {
          const [telescope] = (await sqlite.docs.documentsAfter(0, 1000)).filter((row) =>
            row.path.endsWith("/telescope.md")
          );
          for (const backend of [sqlite, postgres]) {
            assert.ok(await backend.docs.deleteVectors(telescope.id) > 0);
            await backend.docs.setVectorModel(telescope.id, null);
            await backend.docs.writeState(VECTORS_COMPLETE_KEY, undefined);
          }
          for (const type of ["semantic", "hybrid"]) {
            const args = { query: "equatorial mount and nebulae", type };
            const [here, there] = await both("docs.search", args);
            assert.deepEqual(untimed(there), untimed(here), type);
            assert.equal(hitsOf(here)[0].id, telescope.id, type);
            assert.match(
              String((here.warnings as string[])[0]),
              /1 document has no stored vectors/,
            );
          }
        },
      );
    } finally {
      await sqlite.close();
      await postgres.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
