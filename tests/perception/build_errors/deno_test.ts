import assert from "node:assert/strict";
import { detectTool, parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { DENO_CHECK, DENO_LINT, DENO_MODULE_ERROR, DENO_TEST, pick } from "./samples.ts";

Deno.test("parseBuildErrors reads deno check diagnostics with their file URLs", () => {
  const errors = parseBuildErrors(DENO_CHECK, { command: ["deno", "check", "a.ts"] });
  assert.deepEqual(pick(errors), [
    {
      file: "/tmp/samp/a.ts",
      line: 1,
      column: 7,
      code: "TS2322",
      severity: "error",
      tool: "deno_check",
      message: "Type 'string' is not assignable to type 'number'.",
    },
    {
      file: "/tmp/my samp/b.ts",
      line: 2,
      column: 33,
      code: "TS2322",
      severity: "error",
      tool: "deno_check",
      message: "Type 'number' is not assignable to type 'string'.",
    },
  ]);
  const module = parseBuildErrors(DENO_MODULE_ERROR, { tool: "deno_check" });
  assert.deepEqual(pick(module), [{
    file: "/repo/src/main.ts",
    line: 3,
    column: 22,
    severity: "error",
    tool: "deno_check",
    message: 'Module not found "file:///repo/src/missing.ts".',
  }]);
});

Deno.test("parseBuildErrors reads deno lint diagnostics", () => {
  const errors = parseBuildErrors(DENO_LINT, { command: "deno lint" });
  assert.deepEqual(pick(errors), [
    {
      file: "/tmp/samp/l.ts",
      line: 1,
      column: 5,
      code: "no-unused-vars",
      severity: "error",
      tool: "deno_lint",
      message: "`y` is never used",
    },
    {
      file: "/tmp/samp/l.ts",
      line: 1,
      column: 5,
      code: "prefer-const",
      severity: "error",
      tool: "deno_lint",
      message: "`y` is never reassigned",
    },
  ]);
  assert.equal(detectTool("", DENO_LINT), "deno_lint");
});

Deno.test("parseBuildErrors reads deno test failures once each", () => {
  const errors = parseBuildErrors(DENO_TEST, { command: "deno test -A" });
  assert.deepEqual(pick(errors), [
    {
      file: "m_test.ts",
      line: 2,
      column: 6,
      test: "adds numbers",
      severity: "error",
      tool: "deno_test",
      message: "Error: Values are not equal: 2 !== 3",
    },
    {
      file: "m_test.ts",
      line: 4,
      column: 43,
      test: "group ... inner",
      severity: "error",
      tool: "deno_test",
      message: "TypeError: boom",
    },
  ]);
  assert.equal(detectTool("deno task test", DENO_TEST), "deno_test");
});
