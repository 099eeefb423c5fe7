import assert from "node:assert/strict";
import {
  formatBuildError,
  parseBuildErrors,
  summarizeErrors,
} from "../../../src/perception/build_errors.ts";
import { GCC, GO_TEST } from "./samples.ts";

Deno.test("summarizeErrors counts, lists files and quotes the first error", () => {
  const errors = parseBuildErrors(GCC, { command: "make" });
  const summary = summarizeErrors(errors);
  assert.equal(summary.errors, 3);
  assert.equal(summary.warnings, 1);
  assert.deepEqual(summary.files, ["m.c", "src/io/read.cpp", "n.c"]);
  assert.deepEqual(summary.tools, ["gcc"]);
  assert.equal(summary.first, "m.c:4:10: ‘y’ undeclared (first use in this function)");
  assert.ok(summary.text.startsWith("3 errors, 1 warning in 3 files — m.c:4:10:"));
  assert.equal(summarizeErrors([]).text, "no errors");
  assert.ok(summarizeErrors(errors, { maxChars: 30 }).text.length <= 30);
  const tests = summarizeErrors(parseBuildErrors(GO_TEST));
  assert.deepEqual(tests.tests, ["TestAdd", "TestParse/empty"]);
});

Deno.test("formatBuildError renders location, code and test", () => {
  assert.equal(
    formatBuildError({
      file: "a.ts",
      line: 1,
      column: 2,
      code: "TS1",
      message: "bad",
      severity: "error",
      tool: "tsc",
    }),
    "a.ts:1:2: TS1 bad",
  );
  assert.equal(
    formatBuildError({ message: "test failed", test: "TestX", severity: "error", tool: "go" }),
    "test failed (TestX)",
  );
});
