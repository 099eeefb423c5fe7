import assert from "node:assert/strict";
import { chunkSpans } from "../../src/docs/chunker.ts";
import { chunksOf } from "../../src/docs/content_store.ts";
import { embeddingPieces, MAX_EMBED_PIECES, resolveModule } from "../../src/docs/doc_index.ts";
import { parseChecksum } from "../../src/docs/doc_download.ts";
import { pathSelected } from "../../src/docs/doc_grep.ts";
import { compileGrepPattern } from "../../src/docs/grep_pattern.ts";
import { safeTarget } from "../../src/docs/doc_restore.ts";
import { reciprocalRankFusion } from "../../src/docs/doc_search.ts";
import { normalizedQuery } from "../../src/docs/doc_suggest.ts";
import { parseMetadata } from "../../src/docs/doc_update.ts";
import {
  anyTermExpression,
  queryKeywords,
  sharedTrigramExpression,
  trigramSimilarity,
} from "../../src/docs/search_terms.ts";

Deno.test("chunksOf cuts pieces exactly where one buffer would be cut", () => {
  const bytes = new Uint8Array(400_000);
  let state = 9;
  for (let i = 0; i < bytes.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) | 0;
    bytes[i] = state >>> 24;
  }
  const expected = [...chunkSpans(bytes)].map((s) => bytes.subarray(s.offset, s.offset + s.length));
  const pieces = [bytes.subarray(0, 1000), bytes.subarray(1000, 150_000), bytes.subarray(150_000)];
  const actual = [...chunksOf(pieces)];
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < actual.length; i++) assert.deepEqual(actual[i], expected[i]);
});

Deno.test("query keywords drop stopwords, keep phrases, and quote for FTS5", () => {
  assert.deepEqual(queryKeywords('what is the "refresh token" flow?'), ["refresh token", "flow"]);
  assert.deepEqual(queryKeywords("the"), ["the"]);
  assert.deepEqual(queryKeywords("AND OR NOT"), ["and", "or", "not"]);
  assert.equal(anyTermExpression(['say "hi"', "x"]), '"say ""hi""" OR "x"');
  assert.equal(normalizedQuery("Widget  widget cache"), "cache widget");
});

Deno.test("trigram similarity tolerates typos and rejects unrelated words", () => {
  assert.ok(trigramSimilarity("middleware", "midleware") >= 0.7);
  assert.ok(trigramSimilarity("optimization", "optimisation") >= 0.7);
  assert.ok(trigramSimilarity("database", "dashboard") < 0.6);
  assert.equal(trigramSimilarity("same", "same"), 1);
  assert.equal(sharedTrigramExpression("ab"), undefined);
  assert.equal(sharedTrigramExpression("abcd"), '"abc" OR "bcd"');
});

Deno.test("reciprocal-rank fusion rewards agreement and respects weights", () => {
  const fused = reciprocalRankFusion([
    { hits: [{ id: 1, score: 9 }, { id: 2, score: 8 }, { id: 3, score: 7 }], weight: 1 },
    { hits: [{ id: 3, score: 0.9 }, { id: 2, score: 0.8 }], weight: 1 },
  ], 10);
  assert.deepEqual(fused.map((h) => h.id), [3, 2, 1]);
  const keywordLed = reciprocalRankFusion([
    { hits: [{ id: 1, score: 1 }], weight: 1 },
    { hits: [{ id: 2, score: 1 }], weight: 0.3 },
  ], 10);
  assert.deepEqual(keywordLed.map((h) => h.id), [1, 2]);
});

Deno.test("embedding pieces pack paragraphs, cut long ones, and lead with the title", () => {
  const pieces = embeddingPieces("Guide", "one\n\ntwo\n\n" + "word ".repeat(2000));
  assert.ok(pieces[0].startsWith("Guide\none\n\ntwo"));
  assert.ok(pieces.length <= MAX_EMBED_PIECES);
  assert.ok(pieces.every((p) => p.length <= 1300));
  assert.deepEqual(embeddingPieces("# T", "# T\n\nbody"), ["# T\n\nbody"]);
  assert.deepEqual(embeddingPieces("Only title", ""), ["Only title"]);
});

Deno.test("relative imports resolve to file paths", () => {
  assert.equal(resolveModule("/r/src/app.ts", "./lib/util"), "/r/src/lib/util");
  assert.equal(resolveModule("/r/src/app.ts", "../x.ts"), "/r/x.ts");
  assert.equal(resolveModule("/r/pkg/a.py", ".util"), "/r/pkg/util.py");
  assert.equal(resolveModule("/r/pkg/sub/a.py", "..core.base"), "/r/pkg/core/base.py");
  assert.equal(resolveModule("/r/src/main.c", "util.h"), "/r/src/util.h");
  assert.equal(resolveModule("/r/src/app.ts", "react"), undefined);
});

Deno.test("restore targets never leave the output folder", () => {
  assert.equal(safeTarget("/out", "a/b.txt"), "/out/a/b.txt");
  assert.equal(safeTarget("/out", "a/../b.txt"), "/out/b.txt");
  assert.equal(safeTarget("/out", "../b.txt"), undefined);
  assert.equal(safeTarget("/out", "a/../../b.txt"), undefined);
  assert.equal(safeTarget("/out", "/etc/passwd"), undefined);
  assert.equal(safeTarget("/out", ""), undefined);
  assert.equal(safeTarget("/out", "C:/x"), undefined);
});

Deno.test("checksums, metadata, grep patterns and path selection parse strictly", () => {
  const hex = "a".repeat(64);
  assert.equal(parseChecksum(`sha256:${hex.toUpperCase()}`), hex);
  assert.equal(parseChecksum(undefined), undefined);
  assert.throws(() => parseChecksum("md5:abc"), /sha256:<64 hex/);
  assert.deepEqual(parseMetadata(["a=1", "b=x=y"]), { a: "1", b: "x=y" });
  assert.deepEqual(parseMetadata({ n: 2, ok: true }), { n: "2", ok: "true" });
  assert.throws(() => parseMetadata(["=x"]), /key=value/);
  assert.ok(compileGrepPattern("foo", { word: true }).testLine("a foo b"));
  assert.ok(!compileGrepPattern("foo", { word: true }).testLine("foobar"));
  assert.ok(compileGrepPattern("FOO", { ignoreCase: true }).testLine("foo"));
  assert.ok(compileGrepPattern("a\\-b").testLine("a-b"));
  assert.throws(() => compileGrepPattern("("), /not a valid regular expression/);
  const row = { path: "/repo/src/app.ts", relative_path: "src/app.ts" };
  assert.ok(pathSelected(row, ["/repo/src"]));
  assert.ok(pathSelected(row, ["src/app.ts"]));
  assert.ok(pathSelected(row, ["*.ts"]));
  assert.ok(pathSelected(row, ["src/**"]));
  assert.ok(!pathSelected(row, ["/repo/lib"]));
  assert.ok(!pathSelected(row, ["*.md"]));
});
