import assert from "node:assert/strict";
import {
  type CodeGraph,
  extractCodeGraph,
  languageFromPath,
  type Relation,
} from "../../src/memory/code_graph.ts";

function edges(graph: CodeGraph, relation: Relation): string[] {
  return graph.edges.filter((e) => e.relation === relation).map((e) => `${e.from} -> ${e.to}`);
}

function assertEdge(graph: CodeGraph, relation: Relation, from: string, to: string): void {
  const found = edges(graph, relation);
  assert.ok(
    found.includes(`${from} -> ${to}`),
    `missing ${relation} ${from} -> ${to}; have:\n${found.join("\n")}`,
  );
}

function assertNoEdge(graph: CodeGraph, relation: Relation, to: string): void {
  const found = graph.edges.filter((e) => e.relation === relation && e.to === to);
  assert.deepEqual(found, [], `unexpected ${relation} to ${to}`);
}

function assertConsistent(graph: CodeGraph): void {
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

Deno.test("languageFromPath", () => {
  assert.equal(languageFromPath("a/b.tsx"), "typescript");
  assert.equal(languageFromPath("x.mjs"), "javascript");
  assert.equal(languageFromPath("x.hpp"), "cpp");
  assert.equal(languageFromPath("x.h"), "c");
  assert.equal(languageFromPath("README.md"), "markdown");
  assert.equal(languageFromPath("x.txt"), undefined);
});

Deno.test("TypeScript: imports, definitions, heritage and calls", () => {
  const source = `import { parse, format as fmt } from "./parser.ts";
import * as path from "node:path";
import type {
  Options,
  Other,
} from "./types.ts";
export { helper } from "./helper.ts";
const fs = require("node:fs");
// import { fake } from "./commented.ts";
const s = "import x from 'nope'";

export interface Shape extends Base, Generic<A, B> {
  area(): number;
}

export class Circle extends Figure implements Drawable, Serializable<string> {
  #r = 1;
  constructor(r: number) {
    super();
    this.#r = r;
  }
  area(): number {
    return square(this.#r) * Math.PI;
  }
  draw = (ctx: unknown) => {
    this.area();
  };
}

function square(x: number): number {
  if (x > 0) { return x * x; }
  return fmt(parse(String(x)));
}

export const main = async (args: string[]) => {
  const c = new Circle(2);
  path.join("a", "b");
  fs.readFileSync("x");
  // square(1) in a comment is not a call
};
`;
  const graph = extractCodeGraph("src/app.ts", source);
  assertConsistent(graph);
  const file = "file:src/app.ts";
  const sym = (name: string) => `symbol:src/app.ts#${name}`;
  for (const spec of ["./parser.ts", "node:path", "./types.ts", "./helper.ts", "node:fs"]) {
    assertEdge(graph, "IMPORTS", file, `module:${spec}`);
  }
  assertNoEdge(graph, "IMPORTS", "module:./commented.ts");
  assertNoEdge(graph, "IMPORTS", "module:nope");
  assert.equal(graph.edges.find((e) => e.to === "module:./types.ts")?.line, 3);

  assertEdge(graph, "DEFINES", file, sym("Shape"));
  assertEdge(graph, "DEFINES", sym("Shape"), sym("Shape.area"));
  assertEdge(graph, "DEFINES", file, sym("Circle"));
  assertEdge(graph, "DEFINES", sym("Circle"), sym("Circle.constructor"));
  assertEdge(graph, "DEFINES", sym("Circle"), sym("Circle.area"));
  assertEdge(graph, "DEFINES", sym("Circle"), sym("Circle.draw"));
  assertEdge(graph, "DEFINES", file, sym("square"));
  assertEdge(graph, "DEFINES", file, sym("main"));
  assert.equal(graph.nodes.find((n) => n.key === sym("Circle"))?.type, "class");
  assert.equal(graph.nodes.find((n) => n.key === sym("Circle.area"))?.line, 22);

  assertEdge(graph, "INHERITS", sym("Shape"), "ref:Base");
  assertEdge(graph, "INHERITS", sym("Shape"), "ref:Generic");
  assertEdge(graph, "INHERITS", sym("Circle"), "ref:Figure");
  assertEdge(graph, "IMPLEMENTS", sym("Circle"), "ref:Drawable");
  assertEdge(graph, "IMPLEMENTS", sym("Circle"), "ref:Serializable");

  assertEdge(graph, "CALLS", sym("Circle.area"), sym("square"));
  assertEdge(graph, "CALLS", sym("Circle.draw"), sym("Circle.area"));
  assertEdge(graph, "CALLS", sym("square"), "ref:format");
  assertEdge(graph, "CALLS", sym("square"), "ref:parse");
  assertEdge(graph, "CALLS", sym("main"), sym("Circle"));
  assertEdge(graph, "CALLS", sym("main"), "ref:node:path.join");
  assertEdge(graph, "CALLS", sym("main"), "ref:node:fs.readFileSync");
  assert.ok(!edges(graph, "CALLS").some((e) => /#(?:if|String|super)$|ref:(?:if|String)/.test(e)));
  assert.ok(
    !edges(graph, "CALLS").some((e) => e.startsWith(sym("main")) && e.endsWith(sym("square"))),
  );
});

Deno.test("JavaScript: CommonJS destructuring and dynamic import", () => {
  const graph = extractCodeGraph(
    "lib/index.js",
    `const { readFile, writeFile: write } = require("fs");\nasync function run() {\n  const m = await import("./mod.js");\n  readFile("a");\n  write("b");\n}\n`,
  );
  assertConsistent(graph);
  assertEdge(graph, "IMPORTS", "file:lib/index.js", "module:fs");
  assertEdge(graph, "IMPORTS", "file:lib/index.js", "module:./mod.js");
  assertEdge(graph, "CALLS", "symbol:lib/index.js#run", "ref:readFile");
  assertEdge(graph, "CALLS", "symbol:lib/index.js#run", "ref:writeFile");
});

Deno.test("Python: imports, classes, methods, bases and calls", () => {
  const source = `import os
import numpy as np
from .base import Model, helper as h
from typing import (
    List,
    Dict,
)

class User(Model, mixins.Audited, metaclass=Meta):
    """A user. def fake(): pass"""
    def __init__(self, name):
        self.name = name
        self.validate()

    def validate(self):
        if not self.name:
            raise ValueError("x")
        return h(np.array([1]))

def load(path):
    # save(path)
    u = User(os.getcwd())
    return u
`;
  const graph = extractCodeGraph("pkg/models.py", source);
  assertConsistent(graph);
  const file = "file:pkg/models.py";
  const sym = (name: string) => `symbol:pkg/models.py#${name}`;
  for (const spec of ["os", "numpy", ".base", "typing"]) {
    assertEdge(graph, "IMPORTS", file, `module:${spec}`);
  }
  assertEdge(graph, "DEFINES", file, sym("User"));
  assertEdge(graph, "DEFINES", sym("User"), sym("User.__init__"));
  assertEdge(graph, "DEFINES", sym("User"), sym("User.validate"));
  assertEdge(graph, "DEFINES", file, sym("load"));
  assert.equal(graph.nodes.find((n) => n.key === sym("User.validate"))?.type, "method");
  assert.ok(!graph.nodes.some((n) => n.key === sym("fake")), "docstrings are not code");
  assertEdge(graph, "INHERITS", sym("User"), "ref:Model");
  assertEdge(graph, "INHERITS", sym("User"), "ref:mixins.Audited");
  assertNoEdge(graph, "INHERITS", "ref:Meta");
  assertEdge(graph, "CALLS", sym("User.__init__"), sym("User.validate"));
  assertEdge(graph, "CALLS", sym("User.validate"), "ref:helper");
  assertEdge(graph, "CALLS", sym("User.validate"), "ref:numpy.array");
  assertEdge(graph, "CALLS", sym("load"), sym("User"));
  assertEdge(graph, "CALLS", sym("load"), "ref:os.getcwd");
  assertNoEdge(graph, "CALLS", "ref:ValueError");
  assert.equal(edges(graph, "CALLS").filter((e) => e.startsWith(file)).length, 0);
});

Deno.test("Go: imports, structs, interfaces, methods, embedding and calls", () => {
  const source = `package main

import (
	"fmt"
	str "strings"
	"github.com/acme/tool/v2"
)

import "os"

type Reader interface {
	io.Reader
	Read(p []byte) (int, error)
}

type Server struct {
	*Base
	name string \`json:"name"\`
}

type ID string

func (s *Server) Start() error {
	fmt.Println(str.ToUpper(s.name))
	return s.helper()
}

func (s *Server) helper() error { return nil }

func main() {
	s := &Server{}
	s.Start()
	tool.Run()
	os.Exit(0)
}
`;
  const graph = extractCodeGraph("cmd/main.go", source);
  assertConsistent(graph);
  const file = "file:cmd/main.go";
  const sym = (name: string) => `symbol:cmd/main.go#${name}`;
  for (const spec of ["fmt", "strings", "github.com/acme/tool/v2", "os"]) {
    assertEdge(graph, "IMPORTS", file, `module:${spec}`);
  }
  assertEdge(graph, "DEFINES", file, sym("Reader"));
  assertEdge(graph, "DEFINES", sym("Reader"), sym("Reader.Read"));
  assertEdge(graph, "DEFINES", file, sym("Server"));
  assertEdge(graph, "DEFINES", file, sym("ID"));
  assertEdge(graph, "DEFINES", sym("Server"), sym("Server.Start"));
  assertEdge(graph, "DEFINES", sym("Server"), sym("Server.helper"));
  assertEdge(graph, "DEFINES", file, sym("main"));
  assert.equal(graph.nodes.find((n) => n.key === sym("Server"))?.type, "struct");
  assert.equal(graph.nodes.find((n) => n.key === sym("Reader"))?.type, "interface");
  assertEdge(graph, "INHERITS", sym("Reader"), "ref:io.Reader");
  assertEdge(graph, "INHERITS", sym("Server"), "ref:Base");
  assertEdge(graph, "CALLS", sym("Server.Start"), "ref:fmt.Println");
  assertEdge(graph, "CALLS", sym("Server.Start"), "ref:strings.ToUpper");
  assertEdge(graph, "CALLS", sym("Server.Start"), sym("Server.helper"));
  assertEdge(graph, "CALLS", sym("main"), sym("Server.Start"));
  assertEdge(graph, "CALLS", sym("main"), "ref:github.com/acme/tool/v2.Run");
  assertEdge(graph, "CALLS", sym("main"), "ref:os.Exit");
});

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

Deno.test("C and C++: includes, classes with bases, definitions not prototypes", () => {
  const source = `#include <vector>
#include "shape.h"
// #include "commented.h"

class Shape {
public:
  virtual double area() const = 0;
};

class Circle : public Shape, private Named {
public:
  double area() const override { return square(r); }
private:
  double r;
};

struct Point;
typedef struct node { int v; } node_t;

static double square(double x);

static double square(double x)
{
  return x * x;
}

double Circle::perimeter() const {
  return 2 * area();
}

int main(int argc, char **argv) {
  Circle c;
  if (argc > 1) { printf("%d", argc); }
  return (int) square(2.0);
}
`;
  const graph = extractCodeGraph("src/shape.cpp", source);
  assertConsistent(graph);
  const file = "file:src/shape.cpp";
  const sym = (name: string) => `symbol:src/shape.cpp#${name}`;
  assertEdge(graph, "INCLUDES", file, "module:vector");
  assertEdge(graph, "INCLUDES", file, "module:shape.h");
  assertNoEdge(graph, "INCLUDES", "module:commented.h");
  assertEdge(graph, "DEFINES", file, sym("Shape"));
  assertEdge(graph, "DEFINES", sym("Shape"), sym("Shape.area"));
  assertEdge(graph, "DEFINES", file, sym("Circle"));
  assertEdge(graph, "DEFINES", sym("Circle"), sym("Circle.area"));
  assertEdge(graph, "DEFINES", sym("Circle"), sym("Circle.perimeter"));
  assertEdge(graph, "DEFINES", file, sym("node"));
  assertEdge(graph, "DEFINES", file, sym("main"));
  assert.equal(
    graph.nodes.find((n) => n.key === sym("square"))?.line,
    22,
    "the definition, not the prototype",
  );
  assert.ok(
    !graph.nodes.some((n) => n.key === sym("Point")),
    "a forward declaration defines nothing",
  );
  assertEdge(graph, "INHERITS", sym("Circle"), sym("Shape"));
  assertEdge(graph, "INHERITS", sym("Circle"), "ref:Named");
  assertEdge(graph, "CALLS", sym("Circle.area"), sym("square"));
  assertEdge(graph, "CALLS", sym("Circle.perimeter"), sym("Circle.area"));
  assertEdge(graph, "CALLS", sym("main"), sym("square"));
  assertNoEdge(graph, "CALLS", "ref:printf");
  assert.ok(!graph.nodes.some((n) => n.name === "if" || n.name === "printf"));
});

Deno.test("C: plain functions", () => {
  const graph = extractCodeGraph(
    "util.c",
    `#include <stdio.h>\n\nstatic int twice(int x) { return x * 2; }\n\nint\nrun(void)\n{\n  int y = twice(3);\n  return y;\n}\n`,
  );
  assertConsistent(graph);
  assertEdge(graph, "DEFINES", "file:util.c", "symbol:util.c#twice");
  assertEdge(graph, "DEFINES", "file:util.c", "symbol:util.c#run");
  assertEdge(graph, "CALLS", "symbol:util.c#run", "symbol:util.c#twice");
  assert.ok(!graph.nodes.some((n) => n.key === "symbol:util.c#y"));
});

Deno.test("Java: imports, extends/implements, methods and calls", () => {
  const source = `package app;

import java.util.List;
import java.util.Map;
import static org.junit.Assert.*;

public class Main<T extends Comparable<T>> extends Base implements Runnable, Comparable<Main> {
    private final Map<String, Integer> counts = new HashMap<>();

    public Main(int x) {
        super(x);
    }

    @Override
    public void run() {
        List<String> items = List.of("a");
        helper(items);
    }

    private static Map<String, Integer> helper(List<String> items) {
        return null;
    }
}

interface Shape extends Comparable<Shape>, Named {
    double area();
}
`;
  const graph = extractCodeGraph("src/app/Main.java", source);
  assertConsistent(graph);
  const file = "file:src/app/Main.java";
  const sym = (name: string) => `symbol:src/app/Main.java#${name}`;
  assertEdge(graph, "IMPORTS", file, "module:java.util.List");
  assertEdge(graph, "IMPORTS", file, "module:java.util.Map");
  assertEdge(graph, "IMPORTS", file, "module:org.junit.Assert.*");
  assertEdge(graph, "DEFINES", file, sym("Main"));
  assertEdge(graph, "DEFINES", sym("Main"), sym("Main.Main"));
  assertEdge(graph, "DEFINES", sym("Main"), sym("Main.run"));
  assertEdge(graph, "DEFINES", sym("Main"), sym("Main.helper"));
  assertEdge(graph, "DEFINES", sym("Shape"), sym("Shape.area"));
  assertEdge(graph, "INHERITS", sym("Main"), "ref:Base");
  assertEdge(graph, "IMPLEMENTS", sym("Main"), "ref:Runnable");
  assertEdge(graph, "IMPLEMENTS", sym("Main"), "ref:Comparable");
  assertEdge(graph, "INHERITS", sym("Shape"), "ref:Comparable");
  assertEdge(graph, "INHERITS", sym("Shape"), "ref:Named");
  assertEdge(graph, "CALLS", sym("Main.run"), sym("Main.helper"));
  assertEdge(graph, "CALLS", sym("Main.run"), "ref:java.util.List.of");
  assert.ok(!graph.nodes.some((n) => n.key === sym("Main.counts")));
});

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

Deno.test("unknown languages yield only the file node", () => {
  assert.deepEqual(extractCodeGraph("notes.txt", "call(me)"), {
    nodes: [{ key: "file:notes.txt", type: "file", name: "notes.txt", line: 1 }],
    edges: [],
  });
  const forced = extractCodeGraph("script", "def go():\n    pass\n", { language: "python" });
  assertEdge(forced, "DEFINES", "file:script", "symbol:script#go");
});
