/**
 * The parts of an add on PostgreSQL the operation suite cannot reach with small files and the
 * built-in embedder: an embedding service's vectors, stored once the documents are (and its
 * failure, a warning), as SQLite's engine stores them; and a file too large to hold in memory,
 * stored as it is read again, chunk for chunk as SQLite's `putFileContent`, refused whole when
 * it changes in between.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VantageError } from "../../src/core/errors.ts";
import { putFileContent } from "../../src/docs/content_store.ts";
import { VECTORS_COMPLETE_KEY } from "../../src/docs/doc_index.ts";
import { ingestInline, ingestPath, type IngestReport } from "../../src/docs/doc_ingest.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { HttpEmbedder } from "../../src/docs/http_embedder.ts";
import { type ServerDocs, writeOn } from "../../src/docs/server_ingest/server_docs.ts";
import { prepareFile, putPreparedIn } from "../../src/docs/server_ingest/server_files.ts";
import {
  ingestInlineOnServer,
  ingestPathOnServer,
} from "../../src/docs/server_ingest/server_ingest.ts";
import { readContentFrom } from "../../src/docs/store_content.ts";
import { DATABASE, DOCUMENT_SEARCH, STORE } from "../../src/ops/service_keys.ts";
import { transaction } from "../../src/store/database.ts";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import {
  DOCS_NOW,
  type DocsBackend,
  openDocsBackends,
  openPostgresDocs,
  openSqliteDocs,
} from "./docs_backends.ts";

const ignore = skipWithoutPostgres("the server ingest suite");

function serverOf(backend: DocsBackend): ServerDocs {
  return { store: backend.services.get(STORE), search: backend.services.get(DOCUMENT_SEARCH) };
}

/** A report without its snapshot id, which each backend draws at random. */
function withoutSnapshot(report: IngestReport): Omit<IngestReport, "snapshot_id"> {
  const { snapshot_id: _, ...rest } = report;
  return rest;
}

/** An OpenAI-style embedding endpoint answering with the hashed embedder's vectors, or failing. */
function embeddingService(fail: () => boolean) {
  const local = new HashedEmbedder({ dimensions: 32 });
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    requests++;
    const { input } = await request.json() as { input: string[] };
    if (fail()) return new Response("model is loading", { status: 503 });
    return Response.json({
      data: input.map((text, index) => ({ index, embedding: [...local.embedOne(text)] })),
    });
  });
  return {
    embedder: new HttpEmbedder({ url: `http://127.0.0.1:${server.addr.port}`, model: "fake" }),
    requests: () => requests,
    close: () => server.shutdown(),
  };
}

