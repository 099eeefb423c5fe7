import assert from "node:assert/strict";
import { KnownWords } from "../../../src/store/docs/search_index_apply.ts";

/** The vocabulary rule spelled out plainly: the reference the fast scan must agree with. */
function referenceWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/[^\s\u00a0\u2000-\u206f\u3000!-\/:-@\[-\^`{-\x7f]+/g)) {
    const raw = match[0];
    if (raw.length < 3 || raw.length > 32 || /[0-9]/.test(raw)) continue;
    words.push(raw.toLowerCase());
  }
  return words;
}

function xorshift(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

Deno.test("KnownWords finds exactly the new vocabulary words, in order, over generated text", () => {
  const random = xorshift(7);
  const alphabet = [
    ..."abcdefghijklmnopqrstuvwxyz",
    ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    ..."0123456789_",
    ..."éÉßİΣσДдЖ東京",
    " ",
    " ",
    " ",
    "\n",
    ".",
    "(",
    "-",
    "\u00a0",
    "\u2014",
  ];
  for (let round = 0; round < 200; round++) {
    const known = new KnownWords(round % 2 === 0 ? [] : ["alpha", "beta", "δέλτα"]);
    const seen = new Set(round % 2 === 0 ? [] : ["alpha", "beta", "δέλτα"]);
    const fresh: string[] = [];
    const expected: string[] = [];
    for (let text = 0; text < 5; text++) {
      let body = "";
      const length = Math.floor(random() * 400);
      for (let i = 0; i < length; i++) {
        // Short words repeat often, so most lookups are hits, as in real text.
        body += random() < 0.3
          ? ["Alpha ", "BETA ", "gamma ", "Gamma_ray ", "δέλτα "][Math.floor(random() * 5)]
          : alphabet[Math.floor(random() * alphabet.length)];
      }
      known.collect(body, fresh);
      for (const word of referenceWords(body)) {
        if (!seen.has(word)) {
          seen.add(word);
          expected.push(word);
        }
      }
    }
    assert.deepEqual(fresh, expected, `round ${round}`);
    assert.equal(known.size, seen.size);
    for (const word of seen) assert.ok(known.has(word), word);
  }
});

Deno.test("KnownWords grows past its first table and still finds every word", () => {
  const known = new KnownWords();
  const words = Array.from(
    { length: 20_000 },
    (_, i) => `w${i.toString(36)}`.replace(/\d/g, (d) => "abcdefghij"[Number(d)]),
  );
  const fresh: string[] = [];
  known.collect(words.join(" "), fresh);
  assert.equal(fresh.length, new Set(words.filter((w) => w.length >= 3)).size);
  const again: string[] = [];
  known.collect(words.join(" ").toUpperCase(), again);
  assert.deepEqual(again, [], "capitals are the same words");
  assert.equal(known.add("wab"), false);
  assert.equal(known.add("zzzzzz"), true);
});
