import assert from "node:assert/strict";
import { openHarness, randomBytes, readTree, writeTree } from "./harness.ts";

Deno.test("a tree added and restored comes back byte for byte", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-tree-" });
  const output = await Deno.makeTempDir({ prefix: "vantage-out-" });
  try {
    await writeTree(source, {
      "README.md": "# Project\n\nHello.\n",
      "src/app.ts": 'import { util } from "./lib/util.ts";\nexport const app = () => util();\n',
      "src/lib/util.ts": "export function util() {\n  return 42;\n}\n",
      "data/blob.bin": randomBytes(300_000, 7),
      "data/empty.txt": "",
      "docs/naïve café.md": "# Ünïcode\n\nnames and text ✓\n",
      "big/repeated.txt": "the same line again\n".repeat(20_000),
      "big/copy.txt": "the same line again\n".repeat(20_000),
    });
    const added = await docs.run("docs.add", { path: source, collection: "tree" });
    assert.equal(added.documents_added, 8);
    // Files named as binary are taken last (they give the index worker nothing to do).
    const order = (added.documents as Array<{ path: string }>).map((doc) => doc.path);
    assert.ok(order.at(-1)!.endsWith("blob.bin"), order.join(", "));
    const restored = await docs.run("docs.restore", {
      snapshot_id: added.snapshot_id,
      output_directory: output,
    });
    assert.equal(restored.restored, 8);
    const before = await readTree(source);
    const after = await readTree(output);
    assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
    for (const [path, bytes] of before) assert.deepEqual(after.get(path), bytes, path);

    // Existing files are skipped unless asked to overwrite.
    const again = await docs.run("docs.restore", { collection: "tree", output_directory: output });
    assert.equal(again.restored, 0);
    assert.equal(again.skipped, 8);
    const dry = await docs.run("docs.restore", {
      collection: "tree",
      output_directory: output,
      overwrite: true,
      dry_run: true,
      include_patterns: ["*.ts"],
    });
    assert.equal(dry.restored, 2);
    assert.ok((dry.files as Array<{ status: string }>).every((f) => f.status === "would_write"));
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
    await Deno.remove(output, { recursive: true });
  }
});

Deno.test("re-adding unchanged content stores no new chunks; identical files share them", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-tree-" });
  try {
    await writeTree(source, {
      "a.bin": randomBytes(500_000, 3),
      "b.bin": randomBytes(500_000, 3),
      "c.md": "# c\n",
    });
    const first = await docs.run("docs.add", { path: source });
    assert.equal(first.documents_added, 3);
    const status = await docs.run("docs.status", {});
    const second = await docs.run("docs.add", { path: source });
    assert.equal(second.new_chunks, 0);
    assert.equal(second.new_bytes, 0);
    assert.equal(second.documents_unchanged, 3);
    const after = await docs.run("docs.status", {});
    assert.equal(after.unique_blocks, status.unique_blocks);
    // a.bin and b.bin are the same bytes: stored once.
    assert.ok((after.deduplicated_bytes as number) >= 500_000);
    assert.ok((after.dedup_ratio as number) > 0.4);
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});

Deno.test("a one-byte edit in a 10 MB file adds only the chunks around it", async () => {
  const docs = await openHarness();
  const source = await Deno.makeTempDir({ prefix: "vantage-big-" });
  try {
    const bytes = randomBytes(10 * 1024 * 1024, 11);
    await Deno.writeFile(`${source}/big.bin`, bytes);
    const first = await docs.run("docs.add", { path: `${source}/big.bin` });
    assert.ok((first.new_chunks as number) > 100);
    bytes[5_000_000] ^= 0xff;
    await Deno.writeFile(`${source}/big.bin`, bytes);
    const second = await docs.run("docs.add", { path: `${source}/big.bin` });
    assert.equal(second.documents_updated, 1);
    assert.ok(
      (second.new_chunks as number) >= 1 && (second.new_chunks as number) <= 2,
      `${second.new_chunks}`,
    );
    assert.ok((second.new_bytes as number) <= 2 * 64 * 1024, `${second.new_bytes}`);
    // The new version is the latest; the old one is still stored and retrievable by hash.
    const latest = await docs.run("docs.get", { name: `${source}/big.bin` });
    assert.equal(latest.hash, second.hash);
    const old = await docs.run("docs.get", { hash: first.hash as string, include_content: false });
    assert.equal(old.latest, false);
  } finally {
    await docs.close();
    await Deno.remove(source, { recursive: true });
  }
});

