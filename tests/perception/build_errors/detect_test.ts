import assert from "node:assert/strict";
import { detectTool, detectTools } from "../../../src/perception/build_errors.ts";
import {
  CARGO_BUILD,
  ESLINT_STYLISH,
  GCC,
  GO_BUILD,
  GO_TEST,
  JEST,
  PYTEST,
  TSC_PLAIN,
  VITEST,
} from "./samples.ts";

Deno.test("detectTool prefers the command and falls back to output fingerprints", () => {
  assert.equal(detectTool("tsc -p ."), "tsc");
  assert.equal(detectTool(["/usr/local/bin/deno", "check", "main.ts"]), "deno_check");
  assert.equal(detectTool("deno test -A"), "deno_test");
  assert.equal(detectTool("cd app && npx vitest run"), "vitest");
  assert.equal(detectTool("CI=1 npx jest --runInBand"), "jest");
  assert.equal(detectTool("python3 -m pytest tests"), "pytest");
  assert.equal(detectTool("go vet ./..."), "go");
  assert.equal(detectTool("cargo clippy"), "cargo");
  assert.equal(detectTool("clang++ -o app main.cpp"), "gcc");
  assert.equal(detectTool("npm test", JEST), "jest");
  assert.equal(detectTool("npm test", VITEST), "vitest");
  assert.equal(detectTool("make", PYTEST), "pytest");
  assert.equal(detectTool("make", GO_TEST), "go");
  assert.equal(detectTool("npm run lint", ESLINT_STYLISH), "eslint");
  assert.equal(detectTool("npm run build", TSC_PLAIN), "tsc");
  assert.equal(detectTool("bash build.sh", CARGO_BUILD), "cargo");
  assert.equal(detectTool("ls -la", "total 0\n"), "unknown");
  assert.deepEqual(detectTools("make", `${GO_BUILD}${GCC}`), ["go", "gcc"]);
});
