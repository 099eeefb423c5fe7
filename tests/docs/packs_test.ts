import assert from "node:assert/strict";
import { join } from "node:path";
import { compactPacks, putContent, readContent } from "../../src/docs/content_store.ts";
import { compressChunk } from "../../src/docs/compression.ts";
import { sha256Hex } from "../../src/docs/content_hash.ts";
import { type DatabaseSync, openDatabase, transaction } from "../../src/store/database.ts";
import {
  compactChunkPacks,
  deleteUnreferencedChunks,
  insertChunk,
  readChunk,
} from "../../src/store/docs/chunks.ts";
import {
  currentPackNumber,
  listPackFiles,
  PACK_MIN_BYTES,
  PACK_ROTATE_BYTES,
} from "../../src/store/docs/packs.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { openHarness, writeTree } from "./harness.ts";

/** Bytes that do not compress, so every chunk of them is stored large enough for a pack. */
function noise(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += 65_536) {
    crypto.getRandomValues(out.subarray(at, Math.min(length, at + 65_536)));
  }
  return out;
}

/** Runs `test` on a fresh database file in a folder of its own, removed afterwards. */
function withDatabaseFile(prefix: string, test: (db: DatabaseSync, dir: string) => void): void {
  const dir = Deno.makeTempDirSync({ prefix });
  const db = openDatabase(join(dir, "vantage.db"));
  try {
    test(db, dir);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
}

function packDir(home: string): string {
  return join(home, "docs-packs");
}

function packNames(home: string): string[] {
  try {
    return [...Deno.readDirSync(packDir(home))].map((entry) => entry.name).sort();
  } catch {
    return [];
  }
}

interface PackedRow {
  hash: string;
  pack: number | null;
  pack_offset: number | null;
  stored_size: number;
  data: Uint8Array;
}

Deno.test("larger chunks go to a pack file and small ones stay in their rows; a restore is byte-identical", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-packs-src-" });
  const output = await Deno.makeTempDir({ prefix: "vantage-packs-out-" });
  try {
    const big = noise(3_000_000);
    const small = "# small\n\nfits in its row\n";
    await writeTree(source, { "big.bin": big, "small.md": small });
    const added = await docs.run("docs.add", { path: source, collection: "c" });
    assert.equal(added.documents_added, 2);
    // The bulk settings the add used are put back.
    const setting = (name: string) => Object.values(docs.db.prepare(`PRAGMA ${name}`).get()!)[0];
    assert.equal(setting("temp_store"), 0);
    assert.equal(setting("cache_size"), -2000);

    assert.deepEqual(packNames(docs.home), ["pack-1.vpk"]);
    const rows = docs.db.prepare(
      "SELECT hash, pack, pack_offset, stored_size, data FROM docs_chunks ORDER BY pack_offset",
    ).all() as unknown as PackedRow[];
    const packed = rows.filter((row) => row.pack !== null);
    const inline = rows.filter((row) => row.pack === null);
    assert.ok(packed.length >= 3, `the 3 MB file is several chunks: ${packed.length}`);
    for (const row of rows) {
      assert.equal(
        row.pack !== null,
        row.stored_size >= PACK_MIN_BYTES,
        `${row.stored_size} bytes`,
      );
    }
    const smallHash = sha256Hex(new TextEncoder().encode(small));
    assert.ok(inline.some((row) => row.hash === smallHash), "the small file's chunk is in its row");
    for (const row of packed) assert.equal(row.data.length, 0, "a packed row keeps no bytes");
    // Chunks sit one after another; the pack holds exactly their stored bytes.
    let expected = 0;
    for (const row of packed) {
      assert.equal(row.pack_offset, expected);
      expected += row.stored_size;
    }
    assert.equal(Deno.statSync(join(packDir(docs.home), "pack-1.vpk")).size, expected);
    const status = await docs.run("docs.status", { detailed: true });
    const details = status.details as Record<string, number>;
    assert.equal(details.pack_files, 1);
    assert.equal(details.pack_bytes, expected);
    const inlineBytes = inline.reduce((sum, row) => sum + row.stored_size, 0);
    assert.equal(details.stored_bytes, expected + inlineBytes);

    const restored = await docs.run("docs.restore", { collection: "c", output_directory: output });
    assert.equal(restored.restored, 2, JSON.stringify(restored));
    const back = Deno.readFileSync(join(output, "big.bin"));
    assert.equal(sha256Hex(back), sha256Hex(big));

    // Adding the same tree again writes nothing to the pack.
    const again = await docs.run("docs.add", { path: source, collection: "c" });
    assert.equal(again.new_chunks, 0);
    assert.equal(Deno.statSync(join(packDir(docs.home), "pack-1.vpk")).size, expected);
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
    await Deno.remove(output, { recursive: true });
  }
});

