import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { pick, VITEST } from "./samples.ts";

Deno.test("parseBuildErrors reads vitest failures", () => {
  assert.deepEqual(pick(parseBuildErrors(VITEST, { command: "pnpm vitest run" })), [{
    file: "src/sum.test.ts",
    line: 5,
    column: 23,
    test: "Math > adds numbers",
    severity: "error",
    tool: "vitest",
    message: "AssertionError: expected 4 to be 3 // Object.is equality",
  }]);
});
