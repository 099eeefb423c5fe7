/**
 * A team server storing pushed documents, on SQLite's engine and on PostgreSQL's: the same
 * pushes (new documents with tags, metadata and collections; the same again; a new version of
 * one; one person's path pushed by another; bytes that do not match their hash; one content under
 * two people's paths) answer the same reports on both, and leave the same documents, each its
 * pusher's, with the same attachments, times and bytes.
 */
import assert from "node:assert/strict";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { readContentFrom, sha256Hex } from "../../src/docs/mod.ts";
import { DATABASE, DOCUMENT_SEARCH, STORE } from "../../src/ops/service_keys.ts";
import { type DocumentEngine, pushDocuments } from "../../src/sync/mod.ts";
import type { Pusher } from "../../src/sync/push_history.ts";
import type { SyncDocument } from "../../src/sync/wire.ts";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { DOCS_NOW, type DocsBackend, openDocsBackends } from "../docs/docs_backends.ts";
import { heldDocuments } from "./held_documents.ts";

const ADA: Pusher = { person: "ada", host: "ada-laptop" };
const BOB: Pusher = { person: "bob", host: "ada-laptop" };

/** The engine a server on this backend stores pushed documents with. */
function engineOf(backend: DocsBackend): DocumentEngine {
  if (backend.name === "sqlite") return { kind: "sqlite", db: backend.services.get(DATABASE) };
  const search = backend.services.get(DOCUMENT_SEARCH);
  return { kind: "server", server: { store: backend.services.get(STORE), search } };
}

/** A pushed document of `text`, as `vantage sync` sends one. */
function pushed(path: string, text: string, more: Partial<SyncDocument> = {}): SyncDocument {
  const bytes = new TextEncoder().encode(text);
  return {
    path,
    relative_path: path.split("/").pop()!,
    hash: sha256Hex(bytes),
    content_base64: bytes.toBase64(),
    modified_at: DOCS_NOW - 86_400_000,
    tags: [],
    metadata: {},
    collections: [],
    ...more,
  };
}

Deno.test({
  name: "pushed documents are stored the same by a team server on SQLite and on PostgreSQL",
  ignore: skipWithoutPostgres("the pushed documents parity suite"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-push-docs-" });
    const backends = await openDocsBackends(dir);
    const options = { embedder: new HashedEmbedder(), now: DOCS_NOW };
    const push = async (documents: SyncDocument[], pusher: Pusher) => {
      const reports = [];
      for (const backend of backends) {
        reports.push(
          await pushDocuments(engineOf(backend), backend.services.get(STORE), documents, pusher, {
            ...options,
          }),
        );
      }
      assert.deepEqual(reports[1], reports[0]);
      return reports[0];
    };
    try {
      const notes = [
        pushed("/home/ada/notes/wombats.md", "# Wombats\n\nThey dig square burrows.\n", {
          tags: ["burrows", "field"],
          metadata: { priority: "high" },
          collections: [{ name: "field-notes", relative_path: "wombats.md" }],
        }),
        pushed("/home/ada/todo.md", "- sync the team\n"),
      ];
      assert.deepEqual(await push(notes, ADA), {
        added: 2,
        updated: 0,
        unchanged: 0,
        bytes: notes.reduce(
          (sum, doc) => sum + Uint8Array.fromBase64(doc.content_base64).length,
          0,
        ),
        refused: [],
        invalid: [],
      });
      // The same again: found by content, nothing stored twice.
      const before = await Promise.all(backends.map((b) => b.docs.chunkTotals()));
      const again = await push(notes, ADA);
      assert.equal(again.unchanged, 2);
      assert.deepEqual(await Promise.all(backends.map((b) => b.docs.chunkTotals())), before);
      // A new version of one path.
      const edited = await push([pushed("/home/ada/todo.md", "- sync the team\n- done\n")], ADA);
      assert.equal(edited.updated, 1);
      // A path someone else holds (the server's owner added it) is refused, never superseded;
      // bytes not matching their hash are invalid.
      for (const backend of backends) {
        await backend.run("docs.add", {
          content: "the owner's plan\n",
          name: "bob@ada-laptop:/plan.md",
        });
      }
      const wrong = { ...pushed("/home/bob/x.md", "one text"), hash: sha256Hex("another text") };
      const refused = await push([pushed("/plan.md", "bob's plan\n"), wrong], BOB);
      assert.deepEqual(refused.refused, [{ path: "bob@ada-laptop:/plan.md", owner: null }]);
      assert.equal(refused.invalid.length, 1);
      assert.match(refused.invalid[0].reason, /hash to/);
      // The same content from another person: their own document, its bytes stored once.
      const chunks = await Promise.all(backends.map((b) => b.docs.chunkTotals()));
      const shared = await push([
        pushed("/home/bob/wombats.md", "# Wombats\n\nThey dig square burrows.\n"),
      ], BOB);
      assert.equal(shared.added, 1);
      assert.deepEqual(await Promise.all(backends.map((b) => b.docs.chunkTotals())), chunks);

      const held = [];
      for (const backend of backends) {
        const docs = backend.docs;
        const documents = await heldDocuments(docs, (row) => readContentFrom(docs, row.hash, row));
        const rows = await docs.documentsForPaths(documents.map((doc) => doc.path));
        held.push({
          documents,
          rows: rows.map((row) => [row.path, row.relative_path, row.modified_at, row.is_latest])
            .sort(),
        });
      }
      assert.deepEqual(held[1], held[0]);
      assert.deepEqual(held[0].documents.map((doc) => [doc.path, doc.person]), [
        ["ada@ada-laptop:/home/ada/notes/wombats.md", "ada"],
        ["ada@ada-laptop:/home/ada/todo.md", "ada"],
        ["ada@ada-laptop:/home/ada/todo.md", "ada"],
        ["bob@ada-laptop:/home/bob/wombats.md", "bob"],
        ["bob@ada-laptop:/plan.md", null],
      ]);
      const wombats = held[0].documents[0];
      assert.deepEqual(wombats.tags, ["burrows", "field"]);
      assert.deepEqual(wombats.metadata, { priority: "high" });
      assert.deepEqual(wombats.collections, ["field-notes"]);
    } finally {
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
