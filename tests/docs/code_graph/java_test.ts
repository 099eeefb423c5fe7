import assert from "node:assert/strict";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { assertConsistent, assertEdge } from "./graph_asserts.ts";

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
