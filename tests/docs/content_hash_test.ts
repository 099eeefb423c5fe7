import assert from "node:assert/strict";
import {
  ContentHasher,
  isContentHash,
  isHashPrefix,
  sha256Hex,
} from "../../src/docs/content_hash.ts";

const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

Deno.test("sha256Hex matches the FIPS 180 test vector", () => {
  assert.equal(sha256Hex("abc"), ABC);
  assert.equal(sha256Hex(new TextEncoder().encode("abc")), ABC);
  assert.equal(
    sha256Hex(new Uint8Array(0)),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
});

Deno.test("ContentHasher gives the same digest for any split", () => {
  const hasher = new ContentHasher();
  hasher.update("a").update(new Uint8Array([0x62])).update("c");
  assert.equal(hasher.byteLength, 3);
  assert.equal(hasher.digestHex(), ABC);
  assert.throws(() => hasher.update("x"), /after digestHex/);
  assert.throws(() => hasher.digestHex(), /twice/);
});

Deno.test("ContentHasher counts UTF-8 bytes of strings", () => {
  const hasher = new ContentHasher().update("é");
  assert.equal(hasher.byteLength, 2);
  assert.equal(hasher.digestHex(), sha256Hex("é"));
});

Deno.test("hash and prefix validation", () => {
  assert.ok(isContentHash(ABC));
  assert.ok(!isContentHash(ABC.toUpperCase()));
  assert.ok(!isContentHash(ABC.slice(1)));
  assert.ok(isHashPrefix("BA7816BF"));
  assert.ok(isHashPrefix(ABC));
  assert.ok(!isHashPrefix("ba7816b"));
  assert.ok(!isHashPrefix("zz7816bf"));
  assert.ok(!isHashPrefix(ABC + "0"));
});
