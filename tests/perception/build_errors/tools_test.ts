import assert from "node:assert/strict";
import { detectTool, detectTools, stripAnsi } from "../../../src/perception/build_errors.ts";
import { type KnownTool, TOOL_PARSERS } from "../../../src/perception/build_errors/tools.ts";
import {
  CARGO_BUILD,
  DENO_CHECK,
  DENO_LINT,
  DENO_TEST,
  ESLINT_STYLISH,
  GCC,
  GO_TEST,
  JEST,
  PYTEST,
  TSC_PLAIN,
  VITEST,
} from "./samples.ts";

const SAMPLE_OF: Record<KnownTool, string> = {
  deno_test: DENO_TEST,
  deno_check: DENO_CHECK,
  tsc: TSC_PLAIN,
  deno_lint: DENO_LINT,
  cargo: CARGO_BUILD,
  vitest: VITEST,
  jest: JEST,
  pytest: PYTEST,
  go: GO_TEST,
  eslint: ESLINT_STYLISH,
  gcc: GCC,
};

Deno.test("each registered tool is recognised by its output alone, first among the tools", () => {
  for (const [tool, sample] of Object.entries(SAMPLE_OF)) {
    assert.equal(detectTool("", sample), tool, `${tool}'s output`);
    assert.ok(TOOL_PARSERS[tool as KnownTool].signature.test(stripAnsi(sample)));
  }
});

Deno.test("each registered program names its tool, through runners and launchers", () => {
  const seen = new Set<string>();
  for (const [tool, entry] of Object.entries(TOOL_PARSERS)) {
    for (const program of entry.programs) {
      assert.ok(!seen.has(program), `${program} is registered once`);
      seen.add(program);
      assert.equal(detectTool(program), tool, program);
      assert.equal(detectTool(`CI=1 npx ${program} --flag`), tool, `npx ${program}`);
    }
  }
  // A launcher with a word no tool registers names nothing, nor does the launcher's form as one
  // word of a command given as an array.
  assert.equal(detectTool("deno fmt"), "unknown");
  assert.equal(detectTool("python -m mypy"), "unknown");
  assert.deepEqual(detectTools(["deno check"]), []);
  // Names of Object's members are no programs.
  assert.deepEqual(detectTools("constructor x"), []);
});
