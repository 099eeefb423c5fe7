import assert from "node:assert/strict";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { assertConsistent, assertEdge, edges } from "./graph_asserts.ts";

Deno.test("Markdown: links, images, references, autolinks and wiki links", () => {
  const source = `# Guide

See [the design](../DESIGN.md#storage) and [API](api/ops%20v2.md "ops").
![diagram](img/arch.png) [self](#top) [root](/README.md)
Visit <https://example.com> or [site](https://deno.land).
Related: [[Memory Model]] and [[Search#fusion|fusion]].

\`\`\`md
[not a link](nope.md)
\`\`\`
Inline \`[also not](nope2.md)\` code.

[ref]: ./reference.md
`;
  const graph = extractCodeGraph("docs/guide.md", source);
  assertConsistent(graph);
  const file = "file:docs/guide.md";
  for (
    const target of [
      "file:DESIGN.md",
      "file:docs/api/ops v2.md",
      "file:docs/img/arch.png",
      "file:README.md",
      "url:https://example.com",
      "url:https://deno.land",
      "wiki:Memory Model",
      "wiki:Search",
      "file:docs/reference.md",
    ]
  ) {
    assertEdge(graph, "LINKS_TO", file, target);
  }
  assert.equal(edges(graph, "LINKS_TO").length, 9);
  assert.equal(graph.edges.find((e) => e.to === "file:docs/reference.md")?.line, 13);
  assert.equal(graph.nodes.find((n) => n.key === "wiki:Memory Model")?.type, "wiki");
});
