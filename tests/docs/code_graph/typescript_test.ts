import assert from "node:assert/strict";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { assertConsistent, assertEdge, assertNoEdge, edges } from "./graph_asserts.ts";

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
