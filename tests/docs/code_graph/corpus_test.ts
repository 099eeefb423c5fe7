import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { digestFiles, type DigestInput } from "../../../scripts/lib/code_graph_digest.ts";

// Recorded from the extractor as it stood in one 1,415-line file, before it was split into one
// module per language: the split must give every file the same rows, byte for byte. A change
// meant to alter the graph updates these from this test's failure message.
const EXPECTED: Record<string, string> = {
  "corpus/Orders.java": "2f824e337eee3ea7a69f4f1edf8cedce079d43741bd460481d978d335a8711df",
  "corpus/billing.py": "4bde3e0009a541196be1cca92c81799999cd7f25dd8107bb670b13543800ae22",
  "corpus/buffer.c": "e663685a45f5c190987f74068c02796ce496bef22d8ccf43ac0694c957bd37c3",
  "corpus/engine.rs": "d9e5abb1b8a2aec93b2d10b2ff4526c11491a0bded8ad34ec9b602c093e13f1a",
  "corpus/guide.md": "061166c57234856d008c0a96b96e0fc1e0a93b386d1badc630b21cb2ef329e5c",
  "corpus/inventory.ts": "712ad50ddcefa9c79dfb4918a8886e1b090809d84c809ffd71de984931d9dc05",
  "corpus/legacy.js": "86081168b2500b4943ee0bba05aabccb258cb0caedcfa8a6fd2999200de94d0f",
  "corpus/server.go": "bd455341409d59907682fc323e41c66f93d0be7fd094d32844ea00ab346bb1b1",
  "corpus/shapes.hpp": "11720a61bb4b5973b1a2d54967af81aa0baba6aa454f7030c041f9eaac2d1885",
};
const EXPECTED_ALL = "67c3ffbceba0c773c0580aa8faa1d18621e8c08d9e6a360b0ffec7d0fa2e02a0";

function fixtureCorpus(): DigestInput[] {
  const folder = fileURLToPath(new URL("../../fixtures/code_graph/", import.meta.url));
  return [...Deno.readDirSync(folder)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".txt"))
    .map((entry) => ({
      path: `corpus/${entry.name.slice(0, -".txt".length)}`,
      text: Deno.readTextFileSync(`${folder}/${entry.name}`),
    }));
}

Deno.test("the graph rows of the fixture corpus match the recorded digests, file by file", () => {
  const result = digestFiles(fixtureCorpus(), extractCodeGraph);
  const actual = Object.fromEntries(result.perFile);
  assert.deepEqual(actual, EXPECTED, "a file's graph rows changed (its digest differs)");
  assert.equal(result.digest, EXPECTED_ALL);
  // Every language with rules is in the corpus, and each gave more than the file node.
  assert.deepEqual(Object.keys(result.files).sort(), [
    "c",
    "cpp",
    "go",
    "java",
    "javascript",
    "markdown",
    "python",
    "rust",
    "typescript",
  ]);
  assert.equal(result.nodes, 194);
  assert.equal(result.edges, 224);
});

Deno.test("the digest tells apart graphs that differ in one line number or in order", () => {
  const text = "export function a() {\n  return b();\n}\nexport function b() {}\n";
  const base = digestFiles([{ path: "x.ts", text }], extractCodeGraph).digest;
  const shifted = digestFiles([{ path: "x.ts", text }], (path, source) => {
    const graph = extractCodeGraph(path, source);
    return {
      nodes: graph.nodes,
      edges: graph.edges.map((e, i) => i === 0 ? { ...e, line: 9 } : e),
    };
  }).digest;
  const reordered = digestFiles([{ path: "x.ts", text }], (path, source) => {
    const graph = extractCodeGraph(path, source);
    return { nodes: graph.nodes, edges: [...graph.edges].reverse() };
  }).digest;
  assert.notEqual(shifted, base);
  assert.notEqual(reordered, base);
});