Deno.test("a corrupted chunk is reported with the chunk and the document, never returned", async () => {
  const docs = await openHarness();
  const output = await Deno.makeTempDir({ prefix: "vantage-out-" });
  try {
    const added = await docs.run("docs.add", {
      content: "alpha beta gamma\n".repeat(4000),
      name: "notes.txt",
      collection: "c",
    });
    const hash = added.hash as string;
    const chunk = docs.db.prepare(
      "SELECT chunk_hash FROM docs_content_chunks WHERE content_hash = ? ORDER BY seq LIMIT 1",
    ).get(hash) as { chunk_hash: string };
    const row = docs.db.prepare("SELECT data FROM docs_chunks WHERE hash = ?").get(
      chunk.chunk_hash,
    ) as { data: Uint8Array };
    // Flip one byte of the stored payload (not the codec tag), so it still decodes or not.
    const damaged = new Uint8Array(row.data);
    damaged[damaged.length - 2] ^= 0x01;
    docs.db.prepare("UPDATE docs_chunks SET data = ? WHERE hash = ?").run(
      damaged,
      chunk.chunk_hash,
    );

    const response = await docs.call("docs.get", { hash, include_content: true });
    assert.ok("operation_error" in response, JSON.stringify(response));
    const message = response.operation_error.message;
    assert.match(message, new RegExp(`chunk ${chunk.chunk_hash}`));
    assert.match(message, /notes\.txt/);
    assert.match(message, /corrupt/);

    // Restore reports the damaged document instead of writing it (or stopping).
    const restore = await docs.run("docs.restore", { collection: "c", output_directory: output });
    assert.equal(restore.damaged, 1);
    const [file] = restore.files as Array<{ status: string; reason: string }>;
    assert.equal(file.status, "damaged");
    assert.match(file.reason, new RegExp(`chunk ${chunk.chunk_hash}`));
    assert.match(file.reason, /corrupt/);
    assert.deepEqual([...Deno.readDirSync(output)], [], "nothing half-written is left behind");

    const grep = await docs.run("docs.grep", { pattern: "alpha" });
    assert.equal(grep.files_matched, 0);
    assert.match((grep.warnings as string[])[0], /corrupt/);
  } finally {
    await docs.close();
    await Deno.remove(output, { recursive: true });
  }
});

Deno.test("delete removes every version, and the collector frees chunks nobody uses", async () => {
  const docs = await openHarness();
  try {
    await docs.run("docs.add", { content: "one ".repeat(30_000), name: "tmp/a.tmp" });
    await docs.run("docs.add", { content: "two ".repeat(30_000), name: "tmp/a.tmp" });
    await docs.run("docs.add", { content: "keep me", name: "keep.md" });
    const dry = await docs.run("docs.delete", { name: "*.tmp", dry_run: true });
    assert.equal(dry.deleted, 2);
    assert.equal((await docs.run("docs.status", {})).total_objects, 3);
    const gone = await docs.run("docs.delete", { name: "*.tmp" });
    assert.equal(gone.deleted, 2);
    assert.ok((gone.chunks_freed as number) >= 2);
    const status = await docs.run("docs.status", { detailed: true });
    assert.equal(status.total_objects, 1);
    assert.equal(status.unique_blocks, 1);
    const count = docs.db.prepare("SELECT count(*) AS n FROM docs_chunks").get() as { n: number };
    assert.equal(count.n, 1);
  } finally {
    await docs.close();
  }
});

Deno.test("restore refuses stored paths that would escape the output folder", async () => {
  const docs = await openHarness();
  const parent = await Deno.makeTempDir({ prefix: "vantage-escape-" });
  try {
    await docs.run("docs.add", { content: "sneaky", name: "../../escaped.txt", collection: "x" });
    await docs.run("docs.add", { content: "fine", name: "ok.txt", collection: "x" });
    const output = `${parent}/out`;
    const report = await docs.run("docs.restore", { collection: "x", output_directory: output });
    assert.equal(report.refused, 1);
    assert.equal(report.restored, 1);
    const refused = (report.files as Array<{ status: string; reason?: string }>).find((f) =>
      f.status === "refused"
    );
    assert.match(refused!.reason!, /outside/);
    assert.deepEqual([...Deno.readDirSync(parent)].map((e) => e.name), ["out"]);
    assert.equal(await Deno.readTextFile(`${output}/ok.txt`), "fine");
  } finally {
    await docs.close();
    await Deno.remove(parent, { recursive: true });
  }
});
