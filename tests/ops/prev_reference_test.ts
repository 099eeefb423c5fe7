import assert from "node:assert/strict";
import { resolveReference, resolveReferences } from "../../src/ops/prev_reference.ts";

const previous = {
  results: [{ hash: "abc", tags: ["x", "y"] }],
  total: 1,
  nested: { a: { b: 2 } },
};

Deno.test("$prev resolves whole results, fields, indexes and sub-fields", () => {
  assert.deepEqual(resolveReference("$prev", previous), previous);
  assert.equal(resolveReference("$prev.total", previous), 1);
  assert.deepEqual(resolveReference("$prev.results[0]", previous), previous.results[0]);
  assert.equal(resolveReference("$prev.results[0].hash", previous), "abc");
  assert.equal(resolveReference("$prev.results[0].tags[1]", previous), "y");
  assert.equal(resolveReference("$prev.nested.a.b", previous), 2);
});

Deno.test("$prev that does not resolve gives null; other strings stay", () => {
  assert.equal(resolveReference("$prev.missing", previous), null);
  assert.equal(resolveReference("$prev.results[5].hash", previous), null);
  assert.equal(resolveReference("$prev.total.deeper", previous), null);
  assert.equal(resolveReference("$prev.results.hash", previous), null);
  assert.equal(resolveReference("$prev.x", {}), null);
  assert.equal(resolveReference("$previous", previous), undefined);
  assert.equal(resolveReference("see $prev.total", previous), undefined);
});

Deno.test("references resolve at any depth of the params", () => {
  assert.deepEqual(
    resolveReferences(
      { hash: "$prev.results[0].hash", list: ["$prev.total", "keep"], n: 3 },
      previous,
    ),
    { hash: "abc", list: [1, "keep"], n: 3 },
  );
});
