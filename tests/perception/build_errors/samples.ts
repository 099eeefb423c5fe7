/**
 * Output of the tools the build error parsers read, as they print it (colours included where
 * they print them), shared by the parser tests; and a helper to compare parsed problems.
 *
 * @module
 */
import type { BuildError } from "../../../src/perception/build_errors.ts";

export const ESC = "\x1b";

// Fixtures are written out by hand after real runs of each tool (colours kept where the tool
// emits them even when piped).

export const TSC_PLAIN =
  `src/index.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.
src/util/math.ts(3,10): error TS2554: Expected 2 arguments, but got 1.
error TS5083: Cannot read file '/repo/tsconfig.base.json'.
`;

export const TSC_PRETTY =
  `${ESC}[96msrc/index.ts${ESC}[0m:${ESC}[93m12${ESC}[0m:${ESC}[93m5${ESC}[0m - ${ESC}[91merror${ESC}[0m${ESC}[90m TS2322: ${ESC}[0mType 'string' is not assignable to type 'number'.

${ESC}[7m12${ESC}[0m     total = "x";
${ESC}[7m  ${ESC}[0m ${ESC}[91m    ~~~~~${ESC}[0m

Found 1 error in src/index.ts${ESC}[90m:12${ESC}[0m
`;

export const DENO_CHECK = `${ESC}[0m${ESC}[32mCheck${ESC}[0m a.ts
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

export const DENO_MODULE_ERROR = `error: Module not found "file:///repo/src/missing.ts".
    at file:///repo/src/main.ts:3:22
`;

export const DENO_LINT = `error[no-unused-vars]: \`y\` is never used
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

export const DENO_TEST = `${ESC}[0m${ESC}[38;5;245mrunning 3 tests from ./m_test.ts${ESC}[0m
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

export const ESLINT_STYLISH = `
/home/dev/app/src/components/Button.jsx
   3:10  error    'useState' is defined but never used  no-unused-vars
  14:5   warning  Unexpected console statement          no-console

/home/dev/app/src/index.js
  1:1  error  Parsing error: Unexpected token <

✖ 3 problems (2 errors, 1 warning)
  0 errors and 1 warning potentially fixable with the \`--fix\` option.
`;

export const ESLINT_COMPACT =
  `/home/dev/app/src/index.js: line 7, col 3, Error - 'foo' is not defined. (no-undef)
/home/dev/app/src/index.js: line 9, col 1, Warning - Unexpected console statement. (no-console)

2 problems
`;

export const GO_BUILD = `# example.com/shop/cart
cart/cart.go:27:9: undefined: Totl
cart/cart.go:41:2: declared and not used: price
./main.go:8:2: "os" imported and not used
`;

export const GO_VET = `# example.com/shop
# [example.com/shop]
vet: ./report.go:15:2: fmt.Printf format %d has arg name of wrong type string
`;

export const GO_TEST = `--- FAIL: TestAdd (0.00s)
    add_test.go:10: Add(1, 2) = 4; want 3
    add_test.go:11: Add(0, 0) = 1; want 0
--- FAIL: TestParse (0.00s)
    --- FAIL: TestParse/empty (0.00s)
        parse_test.go:22: expected error, got nil
FAIL
FAIL	example.com/calc	0.004s
FAIL
`;

export const GO_TEST_VERBOSE = `=== RUN   TestAdd
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

export const CARGO_BUILD = `   Compiling rs v0.1.0 (/tmp/samp/rs)
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

export const CARGO_TEST =
  `     Running unittests src/main.rs (target/debug/deps/rs-154238ccfbe20b37)

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

export const GCC = `m.c: In function ‘main’:
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

export const PYTEST =
  `============================= test session starts ==============================
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

export const PYTEST_COLLECTION =
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

export const JEST = ` FAIL  src/sum.test.js
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

export const VITEST = ` ❯ src/sum.test.ts (2 tests | 1 failed) 5ms
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

/** The fields of each problem that are set, for comparing with `deepEqual`. */
export function pick(errors: BuildError[]): Array<Partial<BuildError>> {
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
