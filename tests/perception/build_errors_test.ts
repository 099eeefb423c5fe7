import assert from "node:assert/strict";
import {
  type BuildError,
  detectTool,
  detectTools,
  formatBuildError,
  parseBuildErrors,
  stripAnsi,
  summarizeErrors,
} from "../../src/perception/build_errors.ts";

const ESC = "\x1b";

// Fixtures are written out by hand after real runs of each tool (colours kept where the tool
// emits them even when piped).

const TSC_PLAIN =
  `src/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.
src/util/math.ts(3,10): error TS2554: Expected 2 arguments, but got 1.
error TS5083: Cannot read file '/repo/tsconfig.base.json'.
`;

const TSC_PRETTY =
  `${ESC}[96msrc/index.ts${ESC}[0m:${ESC}[93m12${ESC}[0m:${ESC}[93m5${ESC}[0m - ${ESC}[91merror${ESC}[0m${ESC}[90m TS2322: ${ESC}[0mType 'string' is not assignable to type 'number'.

${ESC}[7m12${ESC}[0m     total = "x";
${ESC}[7m  ${ESC}[0m ${ESC}[91m    ~~~~~${ESC}[0m

Found 1 error in src/index.ts${ESC}[90m:12${ESC}[0m
`;

const DENO_CHECK = `${ESC}[0m${ESC}[32mCheck${ESC}[0m a.ts
${ESC}[0m${ESC}[1mTS2322 ${ESC}[0m[ERROR]: Type 'string' is not assignable to type 'number'.
const x: number = "a";
${ESC}[0m${ESC}[31m      ^${ESC}[0m
    at ${ESC}[0m${ESC}[36mfile:///tmp/samp/a.ts${ESC}[0m:${ESC}[0m${ESC}[33m1${ESC}[0m:${ESC}[0m${ESC}[33m7${ESC}[0m

${ESC}[0m${ESC}[1mTS2322 ${ESC}[0m[ERROR]: Type 'number' is not assignable to type 'string'.
function f(n: number): string { return n; }
${ESC}[0m${ESC}[31m                                ~~~~~~${ESC}[0m
    at ${ESC}[0m${ESC}[36mfile:///tmp/my%20samp/b.ts${ESC}[0m:${ESC}[0m${ESC}[33m2${ESC}[0m:${ESC}[0m${ESC}[33m33${ESC}[0m

Found 2 errors.

${ESC}[0m${ESC}[1m${ESC}[31merror${ESC}[0m: Type checking failed.
`;

const DENO_MODULE_ERROR = `error: Module not found "file:///repo/src/missing.ts".
    at file:///repo/src/main.ts:3:22
`;

const DENO_LINT = `error[no-unused-vars]: \`y\` is never used
 --> /tmp/samp/l.ts:1:5
  | 
1 | let y = 1;
  |     ^
  = hint: If this is intentional, prefix it with an underscore like \`_y\`

  docs: https://docs.deno.com/lint/rules/no-unused-vars


error[prefer-const]: \`y\` is never reassigned
 --> /tmp/samp/l.ts:1:5
  | 
1 | let y = 1;
  |     ^
  = hint: Use \`const\` instead

Found 2 problems
Checked 2 files
`;

