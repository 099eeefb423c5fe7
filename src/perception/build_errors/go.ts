/**
 * Go: `go build` and `go vet` diagnostics, and `go test` failures in plain and verbose mode
 * (log lines claimed by their test whichever comes first), panics with the first frame outside
 * the runtime. Also `golangci-lint` and `gotestsum`, which print the same.
 *
 * @module
 */
import { int, make } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

const GO_DIAG = /^(?:vet: )?((?:[A-Za-z]:)?[^\s:]*\.go):(\d+)(?::(\d+))?: (.+)$/;
const GO_TEST_LINE = /^\s+([^\s:]+\.go):(\d+): (.+)$/;
const GO_FAIL = /^\s*--- FAIL: (\S+)/;
const GO_PANIC = /^panic: (.+?)(?: \[recovered\])?$/;
const GO_FRAME = /^\t(\S+\.go):(\d+)/;

const parseGo: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  // `go test -v` prints a test's log lines before its `--- FAIL`; plain `go test` prints them
  // after it. Lines seen before any FAIL are buffered until one claims them.
  let buffered: BuildError[] = [];
  let open: { test: string; lines: number } | undefined;
  let panic: BuildError | undefined;
  const closeOpen = (): void => {
    if (open !== undefined && open.lines === 0) {
      out.push(make(tool, `test ${open.test} failed`, { test: open.test }));
    }
    open = undefined;
  };
  for (const line of lines) {
    const fail = GO_FAIL.exec(line);
    if (fail) {
      const test = fail[1];
      if (buffered.length > 0) {
        for (const error of buffered) out.push({ ...error, test });
        buffered = [];
        open = undefined;
        continue;
      }
      // A failing subtest makes its parent's placeholder redundant.
      if (open !== undefined && open.lines === 0 && test.startsWith(`${open.test}/`)) {
        open = undefined;
      }
      closeOpen();
      open = { test, lines: 0 };
      continue;
    }
    if (/^=== (?:RUN|CONT|PAUSE|NAME)\s/.test(line)) {
      closeOpen();
      buffered = [];
      continue;
    }
    if (/^(?:FAIL|ok|PASS)(?:\s|$)/.test(line)) {
      closeOpen();
      buffered = [];
      continue;
    }
    const testLine = GO_TEST_LINE.exec(line);
    if (testLine) {
      const error = make(tool, testLine[3], { file: testLine[1], line: int(testLine[2]) });
      if (open !== undefined) {
        error.test = open.test;
        open.lines++;
        out.push(error);
      } else {
        buffered.push(error);
      }
      continue;
    }
    const diag = GO_DIAG.exec(line);
    if (diag) {
      out.push(make(tool, diag[4], {
        file: diag[1],
        line: int(diag[2]),
        column: int(diag[3]),
      }));
      continue;
    }
    const p = GO_PANIC.exec(line);
    if (p) {
      panic = make(tool, `panic: ${p[1]}`, { test: open?.test });
      out.push(panic);
      if (open !== undefined) open.lines++;
      continue;
    }
    const frame = GO_FRAME.exec(line);
    // The first frame outside the Go runtime and testing packages is where it went wrong.
    if (
      frame && panic !== undefined && panic.file === undefined &&
      !/\/src\/(?:runtime|testing|reflect)\//.test(frame[1])
    ) {
      panic.file = frame[1];
      panic.line = int(frame[2]);
    }
  }
  closeOpen();
  return out;
};

/** The go tool in the registry. */
export const goParser: ToolParser = {
  parse: parseGo,
  programs: ["go", "golangci_lint", "golangci-lint", "gotestsum"],
  signature: /^--- FAIL: |^FAIL\t\S+|^(?:vet: )?(?:\.{1,2}\/)?[^\s:]+\.go:\d+(?::\d+)?: /m,
};
