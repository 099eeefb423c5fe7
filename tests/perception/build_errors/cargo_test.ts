import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { CARGO_BUILD, CARGO_TEST, pick } from "./samples.ts";

Deno.test("parseBuildErrors reads cargo build diagnostics and skips its summaries", () => {
  assert.deepEqual(pick(parseBuildErrors(CARGO_BUILD, { command: "cargo build" })), [
    {
      file: "src/main.rs",
      line: 3,
      column: 18,
      code: "E0308",
      severity: "error",
      tool: "cargo",
      message: "mismatched types",
    },
    {
      file: "src/main.rs",
      line: 2,
      column: 9,
      severity: "warning",
      tool: "cargo",
      message: "unused variable: `y`",
    },
  ]);
});

Deno.test("parseBuildErrors reads cargo test panics, new and old format", () => {
  assert.deepEqual(pick(parseBuildErrors(CARGO_TEST, { command: "cargo test" })), [
    {
      file: "src/main.rs",
      line: 9,
      column: 21,
      test: "tests::it_works",
      severity: "error",
      tool: "cargo",
      message: "assertion `left == right` failed",
    },
    {
      file: "src/lib.rs",
      line: 30,
      column: 14,
      test: "tests::old_style",
      severity: "error",
      tool: "cargo",
      message: "called `Option::unwrap()` on a `None` value",
    },
  ]);
});
