import assert from "node:assert/strict";
import { openDatabase } from "../../src/store/database.ts";
import { edgesOf, insertGraph, nodesByKey } from "../../src/store/docs_graph.ts";

Deno.test("insertGraph stores every node and edge of a large graph, in order, duplicates once", () => {
  const db = openDatabase(":memory:");
  try {
    // Graph rows name their document; foreign keys are not what this test is about.
    db.exec("PRAGMA foreign_keys = OFF");
    const nodes = Array.from({ length: 70 }, (_, i) => ({
      node_key: `symbol:/a.ts#f${i}`,
      type: "function",
      name: `f${i}`,
      line: i + 1,
    }));
    // A repeated key is kept once (the first), as before.
    nodes.push({ node_key: "symbol:/a.ts#f3", type: "function", name: "again", line: 99 });
    const edges = nodes.slice(0, 70).map((node, i) => ({
      src: "file:/a.ts",
      dst: node.node_key,
      relation: "DEFINES",
      line: i + 1,
    }));
    insertGraph(db, 1, nodes, edges);
    const count = db.prepare("SELECT count(*) AS n FROM docs_graph_nodes").get() as { n: number };
    assert.equal(count.n, 70);
    assert.deepEqual(nodesByKey(db, "symbol:/a.ts#f3").map((node) => node.name), ["f3"]);
    const stored = db.prepare("SELECT dst, line FROM docs_graph_edges ORDER BY rowid").all();
    assert.deepEqual(
      stored.map((row) => [row.dst, row.line]),
      edges.map((edge) => [edge.dst, edge.line]),
    );
    assert.equal(edgesOf(db, "file:/a.ts", false, "DEFINES", 1000).length, 70);
    insertGraph(db, 2, [], []);
  } finally {
    db.close();
  }
});
