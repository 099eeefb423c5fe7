/**
 * Assertions over code graphs shared by the per-language tests.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { CodeGraph, Relation } from "../../../src/docs/code_graph.ts";

/** The edges of one relation as `from -> to`. */
export function edges(graph: CodeGraph, relation: Relation): string[] {
  return graph.edges.filter((e) => e.relation === relation).map((e) => `${e.from} -> ${e.to}`);
}

/** Fails unless the graph has the edge. */
export function assertEdge(graph: CodeGraph, relation: Relation, from: string, to: string): void {
  const found = edges(graph, relation);
  assert.ok(
    found.includes(`${from} -> ${to}`),
    `missing ${relation} ${from} -> ${to}; have:\n${found.join("\n")}`,
  );
}

/** Fails when any edge of the relation goes to `to`. */
export function assertNoEdge(graph: CodeGraph, relation: Relation, to: string): void {
  const found = graph.edges.filter((e) => e.relation === relation && e.to === to);
  assert.deepEqual(found, [], `unexpected ${relation} to ${to}`);
}

/** Fails unless keys are unique, every edge joins two nodes and lines are 1-based. */
export function assertConsistent(graph: CodeGraph): void {
  const keys = new Set(graph.nodes.map((n) => n.key));
  assert.equal(keys.size, graph.nodes.length, "node keys are unique");
  for (const edge of graph.edges) {
    assert.ok(keys.has(edge.from), `edge source ${edge.from} is a node`);
    assert.ok(keys.has(edge.to), `edge target ${edge.to} is a node`);
    assert.ok(edge.line >= 1);
  }
  const ids = graph.edges.map((e) => `${e.from}|${e.to}|${e.relation}`);
  assert.equal(new Set(ids).size, ids.length, "edges are unique");
}