const DENO_TEST = `${ESC}[0m${ESC}[38;5;245mrunning 3 tests from ./m_test.ts${ESC}[0m
adds numbers ... ${ESC}[0m${ESC}[31mFAILED${ESC}[0m ${ESC}[0m${ESC}[38;5;245m(827µs)${ESC}[0m
ok one ... ${ESC}[0m${ESC}[32mok${ESC}[0m ${ESC}[0m${ESC}[38;5;245m(61µs)${ESC}[0m
group ...
  inner ... ${ESC}[0m${ESC}[31mFAILED${ESC}[0m ${ESC}[0m${ESC}[38;5;245m(0ms)${ESC}[0m
group ... ${ESC}[0m${ESC}[31mFAILED${ESC}[0m (due to 1 failed step) ${ESC}[0m${ESC}[38;5;245m(781µs)${ESC}[0m

${ESC}[0m${ESC}[1m${ESC}[37m${ESC}[41m ERRORS ${ESC}[0m

adds numbers ${ESC}[0m${ESC}[38;5;245m=> ./m_test.ts:2:6${ESC}[0m
${ESC}[0m${ESC}[1m${ESC}[31merror${ESC}[0m: Error: Values are not equal: 2 !== 3
function assertEquals(a: unknown, b: unknown) { if (a !== b) throw new Error("x"); }
${ESC}[0m${ESC}[31m                                                                   ^${ESC}[0m
    at ${ESC}[0m${ESC}[1m${ESC}[3massertEquals${ESC}[0m (${ESC}[0m${ESC}[2m${ESC}[38;5;245mfile:///tmp/samp/${ESC}[0m${ESC}[0m${ESC}[36mm_test.ts${ESC}[0m:${ESC}[0m${ESC}[33m1${ESC}[0m:${ESC}[0m${ESC}[33m68${ESC}[0m)

group ... inner ${ESC}[0m${ESC}[38;5;245m=> ./m_test.ts:4:43${ESC}[0m
${ESC}[0m${ESC}[1m${ESC}[31merror${ESC}[0m: TypeError: boom
    at ${ESC}[0m${ESC}[2m${ESC}[38;5;245mfile:///tmp/samp/${ESC}[0m${ESC}[0m${ESC}[36mm_test.ts${ESC}[0m:${ESC}[0m${ESC}[33m4${ESC}[0m:${ESC}[0m${ESC}[33m71${ESC}[0m

${ESC}[0m${ESC}[1m${ESC}[37m${ESC}[41m FAILURES ${ESC}[0m

adds numbers ${ESC}[0m${ESC}[38;5;245m=> ./m_test.ts:2:6${ESC}[0m
group ... inner ${ESC}[0m${ESC}[38;5;245m=> ./m_test.ts:4:43${ESC}[0m

${ESC}[0m${ESC}[31mFAILED${ESC}[0m | 1 passed | 2 failed (1 step) ${ESC}[0m${ESC}[38;5;245m(8ms)${ESC}[0m

${ESC}[0m${ESC}[1m${ESC}[31merror${ESC}[0m: Test failed
`;

const ESLINT_STYLISH = `
/home/dev/app/src/components/Button.jsx
   3:10  error    'useState' is defined but never used  no-unused-vars
  14:5   warning  Unexpected console statement          no-console

/home/dev/app/src/index.js
  1:1  error  Parsing error: Unexpected token <

✖ 3 problems (2 errors, 1 warning)
  0 errors and 1 warning potentially fixable with the \`--fix\` option.
`;

const ESLINT_COMPACT =
  `/home/dev/app/src/index.js: line 7, col 3, Error - 'foo' is not defined. (no-undef)
/home/dev/app/src/index.js: line 9, col 1, Warning - Unexpected console statement. (no-console)

2 problems
`;

const GO_BUILD = `# example.com/shop/cart
cart/cart.go:27:9: undefined: Totl
cart/cart.go:41:2: declared and not used: price
./main.go:8:2: "os" imported and not used
`;

const GO_VET = `# example.com/shop
# [example.com/shop]
vet: ./report.go:15:2: fmt.Printf format %d has arg name of wrong type string
`;

const GO_TEST = `--- FAIL: TestAdd (0.00s)
    add_test.go:10: Add(1, 2) = 4; want 3
    add_test.go:11: Add(0, 0) = 1; want 0
--- FAIL: TestParse (0.00s)
    --- FAIL: TestParse/empty (0.00s)
        parse_test.go:22: expected error, got nil
FAIL
FAIL	example.com/calc	0.004s
FAIL
`;

const GO_TEST_VERBOSE = `=== RUN   TestAdd
    add_test.go:10: Add(1, 2) = 4; want 3
--- FAIL: TestAdd (0.00s)
=== RUN   TestSub
--- PASS: TestSub (0.00s)
=== RUN   TestDiv
--- FAIL: TestDiv (0.00s)
panic: runtime error: integer divide by zero [recovered]
	panic: runtime error: integer divide by zero

goroutine 7 [running]:
testing.tRunner.func1.2({0x5123a0, 0x6161e0})
	/usr/local/go/src/testing/testing.go:1631 +0x24a
example.com/calc.Div(...)
	/home/dev/calc/div.go:4
example.com/calc.TestDiv(0x0?)
	/home/dev/calc/div_test.go:6 +0x12
FAIL	example.com/calc	0.005s
`;

