import assert from "node:assert/strict";
import {
  type CodeLanguage,
  extractCodeGraph,
  languageFromPath,
} from "../../../src/memory/code_graph.ts";
import { LANGUAGES } from "../../../src/memory/code_graph/languages.ts";
import { assertEdge } from "./graph_asserts.ts";

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

Deno.test("every registered extension reads as its language, in any case and path style", () => {
  const seen = new Set<string>();
  for (const [language, entry] of Object.entries(LANGUAGES)) {
    for (const extension of entry.extensions) {
      assert.ok(!seen.has(extension), `.${extension} is registered once`);
      seen.add(extension);
      assert.equal(languageFromPath(`dir/file.${extension}`), language);
      assert.equal(languageFromPath(`C:\\dir\\FILE.${extension.toUpperCase()}`), language);
    }
  }
  // A dot file has no extension, and names of Object's members are no languages.
  assert.equal(languageFromPath(".ts"), undefined);
  assert.equal(languageFromPath("x.constructor"), undefined);
  assert.equal(languageFromPath("x.__proto__"), undefined);
});

Deno.test("a language name the registry does not hold yields only the file node", () => {
  const graph = extractCodeGraph("a.kt", "fun main() { run() }", {
    language: "kotlin" as CodeLanguage,
  });
  assert.deepEqual(graph.edges, []);
  assert.deepEqual(graph.nodes.map((n) => n.key), ["file:a.kt"]);
});
