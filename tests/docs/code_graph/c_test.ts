import assert from "node:assert/strict";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { assertConsistent, assertEdge, assertNoEdge } from "./graph_asserts.ts";

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
