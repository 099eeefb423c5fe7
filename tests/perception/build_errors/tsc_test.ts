import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { pick, TSC_PLAIN, TSC_PRETTY } from "./samples.ts";

Deno.test("parseBuildErrors reads tsc plain, pretty and global errors", () => {
  assert.deepEqual(pick(parseBuildErrors(TSC_PLAIN, { command: "npx tsc --noEmit" })), [
    {
      file: "src/index.ts",
      line: 12,
      column: 5,
      code: "TS2322",
      severity: "error",
      tool: "tsc",
      message: "Type 'string' is not assignable to type 'number'.",
    },
    {
      file: "src/util/math.ts",
      line: 3,
      column: 10,
      code: "TS2554",
      severity: "error",
      tool: "tsc",
      message: "Expected 2 arguments, but got 1.",
    },
    {
      code: "TS5083",
      severity: "error",
      tool: "tsc",
      message: "Cannot read file '/repo/tsconfig.base.json'.",
    },
  ]);
  const pretty = parseBuildErrors(TSC_PRETTY);
  assert.equal(pretty.length, 1);
  assert.deepEqual(pick(pretty)[0], {
    file: "src/index.ts",
    line: 12,
    column: 5,
    code: "TS2322",
    severity: "error",
    tool: "tsc",
    message: "Type 'string' is not assignable to type 'number'.",
  });
});
