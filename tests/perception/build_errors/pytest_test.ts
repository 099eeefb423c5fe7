import assert from "node:assert/strict";
import { parseBuildErrors } from "../../../src/perception/build_errors.ts";
import { pick, PYTEST, PYTEST_COLLECTION } from "./samples.ts";

Deno.test("parseBuildErrors reads pytest failures with their assertion lines", () => {
  assert.deepEqual(pick(parseBuildErrors(PYTEST, { command: "python -m pytest -q" })), [
    {
      file: "tests/test_x.py",
      line: 5,
      test: "tests/test_x.py::test_add",
      severity: "error",
      tool: "pytest",
      message: "assert 3 == 4",
    },
    {
      file: "tests/test_x.py",
      line: 12,
      test: "tests/test_x.py::TestK::test_div",
      severity: "error",
      tool: "pytest",
      message: "ZeroDivisionError: division by zero",
    },
  ]);
  assert.deepEqual(pick(parseBuildErrors(PYTEST_COLLECTION)), [{
    file: "tests/test_bad.py",
    line: 1,
    severity: "error",
    tool: "pytest",
    message: "ModuleNotFoundError: No module named 'nosuchmod'",
  }]);
});

Deno.test("parseBuildErrors falls back to pytest tracebacks without a summary", () => {
  const noSummary = PYTEST.split("=========================== short test summary")[0];
  const errors = pick(parseBuildErrors(noSummary, { command: "pytest -rN" }));
  assert.deepEqual(errors.map((e) => [e.file, e.line, e.test, e.message]), [
    ["tests/test_x.py", 5, "test_add", "assert 3 == 4"],
    ["tests/test_x.py", 12, "TestK.test_div", "ZeroDivisionError: division by zero"],
  ]);
});
