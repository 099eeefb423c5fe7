import assert from "node:assert/strict";
import { stripAnsi } from "../../../src/perception/build_errors.ts";
import { ESC } from "./samples.ts";

Deno.test("stripAnsi removes colours and resolves carriage-return overwrites", () => {
  assert.equal(stripAnsi(`${ESC}[1;31merror${ESC}[0m: x`), "error: x");
  assert.equal(stripAnsi("a\r\nb"), "a\nb");
  assert.equal(stripAnsi("10%\r50%\r100%\ndone"), "100%\ndone");
  assert.equal(stripAnsi(`${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\`), "link");
});
