import assert from "node:assert/strict";
import { parseBuildErrors } from "../../src/perception/build_errors.ts";
import { GCC, GO_BUILD } from "./build_errors/samples.ts";

Deno.test("parseBuildErrors parses mixed output and caps the result", () => {
  const mixed = `${GO_BUILD}\n${GCC}`;
  const tools = new Set(parseBuildErrors(mixed, { command: "make all" }).map((e) => e.tool));
  assert.deepEqual([...tools].sort(), ["gcc", "go"]);
  const many = Array.from({ length: 500 }, (_, i) => `a.c:${i + 1}:1: error: bad ${i}`).join("\n");
  assert.equal(parseBuildErrors(many, { maxErrors: 10 }).length, 10);
});