const CARGO_BUILD = `   Compiling rs v0.1.0 (/tmp/samp/rs)
error[E0308]: mismatched types
 --> src/main.rs:3:18
  |
3 |     let x: i32 = "a";
  |            ---   ^^^ expected \`i32\`, found \`&str\`
  |            |
  |            expected due to this

warning: unused variable: \`y\`
 --> src/main.rs:2:9
  |
2 |     let y = 2;
  |         ^ help: if this is intentional, prefix it with an underscore: \`_y\`

For more information about this error, try \`rustc --explain E0308\`.
warning: \`rs\` (bin "rs") generated 1 warning
error: could not compile \`rs\` (bin "rs") due to 1 previous error; 1 warning emitted
`;

const CARGO_TEST = `     Running unittests src/main.rs (target/debug/deps/rs-154238ccfbe20b37)

running 2 tests
test tests::it_works ... FAILED
test tests::old_style ... FAILED

failures:

---- tests::it_works stdout ----

thread 'tests::it_works' (11959) panicked at src/main.rs:9:21:
assertion \`left == right\` failed
  left: 4
 right: 5
note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace

---- tests::old_style stdout ----
thread 'tests::old_style' panicked at 'called \`Option::unwrap()\` on a \`None\` value', src/lib.rs:30:14


failures:
    tests::it_works
    tests::old_style

test result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass \`--bin rs\`
`;

const GCC = `m.c: In function ‘main’:
m.c:3:11: warning: initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast [-Wint-conversion]
    3 |   int x = "a";
      |           ^~~
m.c:4:10: error: ‘y’ undeclared (first use in this function)
    4 |   return y;
      |          ^
m.c:4:10: note: each undeclared identifier is reported only once for each function it appears in
src/io/read.cpp:88:1: fatal error: missing.h: No such file or directory
/usr/bin/ld: /tmp/ccGUYfaa.o: in function \`main':
n.c:(.text+0x5): undefined reference to \`foo'
collect2: error: ld returned 1 exit status
make: *** [Makefile:4: all] Error 1
`;

const PYTEST = `============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-9.0.3, pluggy-1.6.0
rootdir: /tmp/samp/py
collected 3 items

tests/test_x.py F.F                                                      [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(1, 2) == 4
E       assert 3 == 4
E        +  where 3 = add(1, 2)

tests/test_x.py:5: AssertionError
________________________________ TestK.test_div ________________________________

self = <test_x.TestK object at 0x7f65ebc3ca50>

    def test_div(self):
>       x = 1 / 0
            ^^^^^
E       ZeroDivisionError: division by zero

tests/test_x.py:12: ZeroDivisionError
=========================== short test summary info ============================
FAILED tests/test_x.py::test_add - assert 3 == 4
FAILED tests/test_x.py::TestK::test_div - ZeroDivisionError: division by zero
========================= 2 failed, 1 passed in 0.43s ==========================
`;

const PYTEST_COLLECTION =
  `==================================== ERRORS ====================================
______________________ ERROR collecting tests/test_bad.py ______________________
ImportError while importing test module '/tmp/samp/py/tests/test_bad.py'.
Traceback:
/root/.pyenv/versions/3.11.7/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_bad.py:1: in <module>
    import nosuchmod
E   ModuleNotFoundError: No module named 'nosuchmod'
=========================== short test summary info ============================
ERROR tests/test_bad.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.52s ===============================
`;

const JEST = ` FAIL  src/sum.test.js
  Math
    ✕ adds numbers (4 ms)
    ✓ subtracts (1 ms)

  ● Console

    console.log
      debugging

      at Object.log (src/sum.test.js:2:11)

  ● Math › adds numbers

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 4

      3 | test('adds numbers', () => {
    > 4 |   expect(sum(1, 2)).toBe(3);
        |                     ^
      5 | });

      at Object.toBe (src/sum.test.js:4:21)

 PASS  src/other.test.js

Test Suites: 1 failed, 1 passed, 2 total
Tests:       1 failed, 2 passed, 3 total
`;

