/**
 * `docs.verify` on a PostgreSQL store, through the real catalog: a sound store is reported ok
 * with every document, content and chunk counted; a chunk whose bytes are changed in the
 * database, a chunk that is gone, and a keyword index that lacks a latest text document or
 * holds a superseded one are each reported, naming the document, the chunk and what to do; the
 * structure-only check finds the missing chunk without reading bytes. Then `docs.repair` (dry run
 * first) writes the damaged chunk back from its unchanged original file, names the document whose
 * file changed as unrecoverable, puts the index right and stores the missing vectors.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { putContentIn, readContentFrom } from "../../src/docs/store_content.ts";
import { DOCUMENT_SEARCH } from "../../src/ops/service_keys.ts";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { type DocsBackend, openPostgresDocs } from "./docs_backends.ts";

const NOW = Date.parse("2026-12-01T12:00:00Z");

/** Writes `text` at `path` and stores it through the store interface, indexed as an add would. */
async function addText(backend: DocsBackend, path: string, text: string): Promise<number> {
  await Deno.writeTextFile(path, text);
  const bytes = new TextEncoder().encode(text);
  const put = await putContentIn(backend.docs, bytes, NOW);
  const name = path.split("/").pop()!;
  const id = await backend.docs.insertDocument({
    hash: put.hash,
    path,
    relative_path: name,
    name,
    extension: ".md",
    mime: "text/markdown",
    is_text: 1,
    size: bytes.length,
    title: name,
    created_at: NOW,
    modified_at: NOW,
    indexed_at: NOW,
    snapshot_id: null,
    session_id: null,
    source_url: null,
  });
  const search = backend.services.get(DOCUMENT_SEARCH);
  for (const older of await backend.docs.supersedeOtherVersions(path, id)) {
    await search.removeDocumentText(older);
  }
  await search.indexDocumentText(id, { title: name, path, text });
  return id;
}

Deno.test({
  name: "docs.verify on PostgreSQL reports damaged chunks and an index out of step",
  ignore: skipWithoutPostgres("docs.verify on PostgreSQL"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-server-verify-" });
    const pg = await openPostgresDocs(dir);
    try {
      // Large enough for several chunks: a damaged one is one of many.
      const long = Array.from(
        { length: 6000 },
        (_, i) => `line ${i} of the design notes ${i * 7919}`,
      )
        .join("\n");
      const notes = await addText(pg, join(dir, "notes.md"), long);
      const plan = await addText(pg, join(dir, "plan.md"), "the plan: ship team mode");
      const old = await addText(pg, join(dir, "todo.md"), "first version");
      const todo = await addText(pg, join(dir, "todo.md"), "second version");

      const sound = await pg.run("docs.verify", {});
      assert.equal(sound.ok, true, JSON.stringify(sound.problems));
      const checked = sound.checked as Record<string, number>;
      assert.equal(checked.documents, 4);
      assert.equal(checked.contents, 4);
      assert.ok(checked.chunks >= 5, JSON.stringify(checked));
      assert.deepEqual(sound.index, {
        file: null,
        status: "ok",
        expected: 3,
        indexed: 3,
        queued: 0,
        missing: 0,
        extra: 0,
        missing_ids: [],
        extra_ids: [],
        problems: [],
      });
      assert.deepEqual(sound.what_to_do, []);

      // One chunk of notes.md changed in place; plan.md's only chunk gone; the old todo.md
      // indexed again and the new one dropped from the index.
      const manifest = await pg.docs.contentManifest(
        (await pg.docs.documentById(notes))!.hash,
      );
      const bad = manifest[2].chunk_hash;
      await pg.sql!(
        "UPDATE docs_chunks SET data = set_byte(data, length(data) - 1, (get_byte(data, length(data) - 1) + 1) % 256) WHERE hash = $1",
        [bad],
      );
      const planHash = (await pg.docs.documentById(plan))!.hash;
      await pg.sql!("DELETE FROM docs_chunks WHERE hash = $1", [planHash]);
      const search = pg.services.get(DOCUMENT_SEARCH);
      await search.indexDocumentText(old, {
        title: "todo.md",
        path: join(dir, "todo.md"),
        text: "x",
      });
      await search.removeDocumentText(todo);

      const found = await pg.run("docs.verify", {});
      assert.equal(found.ok, false);
      const damaged = found.damaged as Record<string, number>;
      assert.deepEqual(damaged, { documents: 2, chunks: 2, files: 0 });
      const documents = found.documents as Array<Record<string, unknown>>;
      assert.deepEqual(documents.map((d) => d.id), [notes, plan]);
      assert.match(String((documents[0].problems as string[])[0]), new RegExp(`${bad}.*corrupt`));
      assert.match(String((documents[1].problems as string[])[0]), /missing from the store/);
      const index = found.index as Record<string, unknown>;
      assert.equal(index.status, "incomplete");
      assert.deepEqual([index.missing_ids, index.extra_ids], [[todo], [old]]);
      assert.equal((found.problems as string[]).length, 3, JSON.stringify(found.problems));
      assert.match(String((found.what_to_do as string[])[0]), /docs\.repair/);

      // Structure only: the missing chunk is found without reading bytes; the changed one is not.
      const structure = await pg.run("docs.verify", { chunks: false });
      assert.equal(structure.chunks_checked, false);
      assert.deepEqual(
        (structure.documents as Array<Record<string, unknown>>).map((d) => d.id),
        [plan],
      );

      // plan.md's file changes, so its lost chunk has nowhere to come from.
      await Deno.writeTextFile(join(dir, "plan.md"), "the plan changed");
      const dry = await pg.run("docs.repair", { dry_run: true });
      assert.deepEqual(
        (dry.documents as Array<Record<string, unknown>>).map((d) => [d.id, d.status]),
        [[notes, "would_restore"], [plan, "unrecoverable"]],
      );
      assert.equal((dry.docs_index as Record<string, unknown>).action, "would_rebuild");
      assert.deepEqual(dry.vectors, {
        model: "hashed-v1-384",
        action: "would_store",
        documents: 3,
      });
      assert.equal((await pg.run("docs.verify", {})).ok, false, "a dry run changes nothing");

      const repaired = await pg.run("docs.repair", {});
      assert.deepEqual(repaired.chunks, { damaged: 2, restored: 1 });
      assert.deepEqual([repaired.restored_documents, repaired.unrecoverable_documents], [1, 1]);
      const unrecoverable = (repaired.documents as Array<Record<string, unknown>>)[1];
      assert.match(String(unrecoverable.reason), /has changed since it was stored/);
      assert.deepEqual(repaired.docs_index, {
        file: null,
        action: "rebuilt",
        reason: "the keyword index lacked 1 latest text document and held 1 other document",
        documents_indexed: 1,
      });
      assert.deepEqual(repaired.vectors, {
        model: "hashed-v1-384",
        action: "stored",
        documents: 3,
      });
      assert.equal(repaired.ok, false);
      assert.match(String((repaired.remaining as string[])[0]), /1 document cannot be restored/);

      // What is left is exactly plan.md; notes.md reads back whole again.
      const after = await pg.run("docs.verify", {});
      assert.deepEqual(
        (after.documents as Array<Record<string, unknown>>).map((d) => d.id),
        [plan],
      );
      assert.equal((after.index as Record<string, unknown>).status, "ok");
      const notesRow = (await pg.docs.documentById(notes))!;
      assert.equal(
        new TextDecoder().decode(await readContentFrom(pg.docs, notesRow.hash, notesRow)),
        long,
      );
      assert.equal(await pg.docs.vectorCount() > 0, true);
    } finally {
      await pg.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
