import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { migrate, openDatabase } from "../../../src/store/database.ts";
import { MIGRATIONS } from "../../../src/store/migrations.ts";
import { edgeCount, edgesOf, insertGraph, nodesByKey } from "../../../src/store/docs/graph.ts";

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

Deno.test("DEFINES edges are read from the nodes' parents, in their place among stored edges", () => {
  const db = openDatabase(":memory:");
  try {
    db.exec("PRAGMA foreign_keys = OFF");
    insertGraph(db, 1, [
      { node_key: "file:/a.ts", type: "file", name: "/a.ts", line: 1, parent: null },
      {
        node_key: "symbol:/a.ts#main",
        type: "function",
        name: "main",
        line: 9,
        parent: "file:/a.ts",
      },
      { node_key: "symbol:/a.ts#A", type: "class", name: "A", line: 3, parent: "file:/a.ts" },
      {
        node_key: "symbol:/a.ts#A.m",
        type: "method",
        name: "A.m",
        line: 4,
        parent: "symbol:/a.ts#A",
      },
    ], [
      { src: "file:/a.ts", dst: "module:./b.ts", relation: "IMPORTS", line: 1 },
      { src: "file:/a.ts", dst: "ref:helper", relation: "CALLS", line: 2 },
    ]);
    const all = edgesOf(db, "file:/a.ts", false, undefined, 10);
    assert.deepEqual(all.map((edge) => `${edge.relation} ${edge.dst} ${edge.line}`), [
      "CALLS ref:helper 2",
      "DEFINES symbol:/a.ts#A 3",
      "DEFINES symbol:/a.ts#main 9",
      "IMPORTS module:./b.ts 1",
    ]);
    assert.deepEqual(
      edgesOf(db, "file:/a.ts", false, undefined, 2).map((edge) => edge.relation),
      ["CALLS", "DEFINES"],
      "the limit counts both kinds",
    );
    assert.deepEqual(
      edgesOf(db, "symbol:/a.ts#A", false, "DEFINES", 10).map((edge) => edge.dst),
      ["symbol:/a.ts#A.m"],
    );
    assert.deepEqual(
      edgesOf(db, "symbol:/a.ts#A.m", true, "DEFINES", 10).map((edge) => edge.src),
      ["symbol:/a.ts#A"],
    );
    assert.deepEqual(edgesOf(db, "file:/a.ts", false, "IMPORTS", 10).length, 1);
    assert.equal(edgeCount(db), 5);
  } finally {
    db.close();
  }
});

Deno.test("migration 13 folds a store's DEFINES edges into their nodes, and reads give them back", () => {
  const dir = Deno.makeTempDirSync({ prefix: "vantage-graph-migration-" });
  const path = `${dir}/vantage.db`;
  try {
    // A store as version 12 left it: DEFINES edges as rows.
    const old = new DatabaseSync(path);
    migrate(old, MIGRATIONS.filter((step) => step.version <= 12));
    old.exec("PRAGMA foreign_keys = OFF");
    const node = old.prepare(
      "INSERT INTO docs_graph_nodes (document_id, node_key, type, name, line) VALUES (1, ?, ?, ?, ?)",
    );
    node.run("file:/a.ts", "file", "/a.ts", 1);
    node.run("symbol:/a.ts#A", "class", "A", 3);
    node.run("symbol:/a.ts#A.m", "method", "A.m", 4);
    const edge = old.prepare(
      "INSERT INTO docs_graph_edges (document_id, src, dst, relation, line) VALUES (1, ?, ?, ?, ?)",
    );
    edge.run("file:/a.ts", "symbol:/a.ts#A", "DEFINES", 3);
    edge.run("symbol:/a.ts#A", "symbol:/a.ts#A.m", "DEFINES", 4);
    edge.run("file:/a.ts", "module:./b.ts", "IMPORTS", 1);
    // A DEFINES edge whose target was never stored as a node stays a row.
    edge.run("file:/a.ts", "symbol:/elsewhere.ts#x", "DEFINES", 7);
    old.close();

    const db = openDatabase(path);
    try {
      const rows = db.prepare("SELECT relation, dst FROM docs_graph_edges ORDER BY rowid").all();
      assert.deepEqual(rows.map((row) => `${row.relation} ${row.dst}`), [
        "IMPORTS module:./b.ts",
        "DEFINES symbol:/elsewhere.ts#x",
      ]);
      assert.deepEqual(
        edgesOf(db, "file:/a.ts", false, undefined, 10).map((e) => `${e.relation} ${e.dst}`),
        ["DEFINES symbol:/elsewhere.ts#x", "DEFINES symbol:/a.ts#A", "IMPORTS module:./b.ts"],
      );
      assert.deepEqual(
        edgesOf(db, "symbol:/a.ts#A.m", true, "DEFINES", 10).map((e) => e.src),
        ["symbol:/a.ts#A"],
      );
      assert.equal(edgeCount(db), 4);
    } finally {
      db.close();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
