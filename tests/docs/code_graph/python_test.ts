import assert from "node:assert/strict";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { assertConsistent, assertEdge, assertNoEdge, edges } from "./graph_asserts.ts";

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