const VITEST = ` ❯ src/sum.test.ts (2 tests | 1 failed) 5ms
   × Math > adds numbers 3ms
     → expected 4 to be 3 // Object.is equality

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/sum.test.ts > Math > adds numbers
AssertionError: expected 4 to be 3 // Object.is equality

- Expected
+ Received

- 3
+ 4

 ❯ src/sum.test.ts:5:23
      3| describe('Math', () => {
      4|   it('adds numbers', () => {
      5|     expect(sum(1, 2)).toBe(3);
       |                       ^
      6|   });

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed (2)
`;

function pick(errors: BuildError[]): Array<Partial<BuildError>> {
  return errors.map((e) => {
    const out: Partial<BuildError> = { message: e.message, severity: e.severity, tool: e.tool };
    if (e.file !== undefined) out.file = e.file;
    if (e.line !== undefined) out.line = e.line;
    if (e.column !== undefined) out.column = e.column;
    if (e.code !== undefined) out.code = e.code;
    if (e.test !== undefined) out.test = e.test;
    return out;
  });
}

Deno.test("stripAnsi removes colours and resolves carriage-return overwrites", () => {
  assert.equal(stripAnsi(`${ESC}[1;31merror${ESC}[0m: x`), "error: x");
  assert.equal(stripAnsi("a\r\nb"), "a\nb");
  assert.equal(stripAnsi("10%\r50%\r100%\ndone"), "100%\ndone");
  assert.equal(stripAnsi(`${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\`), "link");
});

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

Deno.test("parseBuildErrors reads deno check diagnostics with their file URLs", () => {
  const errors = parseBuildErrors(DENO_CHECK, { command: ["deno", "check", "a.ts"] });
  assert.deepEqual(pick(errors), [
    {
      file: "/tmp/samp/a.ts",
      line: 1,
      column: 7,
      code: "TS2322",
      severity: "error",
      tool: "deno_check",
      message: "Type 'string' is not assignable to type 'number'.",
    },
    {
      file: "/tmp/my samp/b.ts",
      line: 2,
      column: 33,
      code: "TS2322",
      severity: "error",
      tool: "deno_check",
      message: "Type 'number' is not assignable to type 'string'.",
    },
  ]);
  const module = parseBuildErrors(DENO_MODULE_ERROR, { tool: "deno_check" });
  assert.deepEqual(pick(module), [{
    file: "/repo/src/main.ts",
    line: 3,
    column: 22,
    severity: "error",
    tool: "deno_check",
    message: 'Module not found "file:///repo/src/missing.ts".',
  }]);
});

Deno.test("parseBuildErrors reads deno lint diagnostics", () => {
  const errors = parseBuildErrors(DENO_LINT, { command: "deno lint" });
  assert.deepEqual(pick(errors), [
    {
      file: "/tmp/samp/l.ts",
      line: 1,
      column: 5,
      code: "no-unused-vars",
      severity: "error",
      tool: "deno_lint",
      message: "`y` is never used",
    },
    {
      file: "/tmp/samp/l.ts",
      line: 1,
      column: 5,
      code: "prefer-const",
      severity: "error",
      tool: "deno_lint",
      message: "`y` is never reassigned",
    },
  ]);
  assert.equal(detectTool("", DENO_LINT), "deno_lint");
});

Deno.test("parseBuildErrors reads deno test failures once each", () => {
  const errors = parseBuildErrors(DENO_TEST, { command: "deno test -A" });
  assert.deepEqual(pick(errors), [
    {
      file: "m_test.ts",
      line: 2,
      column: 6,
      test: "adds numbers",
      severity: "error",
      tool: "deno_test",
      message: "Error: Values are not equal: 2 !== 3",
    },
    {
      file: "m_test.ts",
      line: 4,
      column: 43,
      test: "group ... inner",
      severity: "error",
      tool: "deno_test",
      message: "TypeError: boom",
    },
  ]);
  assert.equal(detectTool("deno task test", DENO_TEST), "deno_test");
});

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

Deno.test("parseBuildErrors reads go build and go vet", () => {
  assert.deepEqual(pick(parseBuildErrors(GO_BUILD, { command: "go build ./..." })), [
    {
      file: "cart/cart.go",
      line: 27,
      column: 9,
      severity: "error",
      tool: "go",
      message: "undefined: Totl",
    },
    {
      file: "cart/cart.go",
      line: 41,
      column: 2,
      severity: "error",
      tool: "go",
      message: "declared and not used: price",
    },
    {
      file: "main.go",
      line: 8,
      column: 2,
      severity: "error",
      tool: "go",
      message: '"os" imported and not used',
    },
  ]);
  assert.deepEqual(pick(parseBuildErrors(GO_VET, { command: "go vet ./..." })), [{
    file: "report.go",
    line: 15,
    column: 2,
    severity: "error",
    tool: "go",
    message: "fmt.Printf format %d has arg name of wrong type string",
  }]);
});

Deno.test("parseBuildErrors reads go test failures in plain and verbose mode", () => {
  assert.deepEqual(pick(parseBuildErrors(GO_TEST, { command: "go test ./..." })), [
    {
      file: "add_test.go",
      line: 10,
      test: "TestAdd",
      severity: "error",
      tool: "go",
      message: "Add(1, 2) = 4; want 3",
    },
    {
      file: "add_test.go",
      line: 11,
      test: "TestAdd",
      severity: "error",
      tool: "go",
      message: "Add(0, 0) = 1; want 0",
    },
    {
      file: "parse_test.go",
      line: 22,
      test: "TestParse/empty",
      severity: "error",
      tool: "go",
      message: "expected error, got nil",
    },
  ]);
  const verbose = pick(parseBuildErrors(GO_TEST_VERBOSE));
  assert.deepEqual(verbose, [
    {
      file: "add_test.go",
      line: 10,
      test: "TestAdd",
      severity: "error",
      tool: "go",
      message: "Add(1, 2) = 4; want 3",
    },
    {
      file: "/home/dev/calc/div.go",
      line: 4,
      test: "TestDiv",
      severity: "error",
      tool: "go",
      message: "panic: runtime error: integer divide by zero",
    },
  ]);
});

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

Deno.test("parseBuildErrors parses mixed output and caps the result", () => {
  const mixed = `${GO_BUILD}\n${GCC}`;
  const tools = new Set(parseBuildErrors(mixed, { command: "make all" }).map((e) => e.tool));
  assert.deepEqual([...tools].sort(), ["gcc", "go"]);
  const many = Array.from({ length: 500 }, (_, i) => `a.c:${i + 1}:1: error: bad ${i}`).join("\n");
  assert.equal(parseBuildErrors(many, { maxErrors: 10 }).length, 10);
});

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

Deno.test("summarizeErrors counts, lists files and quotes the first error", () => {
  const errors = parseBuildErrors(GCC, { command: "make" });
  const summary = summarizeErrors(errors);
  assert.equal(summary.errors, 3);
  assert.equal(summary.warnings, 1);
  assert.deepEqual(summary.files, ["m.c", "src/io/read.cpp", "n.c"]);
  assert.deepEqual(summary.tools, ["gcc"]);
  assert.equal(summary.first, "m.c:4:10: ‘y’ undeclared (first use in this function)");
  assert.ok(summary.text.startsWith("3 errors, 1 warning in 3 files — m.c:4:10:"));
  assert.equal(summarizeErrors([]).text, "no errors");
  assert.ok(summarizeErrors(errors, { maxChars: 30 }).text.length <= 30);
  const tests = summarizeErrors(parseBuildErrors(GO_TEST));
  assert.deepEqual(tests.tests, ["TestAdd", "TestParse/empty"]);
});

Deno.test("formatBuildError renders location, code and test", () => {
  assert.equal(
    formatBuildError({
      file: "a.ts",
      line: 1,
      column: 2,
      code: "TS1",
      message: "bad",
      severity: "error",
      tool: "tsc",
    }),
    "a.ts:1:2: TS1 bad",
  );
  assert.equal(
    formatBuildError({ message: "test failed", test: "TestX", severity: "error", tool: "go" }),
    "test failed (TestX)",
  );
});
