import assert from "node:assert/strict";
import { JsonlFile, readJsonlLines } from "../../../src/agent/transcripts/jsonl_reader.ts";

async function withFile(
  content: string | Uint8Array,
  run: (path: string) => void | Promise<void>,
) {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
    await run(path);
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("reads complete lines with their byte offsets, LF and CRLF", async () => {
  await withFile('{"a":1}\r\n{"b":"é"}\n\n{"c":3}\n', async (path) => {
    const result = await readJsonlLines(path, 0);
    assert.deepEqual(result.lines, [
      { text: '{"a":1}', startOffset: 0, endOffset: 9 },
      { text: '{"b":"é"}', startOffset: 9, endOffset: 20 },
      { text: '{"c":3}', startOffset: 21, endOffset: 29 },
    ]);
    assert.equal(result.nextOffset, 29);
    assert.equal(result.malformed, 0);
    assert.equal(result.done, true);
  });
});

Deno.test("a partial last line is not consumed until its newline arrives", async () => {
  await withFile('{"a":1}\n{"b":', async (path) => {
    const first = await readJsonlLines(path, 0);
    assert.deepEqual(first.lines.map((l) => l.text), ['{"a":1}']);
    assert.equal(first.nextOffset, 8);
    // The writer finishes the line.
    const file = await Deno.open(path, { append: true });
    await file.write(new TextEncoder().encode("2}\n"));
    file.close();
    const second = await readJsonlLines(path, first.nextOffset);
    assert.deepEqual(second.lines, [{ text: '{"b":2}', startOffset: 8, endOffset: 16 }]);
    assert.equal(second.nextOffset, 16);
    const third = await readJsonlLines(path, second.nextOffset);
    assert.deepEqual(third.lines, []);
    assert.equal(third.nextOffset, 16);
  });
});

Deno.test("lines spanning blocks are reassembled, and a multi-byte character too", async () => {
  const long = JSON.stringify({ text: "ü".repeat(100) + "x".repeat(50) });
  await withFile(`${long}\n{"z":1}\n`, async (path) => {
    const result = await readJsonlLines(path, 0, { blockSize: 16 });
    assert.deepEqual(result.lines.map((l) => l.text), [long, '{"z":1}']);
    assert.equal(result.lines[1].startOffset, new TextEncoder().encode(long).length + 1);
  });
});

Deno.test("over-long lines are skipped and counted", async () => {
  const big = `{"x":"${"y".repeat(500)}"}`;
  await withFile(`{"a":1}\n${big}\n{"b":2}\n${big}`, async (path) => {
    const result = await readJsonlLines(path, 0, { blockSize: 64, maxLineBytes: 100 });
    assert.deepEqual(result.lines.map((l) => l.text), ['{"a":1}', '{"b":2}']);
    assert.equal(result.malformed, 1);
    // The last over-long line has no newline yet: not consumed, not counted.
    assert.equal(result.nextOffset, 8 + big.length + 1 + 8);
  });
});

Deno.test("maxBytes bounds one call; looping from nextOffset reads everything", async () => {
  const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i, pad: "p".repeat(40) }));
  await withFile(lines.join("\n") + "\n", async (path) => {
    let offset = 0;
    let calls = 0;
    const seen: string[] = [];
    for (;;) {
      const result = await readJsonlLines(path, offset, { maxBytes: 4096, blockSize: 1024 });
      calls++;
      assert.ok(result.lines.length <= 4096 / 40 + 1);
      seen.push(...result.lines.map((l) => l.text));
      offset = result.nextOffset;
      if (result.done) break;
    }
    assert.deepEqual(seen, lines);
    assert.ok(calls > 10);
  });
});

Deno.test("a byte-order mark is dropped; an offset past the end reads nothing", async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":1}\n')]);
  await withFile(bom, async (path) => {
    const result = await readJsonlLines(path, 0);
    assert.deepEqual(result.lines.map((l) => l.text), ['{"a":1}']);
    const past = await readJsonlLines(path, 1000);
    assert.deepEqual(past, { lines: [], nextOffset: 1000, malformed: 0, done: true });
  });
});

Deno.test("a large file is read in batches no bigger than maxBytes", async () => {
  const line = JSON.stringify({ type: "assistant", text: "z".repeat(1000) }) + "\n";
  const chunk = new TextEncoder().encode(line.repeat(1024)); // ~1 MiB
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    const file = await Deno.open(path, { write: true });
    for (let i = 0; i < 24; i++) await file.write(chunk); // ~24 MiB
    file.close();
    let offset = 0;
    let count = 0;
    let maxBatchBytes = 0;
    for (;;) {
      const result = await readJsonlLines(path, offset, { maxBytes: 2 * 1024 * 1024 });
      count += result.lines.length;
      const batch = result.lines.reduce((sum, l) => sum + l.text.length, 0);
      maxBatchBytes = Math.max(maxBatchBytes, batch);
      offset = result.nextOffset;
      if (result.done) break;
    }
    assert.equal(count, 24 * 1024);
    assert.ok(maxBatchBytes <= 2 * 1024 * 1024 + line.length);
  } finally {
    await Deno.remove(path);
  }
});