Deno.test("a damaged or missing pack is reported naming the chunk and the document, never returned", async () => {
  const docs = await openHarness();
  try {
    const bytes = noise(500_000);
    const text = Array.from(bytes.subarray(0, 200_000), (b) => b.toString(16).padStart(2, "0"))
      .join("").replace(/(.{64})/g, "$1\n");
    const added = await docs.run("docs.add", { content: text, name: "hex.txt" });
    const hash = added.hash as string;
    const chunk = docs.db.prepare(
      `SELECT c.hash, c.pack, c.pack_offset, c.stored_size FROM docs_content_chunks m
       JOIN docs_chunks c ON c.hash = m.chunk_hash WHERE m.content_hash = ? ORDER BY m.seq LIMIT 1`,
    ).get(hash) as unknown as PackedRow;
    assert.equal(chunk.pack, 1);
    const path = join(packDir(docs.home), "pack-1.vpk");
    const pack = Deno.readFileSync(path);
    pack[chunk.pack_offset! + Math.floor(chunk.stored_size / 2)] ^= 0x01;
    Deno.writeFileSync(path, pack);

    const damaged = await docs.call("docs.get", { hash, include_content: true });
    assert.ok("operation_error" in damaged, "the damaged chunk was returned");
    assert.match(damaged.operation_error.message, new RegExp(`chunk ${chunk.hash}`));
    assert.match(damaged.operation_error.message, /hex\.txt/);
    assert.match(damaged.operation_error.message, /corrupt/);

    Deno.removeSync(path);
    const missing = await docs.call("docs.get", { hash, include_content: true });
    assert.ok("operation_error" in missing, "content was returned without its pack");
    assert.match(missing.operation_error.message, new RegExp(`chunk ${chunk.hash}`));
    assert.match(missing.operation_error.message, /pack-1\.vpk does not exist/);

    // Grep skips the document and says why, naming the pack.
    const grep = await docs.run("docs.grep", { pattern: "0a" });
    assert.equal(grep.files_matched, 0);
    assert.match((grep.warnings as string[])[0], /pack-1\.vpk/);
  } finally {
    await docs.close();
  }
});

Deno.test("deleting documents removes packs nothing uses and compacts packs mostly unused", async () => {
  const docs = await openHarness();
  try {
    const large = noise(5_000_000);
    const kept = noise(1_000_000);
    const source = await Deno.makeTempDir({ dir: docs.home, prefix: "src-" });
    await writeTree(source, { "large.bin": large, "kept.bin": kept });
    await docs.run("docs.add", { path: source });
    assert.deepEqual(packNames(docs.home), ["pack-1.vpk"]);
    const before = Deno.statSync(join(packDir(docs.home), "pack-1.vpk")).size;
    assert.ok(before > 5_900_000, `${before}`);

    // 5 of the pack's 6 MB are unused now: what is still used moves to a new pack.
    await docs.run("docs.delete", { name: "*large.bin" });
    assert.deepEqual(packNames(docs.home), ["pack-2.vpk"]);
    const after = Deno.statSync(join(packDir(docs.home), "pack-2.vpk")).size;
    assert.ok(after > 900_000 && after < 1_100_000, `${after} bytes left`);
    const stillThere = await docs.run("docs.get", { name: "kept.bin", include_content: false });
    const hash = stillThere.hash as string;
    assert.equal(sha256Hex(readContent(docs.db, hash, { path: "kept.bin" })), sha256Hex(kept));

    // A pack nothing uses is removed outright.
    await docs.run("docs.delete", { name: "*kept.bin" });
    assert.deepEqual(packNames(docs.home), []);
    const status = await docs.run("docs.status", {});
    assert.equal(status.unique_blocks, 0);

    // Appends carry on in a fresh pack.
    await docs.run("docs.add", { path: join(source, "kept.bin") });
    assert.deepEqual(packNames(docs.home), ["pack-3.vpk"]);
  } finally {
    await docs.close();
  }
});