Deno.test({
  name: "an embedding service's vectors are stored after an add on PostgreSQL as on SQLite",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-server-embed-" });
    const backends = await openDocsBackends(dir);
    let failing = false;
    const service = embeddingService(() => failing);
    const [sqlite, postgres] = backends;
    const encode = (text: string) => new TextEncoder().encode(text);
    const add = (names: string[]) => {
      const documents = names.map((name) => ({
        name,
        bytes: encode(`# ${name}\n\nNotes on ${name.replace(".md", "")} and pods.`),
      }));
      const options = { session: null, embedder: service.embedder, now: DOCS_NOW };
      return Promise.all([
        ingestInline(sqlite.services.get(DATABASE), documents, options),
        ingestInlineOnServer(serverOf(postgres), documents, options),
      ]);
    };
    const model = service.embedder.id;
    try {
      const [sqliteReport, postgresReport] = await add(["kubernetes.md", "baking.md"]);
      assert.deepEqual(withoutSnapshot(postgresReport), withoutSnapshot(sqliteReport));
      assert.deepEqual(postgresReport.warnings, []);
      assert.ok(service.requests() >= 2);
      const vectors = await Promise.all(backends.map((b) => b.docs.vectorsAfter(model, 0, 100)));
      assert.ok(vectors[0].length >= 2);
      assert.deepEqual(vectors[1], vectors[0]);
      for (const backend of backends) {
        assert.equal(await backend.docs.readState(VECTORS_COMPLETE_KEY), model);
        for (const doc of postgresReport.documents) {
          assert.equal((await backend.docs.documentById(doc.id))?.vector_model, model);
        }
      }

      // The service fails: the documents are stored all the same, the failure is a warning, and
      // the store knows vectors are missing.
      failing = true;
      const [sqliteFailed, postgresFailed] = await add(["sourdough.md"]);
      assert.deepEqual(withoutSnapshot(postgresFailed), withoutSnapshot(sqliteFailed));
      assert.equal(postgresFailed.documents_added, 1);
      assert.equal(postgresFailed.warnings.length, 1);
      assert.ok(postgresFailed.warnings[0].startsWith(`embedding with ${model} failed`));
      for (const backend of backends) {
        assert.equal(await backend.docs.readState(VECTORS_COMPLETE_KEY), undefined);
        assert.equal((await backend.docs.documentsNeedingVectors(model, 10)).length, 1);
      }

      // The next add stores what the last one left missing.
      failing = false;
      const [sqliteNext, postgresNext] = await add(["yeast.md"]);
      assert.deepEqual(withoutSnapshot(postgresNext), withoutSnapshot(sqliteNext));
      for (const backend of backends) {
        assert.equal((await backend.docs.documentsNeedingVectors(model, 10)).length, 0);
        assert.equal(await backend.docs.readState(VECTORS_COMPLETE_KEY), model);
      }
      const after = await Promise.all(backends.map((b) => b.docs.vectorsAfter(model, 0, 100)));
      assert.deepEqual(after[1], after[0]);
    } finally {
      await service.close();
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** `length` bytes of letters that do not repeat (so they cut into many chunks). */
function letters(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = 97 + ((state >>> 0) % 26);
  }
  return out;
}

Deno.test({
  name: "a file too large to hold is stored as read, chunk for chunk as SQLite's putFileContent",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-server-stream-" });
    const sqlite = await openSqliteDocs(dir);
    const postgres = await openPostgresDocs(dir);
    const server = serverOf(postgres);
    try {
      const path = join(dir, "large.txt");
      const bytes = letters(300 * 1024, 0x1234567);
      await Deno.writeFile(path, bytes);
      const entry = { path, relativePath: "large.txt" };
      // A limit of 64 KiB stands in for the 64 MiB a file must pass to be streamed.
      const prepared = await prepareFile(entry, await Deno.stat(path), DOCS_NOW, 64 * 1024);
      assert.equal(prepared.bytes, undefined);
      assert.equal(prepared.size, bytes.length);
      const streamed = await writeOn(server, (docs) => putPreparedIn(docs, prepared, DOCS_NOW));
      const db = sqlite.services.get(DATABASE);
      const reference = transaction(db, () => putFileContent(db, path, DOCS_NOW));
      assert.deepEqual(streamed, reference);
      assert.ok(streamed.chunk_count > 4);
      assert.deepEqual(
        await postgres.docs.contentManifest(streamed.hash),
        sqlite.docs.contentManifest(reference.hash),
      );
      const read = await readContentFrom(postgres.docs, streamed.hash, { path, id: 0 });
      assert.deepEqual(read, bytes);

      // Changed between the hash and the store: refused, and nothing of it stays stored.
      const before = await postgres.docs.chunkTotals();
      const moving = join(dir, "moving.txt");
      await Deno.writeFile(moving, letters(200 * 1024, 0x7654321));
      const early = await prepareFile(
        { path: moving, relativePath: "moving.txt" },
        await Deno.stat(moving),
        DOCS_NOW,
        64 * 1024,
      );
      await Deno.writeFile(moving, letters(200 * 1024, 0x1111111));
      await assert.rejects(
        writeOn(server, (docs) => putPreparedIn(docs, early, DOCS_NOW)),
        (error: unknown) => error instanceof VantageError && error.kind === "conflict",
      );
      assert.deepEqual(await postgres.docs.chunkTotals(), before);
      assert.equal(await postgres.docs.contentExists(early.hash), false);
    } finally {
      await sqlite.close();
      await postgres.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "an add that skips files unchanged by size and time does so on PostgreSQL as on SQLite",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-server-stat-" });
    const backends = await openDocsBackends(dir);
    const [sqlite, postgres] = backends;
    try {
      const folder = join(dir, "watched");
      await Deno.mkdir(folder);
      await Deno.writeTextFile(join(folder, "one.md"), "# One\n\nfirst\n");
      await Deno.writeTextFile(join(folder, "two.md"), "# Two\n\nsecond\n");
      const options = {
        session: null,
        embedder: new HashedEmbedder(),
        now: DOCS_NOW,
        skipUnchangedByStat: true,
        tags: ["watched"],
      };
      const add = async () => {
        const sqliteReport = await ingestPath(sqlite.services.get(DATABASE), folder, options);
        const postgresReport = await ingestPathOnServer(serverOf(postgres), folder, options);
        assert.deepEqual(withoutSnapshot(postgresReport), withoutSnapshot(sqliteReport));
        return postgresReport;
      };
      assert.equal((await add()).documents_added, 2);
      const again = await add();
      assert.equal(again.documents_unchanged, 2);
      assert.equal(again.bytes, 0);
      // One file rewritten with the same size but a later time: stored again, found unchanged.
      const one = join(folder, "one.md");
      await Deno.writeTextFile(one, "# One\n\nfirst\n");
      await Deno.utime(one, new Date(DOCS_NOW + 60_000), new Date(DOCS_NOW + 60_000));
      const touched = await add();
      assert.equal(touched.documents_unchanged, 2);
      assert.ok(touched.bytes > 0);
      for (const backend of backends) {
        const [row] = await backend.docs.documentsByName("one.md");
        assert.equal(row.modified_at, DOCS_NOW + 60_000);
        assert.deepEqual(await backend.docs.tagsOf(row.id), ["watched"]);
      }
    } finally {
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
