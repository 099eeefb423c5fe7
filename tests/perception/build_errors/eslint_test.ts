import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { ESLINT_COMPACT, ESLINT_STYLISH, pick } from "./samples.ts";

Deno.test("parseBuildErrors reads eslint stylish and compact output", () => {
  assert.deepEqual(pick(parseBuildErrors(ESLINT_STYLISH, { command: "npx eslint src" })), [
    {
      file: "/home/dev/app/src/components/Button.jsx",
      line: 3,
      column: 10,
      code: "no-unused-vars",
      severity: "error",
      tool: "eslint",
      message: "'useState' is defined but never used",
    },
    {
      file: "/home/dev/app/src/components/Button.jsx",
      line: 14,
      column: 5,
      code: "no-console",
      severity: "warning",
      tool: "eslint",
      message: "Unexpected console statement",
    },
    {
      file: "/home/dev/app/src/index.js",
      line: 1,
      column: 1,
      severity: "error",
      tool: "eslint",
      message: "Parsing error: Unexpected token <",
    },
  ]);
  assert.deepEqual(pick(parseBuildErrors(ESLINT_COMPACT)), [
    {
      file: "/home/dev/app/src/index.js",
      line: 7,
      column: 3,
      code: "no-undef",
      severity: "error",
      tool: "eslint",
      message: "'foo' is not defined.",
    },
    {
      file: "/home/dev/app/src/index.js",
      line: 9,
      column: 1,
      code: "no-console",
      severity: "warning",
      tool: "eslint",
      message: "Unexpected console statement.",
    },
  ]);
});
