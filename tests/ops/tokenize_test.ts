import assert from "node:assert/strict";
import { tokenize } from "../../src/ops/tokenize.ts";
import { Bm25Index } from "../../src/ops/bm25.ts";

Deno.test("tokenize splits snake_case, camelCase, acronyms and digits", () => {
  assert.deepEqual(tokenize("get_session_state"), ["get", "session", "state"]);
  assert.deepEqual(tokenize("getSessionState"), ["get", "session", "state"]);
  assert.deepEqual(tokenize("HTTPServer v2api"), ["http", "server", "v", "2", "api"]);
  assert.deepEqual(tokenize("docs.list_collections"), ["docs", "list", "collections"]);
  assert.deepEqual(tokenize("the state of a session"), ["state", "session"]);
});

Deno.test("BM25F ranks a name match above a description match", () => {
  const index = new Bm25Index([
    { key: "a", fields: { id: "agent.exec_query", text: "run a query against session data" } },
    { key: "b", fields: { id: "agent.get_session_state", text: "everything about one run" } },
    { key: "c", fields: { id: "docs.grep", text: "regular expressions over documents" } },
  ], { weights: { id: 3 } });
  const hits = index.search("sessionState");
  assert.equal(hits[0].key, "b");
  assert.ok(hits.every((hit) => hit.key !== "c"));
  assert.deepEqual(index.search(""), []);
  assert.deepEqual(index.search("zebra"), []);
  // A prefix of an indexed word still finds it.
  assert.equal(index.search("regul")[0].key, "c");
});
