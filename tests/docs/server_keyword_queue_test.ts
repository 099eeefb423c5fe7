/**
 * The keyword index of a PostgreSQL store survives a process stopping between a write's commit
 * and its keyword rows: the write queues its changes (`docs_index_queue`) in the same
 * transaction, and a catch-up applies what nobody applied. Each test runs the add's write
 * itself (`recordIn` in a write of its own) and leaves out the step after the commit, which is
 * what a process killed at that moment leaves behind.
 */
import assert from "node:assert/strict";
import { NO_GIT } from "../../src/docs/doc_ingest/snapshot.ts";
import type { IngestOptions } from "../../src/docs/doc_ingest/types.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { catchUpKeywordIndexOnServer } from "../../src/docs/server_ingest/server_catch_up.ts";
import { type ServerDocs, writeOn } from "../../src/docs/server_ingest/server_docs.ts";
import { preparedBytes } from "../../src/docs/server_ingest/server_files.ts";
import { ingestInlineOnServer } from "../../src/docs/server_ingest/server_ingest.ts";
import { type Recorded, recordIn } from "../../src/docs/server_ingest/server_record.ts";
import { ServerSnapshot } from "../../src/docs/server_ingest/server_snapshot.ts";
import { DOCUMENT_SEARCH, STORE } from "../../src/ops/service_keys.ts";
import { sharedPostgresCluster, skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { DOCS_NOW, type DocsBackend, openPostgresDocs } from "./docs_backends.ts";

const ignore = skipWithoutPostgres("the server keyword queue suite");

function serverOf(backend: DocsBackend): ServerDocs {
  return { store: backend.services.get(STORE), search: backend.services.get(DOCUMENT_SEARCH) };
}

function addOptions(): IngestOptions {
  return { session: null, embedder: new HashedEmbedder(), now: DOCS_NOW };
}

/** Stores inline text as an add does, committed, with nothing done after the commit. */
async function writeOnly(server: ServerDocs, name: string, text: string): Promise<Recorded> {
  const options = addOptions();
  const snapshot = await ServerSnapshot.open(server.store.docs, options, null, NO_GIT);
  const embedding = { model: options.embedder.id, embed: undefined };
  const bytes = new TextEncoder().encode(text);
  const file = preparedBytes(
    { path: `/notes/${name}`, relativePath: name, name },
    bytes,
    { created: DOCS_NOW, modified: DOCS_NOW },
  );
  return await writeOn(server, (docs) => recordIn(docs, { options, snapshot, embedding }, file));
}

/** Ids of the documents a keyword finds. */
async function found(server: ServerDocs, word: string): Promise<number[]> {
  const weights = { title: 4, path: 2, body: 1 };
  return (await server.search.searchDocumentText([word], { weights, limit: 500 }))
    .map((hit) => hit.id).sort((a, b) => a - b);
}

/** How many changes are queued, whatever their age. */
async function queued(pg: DocsBackend): Promise<number> {
  const rows = await pg.sql!("SELECT count(*)::int AS n FROM docs_index_queue");
  return rows[0].n as number;
}

/** The counts of a verification's index report. */
function pick(index: unknown) {
  const { missing, queued, indexed, expected } = index as Record<string, number>;
  return { missing, queued, indexed, expected };
}

/** Makes every queued change look as old as one a stopped process left a minute ago. */
async function age(pg: DocsBackend): Promise<void> {
  await pg.sql!("UPDATE docs_index_queue SET queued_at = queued_at - 60000");
}

Deno.test({
  name: "a document committed without its keyword row is found after the next catch-up",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-keyword-queue-" });
    const pg = await openPostgresDocs(dir);
    const server = serverOf(pg);
    try {
      const recorded = await writeOnly(server, "orchid.md", "# Orchids\n\nWatering orchids.\n");
      const id = recorded.document.id;
      assert.deepEqual(recorded.keywords.queued.length, 1);
      assert.deepEqual(await found(server, "orchids"), []);
      assert.equal(await queued(pg), 1);
      // docs.verify allows for a queued change (as on SQLite), and counts it.
      const before = await pg.run("docs.verify", { chunks: false });
      assert.deepEqual(pick(before.index), { missing: 0, queued: 1, indexed: 0, expected: 1 });

      // Fresh changes are its writer's to apply: a catch-up leaves them for the wait.
      assert.equal(await catchUpKeywordIndexOnServer(server), 0);
      assert.equal(await queued(pg), 1);

      await age(pg);
      assert.equal(await catchUpKeywordIndexOnServer(server), 1);
      assert.deepEqual(await found(server, "orchids"), [id]);
      assert.equal(await queued(pg), 0);
      const after = await pg.run("docs.verify", { chunks: false });
      assert.deepEqual(pick(after.index), { missing: 0, queued: 0, indexed: 1, expected: 1 });
      assert.equal(after.ok, true, JSON.stringify(after.problems));

      // An add applies its own changes after its commit and leaves nothing queued; it also
      // catches up first, so a change left by a stopped add is applied by the next add.
      await writeOnly(server, "fern.md", "# Ferns\n\nFerns like shade.\n");
      await age(pg);
      const report = await ingestInlineOnServer(server, [{
        name: "moss.md",
        bytes: new TextEncoder().encode("# Moss\n\nMoss on stones.\n"),
      }], addOptions());
      assert.equal(report.documents_added, 1);
      assert.equal((await found(server, "ferns")).length, 1);
      assert.deepEqual(await found(server, "moss"), [report.documents[0].id]);
      assert.equal(await queued(pg), 0);

      // docs.repair applies whatever is queued, however fresh, and clears the queue.
      const lichen = (await writeOnly(server, "lichen.md", "# Lichen\n\nLichen on bark.\n"))
        .document.id;
      assert.equal(await queued(pg), 1);
      await pg.run("docs.repair", {});
      assert.deepEqual(await found(server, "lichen"), [lichen]);
      assert.equal(await queued(pg), 0);
    } finally {
      await pg.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a catch-up follows what the store holds now, not the order of stale changes",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-keyword-stale-" });
    const pg = await openPostgresDocs(dir);
    const server = serverOf(pg);
    const first = "# Plan\n\nFirst draft about zeppelins.\n";
    try {
      const v1 = (await writeOnly(server, "plan.md", first)).document.id;
      // A second version supersedes it, and that process stops too: "remove v1, add v2" queued.
      const v2 = (await writeOnly(server, "plan.md", "# Plan\n\nSecond draft on gliders.\n"))
        .document.id;
      assert.equal(await queued(pg), 3);
      // Then the first content is added again and applied: v1 is the latest version again.
      const again = await ingestInlineOnServer(server, [{
        name: "plan.md",
        path: "/notes/plan.md",
        bytes: new TextEncoder().encode(first),
      }], addOptions());
      assert.equal(again.documents[0].id, v1);
      await age(pg);
      assert.equal(await catchUpKeywordIndexOnServer(server), 3);
      // The stale "remove v1" did not take out the latest version, nor did "add v2" put back
      // a superseded one.
      assert.deepEqual(await found(server, "zeppelins"), [v1]);
      assert.deepEqual(await found(server, "gliders"), []);
      assert.deepEqual(await server.search.indexedDocumentIds(), [v1]);
      assert.ok(v2 > v1);
      assert.equal(await queued(pg), 0);
    } finally {
      await pg.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "two servers catching up the same queue at once each take their own changes",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-keyword-two-" });
    const url = await sharedPostgresCluster().createDatabase();
    const pg = await openPostgresDocs(dir, DOCS_NOW, url);
    const server = serverOf(pg);
    try {
      const ids: number[] = [];
      for (let i = 0; i < 150; i++) {
        const text = `# Note ${i}\n\nAbout lanterns, note ${i}.\n`;
        ids.push((await writeOnly(server, `note-${i}.md`, text)).document.id);
      }
      await age(pg);
      // A second process on the same database: its own pool and store.
      const other = await openPostgresDocs(dir, DOCS_NOW, url);
      try {
        const counts = await Promise.all([
          catchUpKeywordIndexOnServer(server),
          catchUpKeywordIndexOnServer(serverOf(other)),
        ]);
        // Each change applied once: the leases kept the two apart.
        assert.equal(counts[0] + counts[1], 150);
        assert.deepEqual(await found(server, "lanterns"), ids);
        assert.equal(await queued(pg), 0);
      } finally {
        await other.close();
      }
    } finally {
      await pg.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
