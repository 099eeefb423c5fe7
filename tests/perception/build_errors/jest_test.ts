import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { JEST, pick } from "./samples.ts";

Deno.test("parseBuildErrors reads jest failures and ignores console output", () => {
  assert.deepEqual(pick(parseBuildErrors(JEST, { command: "npm test" })), [{
    file: "src/sum.test.js",
    line: 4,
    column: 21,
    test: "Math › adds numbers",
    severity: "error",
    tool: "jest",
    message: "expect(received).toBe(expected) // Object.is equality",
  }]);
});