/** What reading a whole file line by line must give: the lines as a decoder call each sees them. */
function expectedLines(bytes: Uint8Array, maxLineBytes: number) {
  const decoder = new TextDecoder();
  const lines: Array<{ text: string; startOffset: number; endOffset: number }> = [];
  let malformed = 0;
  let start = 0;
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
    if (nl - start > maxLineBytes) {
      malformed++;
    } else {
      const end = nl > start && bytes[nl - 1] === 13 ? nl - 1 : nl;
      const text = decoder.decode(bytes.subarray(start, end));
      if (text.trim() !== "") lines.push({ text, startOffset: start, endOffset: nl + 1 });
    }
    start = nl + 1;
  }
  return { lines, malformed, nextOffset: start };
}

Deno.test("an open file read chunk by chunk gives the lines one decoder call per line gives", async () => {
  // Deterministic pseudo-random lines: multi-byte characters, CRLF, blank lines, byte-order
  // marks, broken UTF-8 and now and then a line longer than the limit.
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = ["a", "é", "→", "😀", '"', "\\n", " ", "\uFEFF"];
  const parts: Uint8Array[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < 400; i++) {
    const length = random() < 0.05 ? 300 + Math.floor(random() * 400) : Math.floor(random() * 60);
    let text = "";
    for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)];
    parts.push(encoder.encode(text));
    if (random() < 0.05) parts.push(new Uint8Array([0xc3])); // A broken character.
    parts.push(encoder.encode(random() < 0.2 ? "\r\n" : random() < 0.1 ? "\n\n" : "\n"));
  }
  parts.push(encoder.encode('{"unfinished":')); // No newline yet: never returned.
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  const maxLineBytes = 1000;
  const expected = expectedLines(bytes, maxLineBytes);
  await withFile(bytes, (path) => {
    for (
      const [blockSize, maxBytes] of [[16, 100], [64, 7], [333, 4096], [4096, 1 << 20], [
        1 << 16,
        1,
      ]]
    ) {
      using file = JsonlFile.open(path);
      const seen: Array<{ text: string; startOffset: number; endOffset: number }> = [];
      let malformed = 0;
      let offset = 0;
      for (let calls = 0;; calls++) {
        // Now and then a call from an offset the file did not stop at (it reads from there).
        if (calls % 7 === 3 && seen.length > 0) {
          const again = file.readLines(seen[0].startOffset, { blockSize, maxBytes: 1 });
          assert.deepEqual(again.lines[0], seen[0]);
        }
        const result = file.readLines(offset, { blockSize, maxBytes, maxLineBytes });
        seen.push(...result.lines);
        malformed += result.malformed;
        offset = result.nextOffset;
        if (result.done) break;
      }
      assert.deepEqual(seen, expected.lines, `block ${blockSize}, maxBytes ${maxBytes}`);
      assert.equal(malformed, expected.malformed);
      assert.equal(offset, expected.nextOffset);

      // The same lines as texts, a block at a time.
      using again = JsonlFile.open(path);
      const texts: string[] = [];
      let textsMalformed = 0;
      for (offset = 0;;) {
        const result = again.readTexts(offset, { blockSize, maxBytes, maxLineBytes });
        texts.push(...result.texts);
        textsMalformed += result.malformed;
        offset = result.nextOffset;
        if (result.done) break;
      }
      assert.deepEqual(texts, expected.lines.map((l) => l.text), `texts, block ${blockSize}`);
      assert.equal(textsMalformed, expected.malformed);
      assert.equal(offset, expected.nextOffset);
    }
  });
});

Deno.test("an open file reads what was appended after it reached the end", async () => {
  await withFile('{"a":1}\n{"b":', async (path) => {
    using file = JsonlFile.open(path);
    const first = file.readLines(0);
    assert.deepEqual(first.lines.map((l) => l.text), ['{"a":1}']);
    const writer = await Deno.open(path, { append: true });
    await writer.write(new TextEncoder().encode('2}\n{"c":3}\n'));
    writer.close();
    const second = file.readLines(first.nextOffset);
    assert.deepEqual(second.lines, [
      { text: '{"b":2}', startOffset: 8, endOffset: 16 },
      { text: '{"c":3}', startOffset: 16, endOffset: 24 },
    ]);
    assert.equal(second.done, true);
  });
});