Deno.test("a transaction that rolls back leaves its pack as it was, and one that opened it removes it", () => {
  withDatabaseFile("vantage-packs-rollback-", (db) => {
    const chunk = noise(20_000);
    const storeThenFail = () =>
      assert.throws(
        () =>
          transaction(db, () => {
            insertChunk(db, sha256Hex(chunk), chunk.length, chunk);
            throw new Error("the work failed");
          }),
        /the work failed/,
      );
    storeThenFail();
    assert.deepEqual(listPackFiles(db), [], "the pack the failed transaction created is gone");

    const first = noise(20_000);
    transaction(db, () => insertChunk(db, sha256Hex(first), first.length, first));
    assert.deepEqual(listPackFiles(db), [{ pack: 1, bytes: 20_000 }]);
    storeThenFail();
    assert.deepEqual(listPackFiles(db), [{ pack: 1, bytes: 20_000 }]);
    const count = db.prepare("SELECT count(*) AS n FROM docs_chunks").get() as { n: number };
    assert.equal(count.n, 1);

    // Outside a transaction there is nothing to keep the pack in step with: bytes stay inline.
    const loose = noise(20_000);
    insertChunk(db, sha256Hex(loose), loose.length, loose);
    const row = db.prepare("SELECT pack, length(data) AS n FROM docs_chunks WHERE hash = ?").get(
      sha256Hex(loose),
    ) as { pack: number | null; n: number };
    assert.deepEqual({ ...row }, { pack: null, n: 20_000 });
  });
});

