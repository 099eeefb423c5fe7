import assert from "node:assert/strict";
import {
  type CodeLanguage,
  extractCodeGraph,
  languageFromPath,
} from "../../src/docs/code_graph.ts";
import { assertEdge } from "./code_graph/graph_asserts.ts";

Deno.test("languageFromPath", () => {
  assert.equal(languageFromPath("a/b.tsx"), "typescript");
  assert.equal(languageFromPath("x.mjs"), "javascript");
  assert.equal(languageFromPath("x.hpp"), "cpp");
  assert.equal(languageFromPath("x.h"), "c");
  assert.equal(languageFromPath("README.md"), "markdown");
  assert.equal(languageFromPath("x.txt"), undefined);
});

Deno.test("unknown languages yield only the file node", () => {
  assert.deepEqual(extractCodeGraph("notes.txt", "call(me)"), {
    nodes: [{ key: "file:notes.txt", type: "file", name: "notes.txt", line: 1 }],
    edges: [],
  });
  const forced = extractCodeGraph("script", "def go():\n    pass\n", { language: "python" });
  assertEdge(forced, "DEFINES", "file:script", "symbol:script#go");
});

Deno.test("a language name the registry does not hold yields only the file node", () => {
  const graph = extractCodeGraph("a.kt", "fun main() { run() }", {
    language: "kotlin" as CodeLanguage,
  });
  assert.deepEqual(graph.edges, []);
  assert.deepEqual(graph.nodes.map((n) => n.key), ["file:a.kt"]);
});
