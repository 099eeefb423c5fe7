import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { GO_BUILD, GO_TEST, GO_TEST_VERBOSE, GO_VET, pick } from "./samples.ts";

Deno.test("parseBuildErrors reads go build and go vet", () => {
  assert.deepEqual(pick(parseBuildErrors(GO_BUILD, { command: "go build ./..." })), [
    {
      file: "cart/cart.go",
      line: 27,
      column: 9,
      severity: "error",
      tool: "go",
      message: "undefined: Totl",
    },
    {
      file: "cart/cart.go",
      line: 41,
      column: 2,
      severity: "error",
      tool: "go",
      message: "declared and not used: price",
    },
    {
      file: "main.go",
      line: 8,
      column: 2,
      severity: "error",
      tool: "go",
      message: '"os" imported and not used',
    },
  ]);
  assert.deepEqual(pick(parseBuildErrors(GO_VET, { command: "go vet ./..." })), [{
    file: "report.go",
    line: 15,
    column: 2,
    severity: "error",
    tool: "go",
    message: "fmt.Printf format %d has arg name of wrong type string",
  }]);
});

Deno.test("parseBuildErrors reads go test failures in plain and verbose mode", () => {
  assert.deepEqual(pick(parseBuildErrors(GO_TEST, { command: "go test ./..." })), [
    {
      file: "add_test.go",
      line: 10,
      test: "TestAdd",
      severity: "error",
      tool: "go",
      message: "Add(1, 2) = 4; want 3",
    },
    {
      file: "add_test.go",
      line: 11,
      test: "TestAdd",
      severity: "error",
      tool: "go",
      message: "Add(0, 0) = 1; want 0",
    },
    {
      file: "parse_test.go",
      line: 22,
      test: "TestParse/empty",
      severity: "error",
      tool: "go",
      message: "expected error, got nil",
    },
  ]);
  const verbose = pick(parseBuildErrors(GO_TEST_VERBOSE));
  assert.deepEqual(verbose, [
    {
      file: "add_test.go",
      line: 10,
      test: "TestAdd",
      severity: "error",
      tool: "go",
      message: "Add(1, 2) = 4; want 3",
    },
    {
      file: "/home/dev/calc/div.go",
      line: 4,
      test: "TestDiv",
      severity: "error",
      tool: "go",
      message: "panic: runtime error: integer divide by zero",
    },
  ]);
});
