import assert from "node:assert/strict";
import {
  CODEC_RAW,
  CODEC_ZSTD,
  codecOf,
  compressChunk,
  decompressChunk,
} from "../../src/docs/compression.ts";

const text = new TextEncoder().encode("function add(a, b) { return a + b; }\n".repeat(500));

Deno.test("compressible data is stored as zstd and round-trips", () => {
  const stored = compressChunk(text);
  assert.equal(stored[0], CODEC_ZSTD);
  assert.equal(codecOf(stored), "zstd");
  assert.ok(stored.length < text.length / 10);
  assert.deepEqual(decompressChunk(stored), text);
});

Deno.test("incompressible and tiny data is stored raw", () => {
  const random = crypto.getRandomValues(new Uint8Array(4096));
  const stored = compressChunk(random);
  assert.equal(stored[0], CODEC_RAW);
  assert.equal(stored.length, random.length + 1);
  assert.deepEqual(decompressChunk(stored), random);
  assert.deepEqual(decompressChunk(compressChunk(new Uint8Array(0))), new Uint8Array(0));
  assert.equal(codecOf(compressChunk(new Uint8Array([1, 2, 3]))), "raw");
  // Under 4 KiB even text stays raw: zstd's fixed cost per call outweighs the bytes saved.
  assert.equal(codecOf(compressChunk(text.subarray(0, 4000))), "raw");
  assert.equal(codecOf(compressChunk(text.subarray(0, 4096))), "zstd");
});

Deno.test("a random-looking sample skips zstd, but a chunk only partly random is compressed", () => {
  const random = crypto.getRandomValues(new Uint8Array(65536));
  assert.equal(codecOf(compressChunk(random)), "raw");
  const mixed = new Uint8Array(131072);
  mixed.set(random, 0);
  const stored = compressChunk(mixed);
  assert.equal(codecOf(stored), "zstd");
  assert.ok(stored.length < 70000);
  assert.deepEqual(decompressChunk(stored), mixed);
});

Deno.test("decompressChunk returns a copy for raw chunks", () => {
  const stored = compressChunk(new Uint8Array([9, 9]));
  const out = decompressChunk(stored);
  out[0] = 0;
  assert.equal(stored[1], 9);
});

Deno.test("every level works and bad levels are rejected", () => {
  for (const level of [1, 9, 19]) {
    assert.deepEqual(decompressChunk(compressChunk(text, { level })), text);
  }
  assert.throws(() => compressChunk(text, { level: 0 }), /compression level 0/);
});

Deno.test("decompressChunk rejects unknown tags, empty input and corrupt payloads", () => {
  assert.throws(
    () => decompressChunk(new Uint8Array([0x07, 1, 2])),
    /Unknown chunk codec tag 0x07/,
  );
  assert.throws(() => decompressChunk(new Uint8Array(0)), /empty/);
  assert.throws(
    () => decompressChunk(new Uint8Array([CODEC_ZSTD, 1, 2, 3, 4])),
    /Cannot decompress zstd/,
  );
});

Deno.test("decompressChunk enforces maxOutputLength", () => {
  const stored = compressChunk(new Uint8Array(1_000_000));
  assert.throws(() => decompressChunk(stored, { maxOutputLength: 1000 }), /Cannot decompress/);
  assert.equal(decompressChunk(stored).length, 1_000_000);
});
