import assert from "node:assert/strict";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { assertConsistent, assertEdge, assertNoEdge } from "./graph_asserts.ts";

Deno.test("Rust: use trees, traits, impl blocks and calls", () => {
  const source = `use std::collections::{HashMap, HashSet as Set};
use crate::store::Store;
mod util;

pub trait Shape: Debug + Clone {
    fn area(&self) -> f64;
}

pub struct Circle<'a> { r: f64, name: &'a str }

impl<'a> Shape for Circle<'a> {
    fn area(&self) -> f64 {
        let c = '{';
        square(self.r)
    }
}

impl Circle<'_> {
    pub fn new(r: f64) -> Self { Circle { r, name: r#"raw "str" {"# } }
}

fn square(x: f64) -> f64 { x * x }

pub fn run() {
    let s = Store::open();
    let c = Circle::new(1.0);
    let m: Set<u8> = Set::new();
    println!("{}", c.area());
}
`;
  const graph = extractCodeGraph("src/lib.rs", source);
  assertConsistent(graph);
  const file = "file:src/lib.rs";
  const sym = (name: string) => `symbol:src/lib.rs#${name}`;
  for (
    const spec of [
      "std::collections::HashMap",
      "std::collections::HashSet",
      "crate::store::Store",
      "util",
    ]
  ) {
    assertEdge(graph, "IMPORTS", file, `module:${spec}`);
  }
  assertEdge(graph, "DEFINES", file, sym("Shape"));
  assertEdge(graph, "DEFINES", sym("Shape"), sym("Shape.area"));
  assertEdge(graph, "DEFINES", file, sym("Circle"));
  assertEdge(graph, "DEFINES", sym("Circle"), sym("Circle.area"));
  assertEdge(graph, "DEFINES", sym("Circle"), sym("Circle.new"));
  assertEdge(graph, "DEFINES", file, sym("square"));
  assertEdge(graph, "DEFINES", file, sym("run"));
  assert.equal(graph.nodes.find((n) => n.key === sym("Shape"))?.type, "trait");
  assertEdge(graph, "INHERITS", sym("Shape"), "ref:Debug");
  assertEdge(graph, "INHERITS", sym("Shape"), "ref:Clone");
  assertEdge(graph, "IMPLEMENTS", sym("Circle"), sym("Shape"));
  assertEdge(graph, "CALLS", sym("Circle.area"), sym("square"));
  assertEdge(graph, "CALLS", sym("run"), "ref:crate::store::Store.open");
  assertEdge(graph, "CALLS", sym("run"), sym("Circle.new"));
  assertEdge(graph, "CALLS", sym("run"), "ref:std::collections::HashSet.new");
  // Both the trait and the impl define `area`, so a call on a plain variable stays unresolved.
  assertNoEdge(graph, "CALLS", sym("Circle.area"));
  // The brace inside the char literal and raw string must not confuse scopes: run stays top-level.
  assert.equal(graph.nodes.find((n) => n.key === sym("run"))?.type, "function");
});
