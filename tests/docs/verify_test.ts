/**
 * docs.verify and docs.repair on real stores with real damage: packs cut
 * short, overwritten and deleted, a chunk row overwritten, index files with
 * garbage written over their pages, an index missing a document.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { sha256Hex } from "../../src/docs/content_hash.ts";
import { CorruptContentError, readContent } from "../../src/docs/content_store.ts";
import { verifyStore } from "../../src/docs/doc_verify.ts";
import { closeDocsIndex, docsIndex, docsIndexFile } from "../../src/store/docs/search_index.ts";
import { openMessageIndex } from "../../src/store/agent/message_index.ts";
import { messageIndexPath } from "../../src/store/agent/schema.ts";
import {
  chunksOfContent,
  corruptInlineChunk,
  corruptPages,
  overwriteFile,
  packFile,
  startNewPack,
  truncateFile,
} from "./damage.ts";
import { type DocsHarness, openHarness, randomBytes } from "./harness.ts";

interface VerifyResult {
  ok: boolean;
  chunks_checked: boolean;
  checked: Record<string, number>;
  damaged: { documents: number; chunks: number; files: number };
  store: { file: string; status: string; problems: string[] };
  index: {
    status: string;
    file: string;
    missing: number;
    missing_ids: number[];
    expected: number;
    indexed: number;
  };
  message_index: { file: string; status: string; problems: string[] };
  files: Array<{ path: string; kind: string; status: string; problems: string[] }>;
  documents: Array<{ id: number; path: string; hash: string; problems: string[]; files: string[] }>;
  reclaimable: { pack_files: number; bytes: number };
  problems: string[];
  notes: string[];
}

interface RepairResult {
  ok: boolean;
  docs_index: { action: string; new_file?: string; documents_indexed?: number };
  message_index: { action: string };
  earlier_index_files: string[];
  chunks: { damaged: number; restored: number };
  restored_documents: number;
  unrecoverable_documents: number;
  documents: Array<{ id: number; path: string; status: string; reason: string; files: string[] }>;
  packs: { removed: number; bytes_reclaimed: number };
  remaining: string[];
}

async function verify(docs: DocsHarness, args: Record<string, unknown> = {}) {
  return await docs.run("docs.verify", args) as unknown as VerifyResult;
}

async function repair(docs: DocsHarness, args: Record<string, unknown> = {}) {
  return await docs.run("docs.repair", args) as unknown as RepairResult;
}

async function addFile(docs: DocsHarness, path: string) {
  const added = await docs.run("docs.add", { path });
  const document = (added.documents as Array<{ id: number; hash: string; path: string }>)[0];
  return document;
}

async function contentOf(docs: DocsHarness, hash: string): Promise<Uint8Array> {
  const got = await docs.run("docs.get", { hash, include_content: true });
  return got.content_encoding === "base64"
    ? new Uint8Array(Buffer.from(got.content as string, "base64"))
    : new TextEncoder().encode(got.content as string);
}

Deno.test("verify names every damaged document and file; repair restores the chunks whose files remain", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-verify-src-" });
  try {
    // Each large file lands in a pack of its own; the small note keeps its bytes in its row.
    const files = {
      truncated: { path: join(source, "truncated.bin"), bytes: randomBytes(300_000, 11) },
      overwritten: { path: join(source, "overwritten.bin"), bytes: randomBytes(300_000, 12) },
      deleted: { path: join(source, "deleted.bin"), bytes: randomBytes(200_000, 13) },
      inline: {
        path: join(source, "inline.md"),
        bytes: new TextEncoder().encode("# inline\n\nsmall enough for its row\n"),
      },
      whole: {
        path: join(source, "whole.md"),
        bytes: new TextEncoder().encode("# whole\n\nuntouchedword stays fine\n"),
      },
    };
    const ids: Record<string, { id: number; hash: string }> = {};
    for (const [name, file] of Object.entries(files)) {
      Deno.writeFileSync(file.path, file.bytes);
      ids[name] = await addFile(docs, file.path);
      startNewPack(docs.db);
    }
    // A pack left by a crashed writer: nothing refers to it.
    const current = startNewPack(docs.db);
    const leftover = packFile(docs.home, current - 1);
    Deno.writeFileSync(leftover, randomBytes(6000, 99));

    const clean = await verify(docs);
    assert.equal(clean.ok, true, JSON.stringify(clean.problems));
    assert.deepEqual(clean.problems, [], "a pack nothing uses is not damage");
    assert.equal(clean.checked.documents, 5);
    assert.ok(clean.checked.chunks >= 6, JSON.stringify(clean.checked));
    assert.equal(clean.reclaimable.pack_files, 1);
    assert.deepEqual(
      clean.files.filter((file) => file.kind === "pack").map((file) => [file.path, file.status]),
      [[leftover, "unreferenced"]],
    );

    // The damage.
    const truncatedPack = packFile(docs.home, 1);
    const overwrittenPack = packFile(docs.home, 2);
    const deletedPack = packFile(docs.home, 3);
    truncateFile(truncatedPack, Math.floor(Deno.statSync(truncatedPack).size / 2));
    const overwrittenChunk = chunksOfContent(docs.db, ids.overwritten.hash)[1];
    overwriteFile(
      overwrittenPack,
      overwrittenChunk.pack_offset! + 100,
      new Uint8Array(64).fill(0x00),
    );
    Deno.removeSync(deletedPack);
    corruptInlineChunk(docs.db, ids.inline.hash);
    // The deleted pack's document has no file to come back from.
    Deno.removeSync(files.deleted.path);

    const damaged = await verify(docs);
    assert.equal(damaged.ok, false);
    assert.equal(damaged.damaged.documents, 4);
    const byPath = new Map(damaged.documents.map((document) => [document.path, document]));
    assert.deepEqual([...byPath.keys()].sort(), [
      files.deleted.path,
      files.inline.path,
      files.overwritten.path,
      files.truncated.path,
    ]);
    assert.deepEqual(byPath.get(files.truncated.path)!.files, [truncatedPack]);
    assert.match(byPath.get(files.truncated.path)!.problems[0], /pack-1\.vpk ends before byte/);
    assert.deepEqual(byPath.get(files.overwritten.path)!.files, [overwrittenPack]);
    assert.match(
      byPath.get(files.overwritten.path)!.problems.join("\n"),
      new RegExp(`chunk ${overwrittenChunk.hash} \\(#1\\) is corrupt`),
    );
    assert.deepEqual(byPath.get(files.deleted.path)!.files, [deletedPack]);
    assert.match(byPath.get(files.deleted.path)!.problems[0], /pack-3\.vpk does not exist/);
    const storeFile = resolvePaths(docs.home).database;
    assert.deepEqual(byPath.get(files.inline.path)!.files, [storeFile]);
    assert.equal(byPath.get(files.inline.path)!.id, ids.inline.id);
    assert.equal(byPath.get(files.inline.path)!.hash, ids.inline.hash);
    const fileStatus = new Map(damaged.files.map((file) => [file.path, file.status]));
    assert.equal(fileStatus.get(truncatedPack), "short");
    assert.equal(fileStatus.get(overwrittenPack), "damaged");
    assert.equal(fileStatus.get(deletedPack), "missing");
    assert.equal(fileStatus.get(leftover), "unreferenced");
    assert.equal(fileStatus.get(storeFile), "damaged", "a chunk row is damaged");
    assert.equal(damaged.store.status, "ok", "the store's structure is whole");
    assert.equal(damaged.index.status, "ok");

    // Structure only: the packs that are short or gone, without reading a byte of the others.
    const structural = await verify(docs, { chunks: false });
    assert.equal(structural.chunks_checked, false);
    assert.equal(structural.checked.chunks, 0);
    assert.deepEqual(structural.documents.map((document) => document.path).sort(), [
      files.deleted.path,
      files.truncated.path,
    ]);

    // The recorded health says so, in docs.status.
    const status = await docs.run("docs.status", {});
    const health = status.damage as { status: string; reasons: string[] };
    assert.equal(health.status, "degraded");
    assert.match(health.reasons.join("\n"), /pack-3\.vpk/);

    const repaired = await repair(docs);
    assert.equal(repaired.ok, false, "one document has nothing to come back from");
    const outcome = new Map(repaired.documents.map((document) => [document.path, document]));
    for (const name of ["truncated", "overwritten", "inline"] as const) {
      const path = files[name].path;
      assert.equal(outcome.get(path)?.status, "restored", JSON.stringify(outcome.get(path)));
      assert.equal(outcome.get(path)?.reason, `from ${path}`);
    }
    assert.equal(outcome.get(files.deleted.path)?.status, "unrecoverable");
    assert.match(outcome.get(files.deleted.path)!.reason, /deleted\.bin no longer exists/);
    assert.equal(repaired.unrecoverable_documents, 1);
    assert.equal(repaired.restored_documents, 3);
    assert.ok(repaired.packs.removed >= 1, "the leftover pack is reclaimed");
    assert.throws(() => Deno.statSync(leftover), Deno.errors.NotFound);
    assert.match(repaired.remaining.join("\n"), /deleted\.bin/);

    // The restored documents read back byte for byte; only the unrecoverable one is left.
    for (const name of ["truncated", "overwritten", "inline"] as const) {
      assert.equal(sha256Hex(await contentOf(docs, ids[name].hash)), ids[name].hash, name);
    }
    const after = await verify(docs);
    assert.deepEqual(after.documents.map((document) => document.path), [files.deleted.path]);
    assert.equal(after.reclaimable.pack_files, 0);

    // Once that document is deleted, nothing is damaged and the health is ok again.
    await docs.run("docs.delete", { name: files.deleted.path });
    const final = await verify(docs);
    assert.equal(final.ok, true, JSON.stringify(final.problems));
    const healed = (await docs.run("docs.status", {})).damage as { status: string };
    assert.equal(healed.status, "ok");
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});

async function keywordPaths(docs: DocsHarness, query: string): Promise<string[]> {
  const found = await docs.run("docs.search", { query, type: "keyword" });
  return (found.results as Array<{ path: string }>).map((hit) => hit.path);
}

Deno.test("a search index with garbage over its pages, or missing a document, is rebuilt by repair", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-verify-index-" });
  try {
    const notes: Record<string, string> = {};
    for (let i = 0; i < 40; i++) {
      notes[`note-${i}.md`] = `# note ${i}\n\nindexword${i} ${"filler text ".repeat(200)}\n`;
    }
    for (const [name, text] of Object.entries(notes)) {
      Deno.writeTextFileSync(join(source, name), text);
    }
    await docs.run("docs.add", { path: source });
    const first = docsIndexFile(docs.db)!;
    assert.equal((await verify(docs)).ok, true);

    // Garbage over the middle of the closed index file.
    closeDocsIndex(docs.db);
    corruptPages(first, 6, 3);
    const damaged = await verify(docs);
    assert.equal(damaged.ok, false);
    assert.equal(damaged.index.status, "damaged");
    assert.equal(damaged.files.find((file) => file.path === first)?.status, "damaged");
    assert.match(damaged.problems.join("\n"), /docs-index\.db: damaged/);
    assert.deepEqual(damaged.documents, [], "no document's bytes are damaged");

    const repaired = await repair(docs);
    assert.equal(repaired.ok, true, JSON.stringify(repaired.remaining));
    assert.equal(repaired.docs_index.action, "rebuilt");
    const second = docsIndexFile(docs.db)!;
    assert.equal(repaired.docs_index.new_file, second);
    assert.notEqual(second, first);
    assert.equal(repaired.docs_index.documents_indexed, 40);
    assert.throws(() => Deno.statSync(first), Deno.errors.NotFound, "the damaged file is gone");
    assert.equal((await verify(docs)).ok, true);
    assert.deepEqual(await keywordPaths(docs, "indexword7"), [join(source, "note-7.md")]);

    // A document the index lost without a queued change.
    const lost = await docs.run("docs.get", { name: join(source, "note-3.md") });
    docsIndex(docs.db).prepare("DELETE FROM docs_fts WHERE rowid = ?").run(lost.id as number);
    const incomplete = await verify(docs);
    assert.equal(incomplete.index.status, "incomplete");
    assert.deepEqual(incomplete.index.missing_ids, [lost.id]);
    assert.equal(incomplete.index.expected, 40);
    assert.equal(incomplete.index.indexed, 39);
    assert.deepEqual(await keywordPaths(docs, "indexword3"), []);
    const again = await repair(docs);
    assert.equal(again.docs_index.action, "rebuilt");
    assert.deepEqual(await keywordPaths(docs, "indexword3"), [join(source, "note-3.md")]);

    // A copy of an earlier generation left behind is not damage; repair removes it.
    closeDocsIndex(docs.db);
    const current = docsIndexFile(docs.db)!;
    Deno.copyFileSync(current, first);
    const leftBehind = await verify(docs);
    assert.equal(leftBehind.ok, true);
    assert.equal(leftBehind.files.find((file) => file.path === first)?.status, "left_behind");
    const cleaned = await repair(docs);
    assert.deepEqual(cleaned.earlier_index_files, [first]);
    assert.throws(() => Deno.statSync(first), Deno.errors.NotFound);
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});

Deno.test("a damaged message index is reported, and rebuilt by repair when no serve runs", async () => {
  const docs = await openHarness();
  try {
    const store = resolvePaths(docs.home).database;
    docs.db.prepare(
      "INSERT INTO sessions (session_id, agent, started_at, last_activity_at) VALUES ('s1', 'claude_code', 1, 1)",
    ).run();
    const insert = docs.db.prepare(
      `INSERT INTO messages (session_id, agent, message_key, ts, role, message_type, text)
       VALUES ('s1', 'claude_code', ?, ?, 'user', 'text', ?)`,
    );
    for (let i = 0; i < 300; i++) {
      insert.run(`m${i}`, i, `message number ${i} ${"words ".repeat(50)}`);
    }
    const index = openMessageIndex(store);
    index.exec("CREATE TABLE padding (x BLOB)");
    index.prepare("INSERT INTO padding VALUES (?)").run(randomBytes(200_000, 5));
    index.close();
    const path = messageIndexPath(store);
    corruptPages(path, 20, 4);
    const damaged = await verify(docs);
    assert.equal(damaged.ok, false);
    assert.equal(damaged.message_index.status, "damaged");
    assert.equal(damaged.message_index.file, path);

    const repaired = await repair(docs);
    assert.equal(repaired.message_index.action, "rebuilt", JSON.stringify(repaired));
    assert.equal(repaired.ok, true);
    const rebuilt = openMessageIndex(store);
    try {
      const count = rebuilt.prepare(
        "SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'number'",
      ).get() as { n: number };
      assert.equal(count.n, 300, "every stored message is indexed again");
    } finally {
      rebuilt.close();
    }
    assert.equal((await verify(docs)).ok, true);
  } finally {
    await docs.close();
  }
});

Deno.test("verify gives the event loop a turn while it reads, and stops when aborted", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-verify-large-" });
  try {
    for (let i = 0; i < 8; i++) {
      Deno.writeFileSync(join(source, `blob-${i}.bin`), randomBytes(4_000_000, 100 + i));
    }
    await docs.run("docs.add", { path: source });
    // A timer that notes the longest wait between its turns while the verification runs.
    let ticks = 0;
    let last = performance.now();
    let longest = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    let findings;
    try {
      findings = await verifyStore(docs.db);
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - started;
    assert.equal(findings.report.ok, true);
    assert.ok(findings.report.checked.bytes >= 32_000_000, `${findings.report.checked.bytes}`);
    // Reading and hashing 32 MB is nearly all of the verification; done in one stretch, the timer
    // would wait nearly all of it. Yielding every ~20 ms, its longest wait is a small share.
    assert.ok(
      ticks >= 3 && longest < elapsed / 2,
      `the timer fired ${ticks} times, waiting at most ${longest.toFixed(0)} ms, in ${
        elapsed.toFixed(0)
      } ms of verification`,
    );

    const controller = new AbortController();
    const reason = new Error("stop now");
    setTimeout(() => controller.abort(reason), 1);
    await assert.rejects(
      () => verifyStore(docs.db, { signal: controller.signal }),
      (error) => error === reason,
    );
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});

Deno.test("restore goes on past a damaged document, writes the good ones and names the damage", async () => {
  const docs = await openHarness();
  const output = await Deno.makeTempDir({ prefix: "vantage-verify-restore-" });
  try {
    const good = await docs.run("docs.add", {
      content: "# good\n\nstill whole\n",
      name: "good.md",
      collection: "c",
    });
    const bad = await docs.run("docs.add", {
      content: "# bad\n\nits row is damaged\n",
      name: "bad.md",
      collection: "c",
    });
    const packed = await docs.run("docs.add", {
      content: randomBytes(200_000, 7).reduce(
        (text, byte) => text + (byte % 26 + 10).toString(36),
        "",
      ),
      name: "packed.txt",
      collection: "c",
    });
    corruptInlineChunk(docs.db, bad.hash as string);
    const packedChunk = chunksOfContent(docs.db, packed.hash as string)[0];
    assert.notEqual(packedChunk.pack, null);
    const pack = packFile(docs.home, packedChunk.pack!);
    overwriteFile(pack, packedChunk.pack_offset! + 50, new Uint8Array(32).fill(1));

    const restored = await docs.run("docs.restore", { collection: "c", output_directory: output });
    assert.equal(restored.total, 3);
    assert.equal(restored.restored, 1);
    assert.equal(restored.damaged, 2);
    const files = restored.files as Array<{ path: string; status: string; reason?: string }>;
    const status = new Map(files.map((file) => [file.path, file]));
    assert.equal(status.get(join(output, "good.md"))?.status, "written");
    assert.equal(status.get(join(output, "bad.md"))?.status, "damaged");
    assert.match(status.get(join(output, "bad.md"))!.reason!, new RegExp(`chunk ${bad.hash}`));
    assert.equal(status.get(join(output, "packed.txt"))?.status, "damaged");
    assert.match(
      status.get(join(output, "packed.txt"))!.reason!,
      new RegExp(`chunk ${packedChunk.hash}`),
    );
    assert.match(status.get(join(output, "packed.txt"))!.reason!, /pack-1\.vpk/);
    assert.deepEqual(
      [...Deno.readDirSync(output)].map((entry) => entry.name),
      ["good.md"],
      "nothing of the damaged documents is left behind",
    );
    assert.equal(Deno.readTextFileSync(join(output, "good.md")), "# good\n\nstill whole\n");
    assert.equal(sha256Hex(Deno.readFileSync(join(output, "good.md"))), good.hash);

    // Meeting the damage recorded it as the store's health.
    const health = (await docs.run("docs.status", {})).damage as {
      status: string;
      reasons: string[];
    };
    assert.equal(health.status, "degraded");
    assert.match(health.reasons.join("\n"), new RegExp(`chunk ${packedChunk.hash}`));
  } finally {
    await docs.close();
    await Deno.remove(output, { recursive: true });
  }
});

Deno.test("a document deleted while it is read is not recorded as damage", async () => {
  const docs = await openHarness();
  try {
    const added = await docs.run("docs.add", {
      content: "# gone\n\nsoon deleted\n",
      name: "gone.md",
    });
    await docs.run("docs.delete", { name: "gone.md" });
    // What a read that started before the delete meets: the content and its chunks are gone.
    assert.throws(
      () => readContent(docs.db, added.hash as string, { path: "gone.md" }),
      CorruptContentError,
    );
    assert.equal(((await docs.run("docs.status", {})).damage as { status: string }).status, "ok");
  } finally {
    await docs.close();
  }
});
