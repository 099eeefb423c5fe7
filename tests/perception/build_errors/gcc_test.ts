import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { GCC, pick } from "./samples.ts";

Deno.test("parseBuildErrors reads gcc/clang diagnostics and linker errors, skipping notes", () => {
  assert.deepEqual(pick(parseBuildErrors(GCC, { command: "make" })), [
    {
      file: "m.c",
      line: 3,
      column: 11,
      severity: "warning",
      tool: "gcc",
      message:
        "initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast [-Wint-conversion]",
    },
    {
      file: "m.c",
      line: 4,
      column: 10,
      severity: "error",
      tool: "gcc",
      message: "‘y’ undeclared (first use in this function)",
    },
    {
      file: "src/io/read.cpp",
      line: 88,
      column: 1,
      severity: "error",
      tool: "gcc",
      message: "missing.h: No such file or directory",
    },
    { file: "n.c", severity: "error", tool: "gcc", message: "undefined reference to `foo'" },
  ]);
});

Deno.test("parseBuildErrors falls back to generic file:line:col lines for unknown tools", () => {
  const errors = parseBuildErrors(
    "app/models.py:12: error: Incompatible return value  [return-value]\n",
    {
      command: "mypy app",
    },
  );
  assert.deepEqual(pick(errors), [{
    file: "app/models.py",
    line: 12,
    severity: "error",
    tool: "unknown",
    message: "Incompatible return value  [return-value]",
  }]);
  assert.deepEqual(parseBuildErrors("all good\n", { command: "mypy app" }), []);
});
