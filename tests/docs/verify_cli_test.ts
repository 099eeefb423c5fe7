/**
 * `vantage doctor --store`, `vantage repair` and `vantage restore` as real
 * processes on a real data home with real damage.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../src/store/database.ts";
import { runVantage } from "../helpers/cli.ts";
import { chunksOfContent, corruptPages, overwriteFile, packFile } from "./damage.ts";
import { randomBytes } from "./harness.ts";

function envFor(home: string): Record<string, string> {
  return { ...Deno.env.toObject(), VANTAGE_HOME: home };
}

/** A stored document's id and content hash, read from the store like any other process would. */
function storedDocument(home: string, path: string): { id: number; hash: string } {
  const db = openDatabase(join(home, "vantage.db"));
  try {
    return db.prepare("SELECT id, hash FROM docs_documents WHERE path = ?").get(path) as {
      id: number;
      hash: string;
    };
  } finally {
    db.close();
  }
}

/** Overwrites bytes in the middle of a stored document's first packed chunk. */
function damagePackedChunk(home: string, contentHash: string): string {
  const db = openDatabase(join(home, "vantage.db"));
  try {
    const chunk = chunksOfContent(db, contentHash).find((row) => row.pack !== null)!;
    overwriteFile(
      packFile(home, chunk.pack!),
      chunk.pack_offset! + 200,
      new Uint8Array(40).fill(7),
    );
    return chunk.hash;
  } finally {
    db.close();
  }
}

Deno.test("doctor --store names damaged documents and packs and exits 1; repair restores them; restore goes past them", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-cli-verify-" });
  const source = await Deno.makeTempDir({ prefix: "vantage-cli-verify-src-" });
  const output = await Deno.makeTempDir({ prefix: "vantage-cli-verify-out-" });
  const env = { ...envFor(home), VANTAGE_ROOTS: `${source}:${output}` };
  try {
    const big = join(source, "big.bin");
    const note = join(source, "note.md");
    Deno.writeFileSync(big, randomBytes(400_000, 21));
    Deno.writeTextFileSync(note, "# note\n\nkept whole\n");
    const added = await runVantage(["add", source, "--collection", "c"], { env });
    assert.equal(added.code, 0, added.stderr);

    const clean = await runVantage(["doctor", "--store"], { env });
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    assert.match(clean.stdout, /No damage found\./);

    const stored = storedDocument(home, big);
    const chunk = damagePackedChunk(home, stored.hash);
    const pack = packFile(home, 1);

    const damaged = await runVantage(["doctor", "--store"], { env });
    assert.equal(damaged.code, 1, damaged.stdout + damaged.stderr);
    assert.match(damaged.stdout, new RegExp(`✘ ${pack}: damaged`));
    assert.ok(damaged.stdout.includes(`#${stored.id} ${big} (${stored.hash})`), damaged.stdout);
    assert.ok(damaged.stdout.includes(`chunk ${chunk}`), damaged.stdout);
    assert.ok(damaged.stdout.includes(`files: ${pack}`), damaged.stdout);
    assert.doesNotMatch(damaged.stdout, /note\.md/);
    assert.match(damaged.stdout, /run 'vantage repair'/);

    const json = await runVantage(["doctor", "--store", "--json"], { env });
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout);
    assert.equal(report.ok, false);
    assert.deepEqual(report.documents.map((document: { path: string }) => document.path), [big]);
    assert.deepEqual(report.documents[0].files, [pack]);

    // Restore writes the whole note, reports the damaged file, and exits 1.
    const restored = await runVantage(["restore", "--collection", "c", "--output", output], {
      env,
    });
    assert.equal(restored.code, 1, restored.stdout + restored.stderr);
    assert.ok(restored.stdout.includes(`damaged: ${join(output, "big.bin")}`), restored.stdout);
    assert.ok(restored.stdout.includes(`chunk ${chunk}`), restored.stdout);
    assert.match(restored.stdout, /restored 1 of 2 .* 1 damaged/);
    assert.deepEqual([...Deno.readDirSync(output)].map((entry) => entry.name), ["note.md"]);

    const repaired = await runVantage(["repair"], { env });
    assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
    assert.ok(
      repaired.stdout.includes(`✔ #${stored.id} ${big}: restored from ${big}`),
      repaired.stdout,
    );
    assert.match(repaired.stdout, /Nothing damaged is left\./);

    const after = await runVantage(["doctor", "--store"], { env });
    assert.equal(after.code, 0, after.stdout);
    const again = await runVantage(["restore", "--collection", "c", "--output", output], { env });
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.deepEqual(Deno.readFileSync(join(output, "big.bin")), Deno.readFileSync(big));
  } finally {
    for (const dir of [home, source, output]) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a store whose own pages are damaged: doctor --store names it, repair says what to do", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-cli-broken-" });
  const copy = await Deno.makeTempDir({ prefix: "vantage-cli-broken-copy-" });
  const source = await Deno.makeTempDir({ prefix: "vantage-cli-broken-src-" });
  try {
    for (let i = 0; i < 200; i++) {
      Deno.writeTextFileSync(
        join(source, `n${i}.md`),
        `# n${i}\n\n${"many words here ".repeat(60)}`,
      );
    }
    const added = await runVantage(["add", source], { env: envFor(home) });
    assert.equal(added.code, 0, added.stderr);
    // A copy of the store, garbage written over its last pages (the document rows).
    const store = join(copy, "vantage.db");
    Deno.copyFileSync(join(home, "vantage.db"), store);
    corruptPages(store, 8, 4);

    const doctor = await runVantage(["doctor", "--store"], { env: envFor(copy) });
    assert.equal(doctor.code, 1, doctor.stdout + doctor.stderr);
    assert.ok(doctor.stdout.includes(`✘ ${store}: damaged`), doctor.stdout);
    assert.match(doctor.stdout, /malformed/);

    const repair = await runVantage(["repair"], { env: envFor(copy) });
    assert.equal(repair.code, 1, repair.stdout + repair.stderr);
    assert.ok(repair.stdout.includes(`✘ store ${store}: damaged`), repair.stdout);
    assert.match(repair.stdout, /restore it from a copy/);
    assert.match(repair.stdout, /sqlite3 vantage\.db "\.recover"/);
    // The original is untouched and whole.
    assert.equal((await runVantage(["doctor", "--store"], { env: envFor(home) })).code, 0);
  } finally {
    for (const dir of [home, copy, source]) await Deno.remove(dir, { recursive: true });
  }
});
