/**
 * `capStrings`: a value with nothing too long comes back as the very same value (nothing
 * copied); a long string or key anywhere inside, however deep, is cut in a copy that leaves
 * the input as it was.
 */
import assert from "node:assert/strict";
import type { JsonValue } from "../../src/model/agent_records.ts";
import { capStrings, cutMiddle } from "../../src/agent/values.ts";

Deno.test("capStrings returns a value with nothing to cut as it is", () => {
  const value: JsonValue = {
    "gen_ai.operation.name": "chat",
    tokens: 12,
    flag: true,
    none: null,
    list: ["abcd", 1, { inner: "wxyz" }],
  };
  assert.equal(capStrings(value, 4 + 20, 2), value);
  const list: JsonValue = ["abcd", ["efgh"]];
  assert.equal(capStrings(list, 4, 2), list);
  assert.equal(capStrings("abcd", 4, 2), "abcd");
  assert.equal(capStrings(7, 1, 0), 7);
});

Deno.test("capStrings cuts long strings and keys at any depth, in a copy", () => {
  const long = "x".repeat(30);
  const value: JsonValue = { a: "ok", b: [1, { c: long }], [long]: "v" };
  const before = structuredClone(value);
  const capped = capStrings(value, 10, 3);
  assert.deepEqual(capped, {
    a: "ok",
    b: [1, { c: cutMiddle(long, 10, 3) }],
    [cutMiddle(long, 10, 3)]: "v",
  });
  assert.deepEqual(value, before);
  // Deeper than the quick check looks: still cut.
  let deep: JsonValue = long;
  for (let i = 0; i < 40; i++) deep = [deep];
  let cut = capStrings(deep, 10, 3);
  for (let i = 0; i < 40; i++) cut = (cut as JsonValue[])[0];
  assert.equal(cut, cutMiddle(long, 10, 3));
});
