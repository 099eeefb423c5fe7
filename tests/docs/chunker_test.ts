import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  chunkBoundaries,
  chunkIterable,
  chunkSpans,
  ChunkStream,
  DEFAULT_MAX_CHUNK_SIZE,
  DEFAULT_MIN_CHUNK_SIZE,
} from "../../src/docs/chunker.ts";

// xorshift32 fill: deterministic "random" content without depending on the crypto RNG.
function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  const words = new Uint32Array(bytes.buffer, 0, Math.floor(length / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  for (let i = words.length * 4; i < length; i++) bytes[i] = i & 0xff;
  return bytes;
}

const TEN_MB = pseudoRandomBytes(10 * 1024 * 1024, 0xc0ffee);

function chunkHashes(bytes: Uint8Array, ends: number[]): string[] {
  let start = 0;
  return ends.map((end) => {
    const hash = createHash("sha256").update(bytes.subarray(start, end)).digest("hex");
    start = end;
    return hash;
  });
}

Deno.test("chunkBoundaries covers the input with chunks within the size limits", () => {
  const ends = chunkBoundaries(TEN_MB);
  assert.equal(ends.at(-1), TEN_MB.length);
  let start = 0;
  for (const [i, end] of ends.entries()) {
    const size = end - start;
    assert.ok(size <= DEFAULT_MAX_CHUNK_SIZE, `chunk ${i} is ${size} bytes`);
    if (i < ends.length - 1) {
      assert.ok(size >= DEFAULT_MIN_CHUNK_SIZE, `chunk ${i} is ${size} bytes`);
    }
    start = end;
  }
  const average = TEN_MB.length / ends.length;
  assert.ok(average > 26 * 1024 && average < 40 * 1024, `average chunk ${average}`);
});

Deno.test("chunkBoundaries is deterministic", () => {
  assert.deepEqual(chunkBoundaries(TEN_MB), chunkBoundaries(TEN_MB.slice()));
});

Deno.test("a one-byte edit changes at most a few chunks", () => {
  const original = chunkHashes(TEN_MB, chunkBoundaries(TEN_MB));
  for (const position of [TEN_MB.length / 2, 1234567, TEN_MB.length - 100]) {
    const edited = TEN_MB.slice();
    edited[position] ^= 0xff;
    const after = chunkHashes(edited, chunkBoundaries(edited));
    const known = new Set(original);
    const changed = after.filter((hash) => !known.has(hash)).length;
    assert.ok(changed >= 1 && changed <= 3, `edit at ${position} changed ${changed} chunks`);
  }
});

Deno.test("an insertion only disturbs chunks near it", () => {
  const middle = TEN_MB.length / 2;
  const edited = new Uint8Array(TEN_MB.length + 7);
  edited.set(TEN_MB.subarray(0, middle));
  edited.set([1, 2, 3, 4, 5, 6, 7], middle);
  edited.set(TEN_MB.subarray(middle), middle + 7);
  const known = new Set(chunkHashes(TEN_MB, chunkBoundaries(TEN_MB)));
  const after = chunkHashes(edited, chunkBoundaries(edited));
  assert.ok(after.filter((hash) => !known.has(hash)).length <= 3);
});

Deno.test("ChunkStream fed in pieces matches the one-shot boundaries", () => {
  const expected = chunkBoundaries(TEN_MB);
  for (const pieceSize of [1, 4093, 65536, 1_000_003]) {
    // Single-byte pieces are slow in any implementation; a prefix is enough to prove the point.
    const input = pieceSize === 1 ? TEN_MB.subarray(0, 300_000) : TEN_MB;
    const stream = new ChunkStream();
    const ends: number[] = [];
    for (let offset = 0; offset < input.length; offset += pieceSize) {
      for (const span of stream.push(input.subarray(offset, offset + pieceSize))) {
        ends.push(span.offset + span.length);
      }
    }
    for (const span of stream.finish()) ends.push(span.offset + span.length);
    assert.deepEqual(
      ends,
      pieceSize === 1 ? chunkBoundaries(input) : expected,
      `pieces of ${pieceSize}`,
    );
  }
});

Deno.test("chunkIterable yields the chunk bytes for a stream of pieces", async () => {
  const input = TEN_MB.subarray(0, 2_000_000);
  const pieces = function* () {
    for (let offset = 0; offset < input.length; offset += 70_001) {
      yield input.subarray(offset, offset + 70_001);
    }
  };
  const chunks = [];
  for await (const chunk of chunkIterable(pieces())) chunks.push(chunk);
  assert.deepEqual(chunks.map((c) => c.offset + c.length), chunkBoundaries(input));
  for (const chunk of chunks) {
    assert.deepEqual(chunk.data, input.subarray(chunk.offset, chunk.offset + chunk.length));
  }
});

Deno.test("small and empty inputs", () => {
  assert.deepEqual(chunkBoundaries(new Uint8Array(0)), []);
  assert.deepEqual(chunkBoundaries(new Uint8Array(10)), [10]);
  assert.deepEqual([...chunkSpans(new Uint8Array(100_000))].map((s) => s.length), [65536, 34464]);
});

Deno.test("custom sizes are honoured and bad options rejected", () => {
  const ends = chunkBoundaries(TEN_MB.subarray(0, 1_000_000), {
    minSize: 2048,
    avgSize: 4096,
    maxSize: 8192,
  });
  const average = 1_000_000 / ends.length;
  assert.ok(average > 3000 && average < 5500, `average ${average}`);
  assert.throws(() => new ChunkStream({ minSize: 4096, avgSize: 4096 }), /minSize < avgSize/);
  assert.throws(() => new ChunkStream({ maxSize: 1.5 }), /maxSize/);
  assert.throws(() => new ChunkStream({ normalization: 9 }), /normalization/);
});

Deno.test("push after finish is an error", () => {
  const stream = new ChunkStream();
  stream.finish();
  assert.throws(() => stream.push(new Uint8Array(1)), /after finish/);
});
