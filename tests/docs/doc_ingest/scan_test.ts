import assert from "node:assert/strict";
import { join } from "node:path";
import { HashedEmbedder } from "../../../src/docs/hashed_embedder.ts";
import { isFileProblem, kindOf, listFiles, textFirst } from "../../../src/docs/doc_ingest/scan.ts";
import { newReport } from "../../../src/docs/doc_ingest/ingest.ts";
import type { IngestOptions } from "../../../src/docs/doc_ingest.ts";

function options(extra: Partial<IngestOptions> = {}): IngestOptions {
  return { session: null, embedder: new HashedEmbedder(), now: 0, ...extra };
}

Deno.test("listFiles walks in name order, past .git, links, excluded and skipped folders", async () => {
  const root = await Deno.makeTempDir({ prefix: "vantage-scan-" });
  try {
    for (const dir of ["b", "a", ".git", "build", "home"]) await Deno.mkdir(join(root, dir));
    for (const file of ["z.md", "a/y.md", "a/x.png", "b/w.ts", ".git/HEAD", "build/out.js"]) {
      await Deno.writeTextFile(join(root, file), file);
    }
    await Deno.writeTextFile(join(root, "home", "store.db"), "");
    await Deno.symlink(join(root, "z.md"), join(root, "link.md"));
    const seen = newReport(options());
    const files = listFiles(
      root,
      options({ exclude: ["build/"], skipFolders: [join(root, "home")] }),
      seen,
    );
    assert.deepEqual(files.map((f) => f.relativePath), ["a/x.png", "a/y.md", "b/w.ts", "z.md"]);
    assert.equal(files[0].path, join(root, "a", "x.png"));
    assert.equal(files[0].info?.size, "a/x.png".length, "the listing keeps each file's status");
    assert.deepEqual(seen.skipped, []);

    const flat = listFiles(
      root,
      options({ recursive: false, include: ["*.md"] }),
      newReport(options()),
    );
    assert.deepEqual(flat.map((f) => f.relativePath), ["z.md"]);

    // Binaries go last, in listing order; texts keep theirs.
    assert.deepEqual(textFirst(files).map((f) => f.relativePath), [
      "a/y.md",
      "b/w.ts",
      "z.md",
      "a/x.png",
    ]);
    assert.equal(kindOf("a/x.png"), "binary");
    assert.equal(kindOf("a/y.md"), "text");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a folder that cannot be read is reported skipped, and its error is a file problem", () => {
  const seen = newReport(options());
  assert.deepEqual(listFiles("/nonexistent-vantage-folder", options(), seen), []);
  assert.equal(seen.skipped.length, 1);
  assert.equal(seen.skipped[0].path, "/nonexistent-vantage-folder");
  assert.ok(isFileProblem(new Deno.errors.NotFound("x")));
  assert.ok(!isFileProblem(new Error("disk on fire")));
});