Deno.test("two connections append to the same pack in turn and read each other's chunks", () => {
  const dir = Deno.makeTempDirSync({ prefix: "vantage-packs-two-" });
  const one = openDatabase(join(dir, "vantage.db"));
  const two = openDatabase(join(dir, "vantage.db"));
  try {
    const contents: Uint8Array[] = [];
    for (let i = 0; i < 6; i++) {
      const bytes = noise(150_000 + i * 1000);
      contents.push(bytes);
      const db = i % 2 === 0 ? one : two;
      transaction(db, () => putContent(db, bytes, Date.now()));
    }
    for (const db of [one, two]) {
      for (const bytes of contents) {
        const hash = sha256Hex(bytes);
        assert.equal(sha256Hex(readContent(db, hash, { path: hash })), hash);
      }
    }
    const total = one.prepare(
      "SELECT sum(stored_size) AS n FROM docs_chunks WHERE pack = 1",
    ).get() as { n: number };
    assert.deepEqual(listPackFiles(two), [{ pack: 1, bytes: total.n }]);
  } finally {
    one.close();
    two.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("chunks stored in rows before packs existed are still read after the migration", () => {
  const dir = Deno.makeTempDirSync({ prefix: "vantage-packs-migrate-" });
  const file = join(dir, "vantage.db");
  const before = MIGRATIONS.filter((migration) => migration.version < 14);
  const old = openDatabase(file, { migrations: before });
  const bytes = noise(30_000);
  const hash = sha256Hex(bytes);
  try {
    // Written as the store did before version 14: the chunk's bytes in its row (a content of one
    // chunk has the chunk's hash and no chunk list).
    const stored = compressChunk(bytes);
    old.prepare(
      "INSERT INTO docs_chunks (hash, size, stored_size, ref_count, data) VALUES (?, ?, ?, 1, ?)",
    ).run(hash, bytes.length, stored.length, stored);
    old.prepare(
      "INSERT INTO docs_contents (hash, size, chunk_count, created_at) VALUES (?, ?, 1, 0)",
    ).run(hash, bytes.length);
  } finally {
    old.close();
  }
  const db = openDatabase(file);
  try {
    const packed = db.prepare("SELECT count(*) AS n FROM docs_chunks WHERE pack IS NOT NULL")
      .get() as { n: number };
    assert.equal(packed.n, 0);
    assert.equal(sha256Hex(readContent(db, hash, { path: "old" })), hash);
  } finally {
    db.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a full pack gives way to the next, and a rolled-back rotation leaves no trace", () => {
  withDatabaseFile("vantage-packs-rotate-", (db) => {
    const size = Math.floor(PACK_ROTATE_BYTES * 0.4);
    const chunkOf = (mark: number) => {
      const bytes = new Uint8Array(size);
      bytes[0] = mark;
      bytes[size - 1] = mark;
      return { hash: sha256Hex(bytes), bytes };
    };
    const chunks = [1, 2, 3].map(chunkOf);
    transaction(db, () => {
      for (const chunk of chunks) insertChunk(db, chunk.hash, size, chunk.bytes);
    });
    assert.deepEqual(listPackFiles(db), [{ pack: 1, bytes: 2 * size }, { pack: 2, bytes: size }]);
    assert.equal(currentPackNumber(db), 2);
    for (const chunk of chunks) {
      assert.equal(sha256Hex(readChunk(db, chunk.hash)!.data), chunk.hash);
    }

    // Two more fill pack 2 and open pack 3, then the work fails: pack 3 goes, pack 2 shrinks back.
    const more = [4, 5].map(chunkOf);
    assert.throws(() =>
      transaction(db, () => {
        for (const chunk of more) insertChunk(db, chunk.hash, size, chunk.bytes);
        throw new Error("the work failed");
      })
    );
    assert.deepEqual(listPackFiles(db), [{ pack: 1, bytes: 2 * size }, { pack: 2, bytes: size }]);
    assert.equal(currentPackNumber(db), 2);
  });
});

Deno.test("bytes a crashed writer left past a pack's end are appended after and never read", () => {
  withDatabaseFile("vantage-packs-crash-", (db, dir) => {
    const first = noise(10_000);
    transaction(db, () => insertChunk(db, sha256Hex(first), first.length, first));
    // What a process killed between its append and its COMMIT leaves behind.
    const pack = join(dir, "docs-packs", "pack-1.vpk");
    Deno.writeFileSync(pack, noise(777), { append: true });
    const second = noise(10_000);
    transaction(db, () => insertChunk(db, sha256Hex(second), second.length, second));
    const row = db.prepare("SELECT pack, pack_offset FROM docs_chunks WHERE hash = ?").get(
      sha256Hex(second),
    ) as { pack: number; pack_offset: number };
    assert.deepEqual({ ...row }, { pack: 1, pack_offset: 10_777 });
    assert.deepEqual(readChunk(db, sha256Hex(first))!.data, first);
    assert.deepEqual(readChunk(db, sha256Hex(second))!.data, second);
  });
});

Deno.test("compaction moves the chunks it can read and keeps a damaged pack for the ones it cannot", () => {
  withDatabaseFile("vantage-packs-damaged-", (db, dir) => {
    const [large, readable, cut] = [3_000_000, 200_000, 200_000].map(noise);
    transaction(db, () => {
      for (const bytes of [large, readable, cut]) {
        insertChunk(db, sha256Hex(bytes), bytes.length, bytes);
      }
    });
    // The pack loses the end of its last chunk.
    const pack = join(dir, "docs-packs", "pack-1.vpk");
    Deno.truncateSync(pack, 3_000_000 + 200_000 + 1_000);
    const freed = transaction(db, () => {
      db.prepare("UPDATE docs_chunks SET ref_count = 0 WHERE hash = ?").run(sha256Hex(large));
      return deleteUnreferencedChunks(db);
    });
    compactPacks(db);
    assert.deepEqual(freed, { chunks: 1, bytes: 3_000_000 });
    assert.deepEqual(listPackFiles(db).map((file) => file.pack), [1, 2]);
    assert.deepEqual(readChunk(db, sha256Hex(readable))!.data, readable);
    const where = db.prepare("SELECT pack FROM docs_chunks WHERE hash = ?");
    assert.equal((where.get(sha256Hex(readable)) as { pack: number }).pack, 2);
    assert.equal((where.get(sha256Hex(cut)) as { pack: number }).pack, 1);
    assert.throws(() => readChunk(db, sha256Hex(cut)), /pack-1\.vpk ends before byte 3400000/);
  });
});

Deno.test("compaction copies a mostly unused pack in steps of a bounded size, each its own transaction", () => {
  withDatabaseFile("vantage-packs-steps-", (db) => {
    const chunks = Array.from({ length: 30 }, () => noise(100_000));
    transaction(db, () => {
      for (const bytes of chunks) insertChunk(db, sha256Hex(bytes), bytes.length, bytes);
    });
    // Twenty of thirty chunks go: a third of the pack is still used, 2 MB of it is waste.
    const kept = chunks.slice(20);
    transaction(db, () => {
      for (const bytes of chunks.slice(0, 20)) {
        db.prepare("UPDATE docs_chunks SET ref_count = 0 WHERE hash = ?").run(sha256Hex(bytes));
      }
      deleteUnreferencedChunks(db);
    });
    let steps = 0;
    while (transaction(db, () => compactChunkPacks(db, 250_000))) {
      steps++;
      // Between steps every chunk reads back, wherever it is now.
      for (const bytes of kept) assert.deepEqual(readChunk(db, sha256Hex(bytes))!.data, bytes);
    }
    // 1 MB to copy, at most about 250 kB a step: several steps, then a last one that finishes.
    assert.ok(steps >= 3, `${steps} steps`);
    assert.deepEqual(listPackFiles(db).map((file) => file.pack), [2]);
    for (const bytes of kept) assert.deepEqual(readChunk(db, sha256Hex(bytes))!.data, bytes);
  });
});
