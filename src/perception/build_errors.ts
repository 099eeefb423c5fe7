/**
 * Turns the text output of compilers, linters and test runners into structured errors, so the
 * anomaly rules can tell which files a failing build names and the context block can quote the
 * first error instead of a wall of output.
 *
 * Recognised: `tsc` (plain and `--pretty`), `deno check`, `deno lint`, `deno test`, ESLint
 * (stylish and compact), `go build` / `go vet` / `go test`, `cargo` / `rustc` (including
 * `cargo test` panics), gcc / clang (and the linker), pytest, Jest and Vitest. ANSI colours are
 * stripped first. Unknown output falls back to the common `file:line:col: error: message` shape.
 *
 * @module
 */

/** The tools whose output this module understands. */
export type BuildTool =
  | "tsc"
  | "deno_check"
  | "deno_lint"
  | "deno_test"
  | "eslint"
  | "go"
  | "cargo"
  | "gcc"
  | "pytest"
  | "jest"
  | "vitest"
  | "unknown";

/** How bad a reported problem is. */
export type BuildErrorSeverity = "error" | "warning";

/** One problem reported by a build, lint or test tool. */
export interface BuildError {
  /** File the tool points at, as printed (relative or absolute; `file://` URLs are decoded). */
  file?: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
  /** First line of the message. */
  message: string;
  /** `error` or `warning`. */
  severity: BuildErrorSeverity;
  /** Tool that printed it. */
  tool: BuildTool;
  /** Diagnostic code or lint rule (`TS2322`, `E0308`, `no-unused-vars`). */
  code?: string;
  /** Failing test, for test runners (`Math › adds`, `tests/x.py::test_y`, `TestAdd`). */
  test?: string;
}

/** Options for {@linkcode parseBuildErrors}. */
export interface ParseBuildErrorsOptions {
  /** Parse as this tool's output (skips detection). */
  tool?: BuildTool;
  /** The command that produced the output; helps detection (`npm test` says little, `tsc` a lot). */
  command?: string | readonly string[];
  /** Keep at most this many problems. Default 200. */
  maxErrors?: number;
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/**
 * Removes ANSI escape sequences and resolves carriage-return overwrites (progress bars) the way
 * a terminal would show them; CRLF line ends become LF.
 *
 * @example
 * ```ts
 * stripAnsi("\x1b[31merror\x1b[0m: x"); // "error: x"
 * stripAnsi("10%\r50%\r100%\n");        // "100%\n"
 * ```
 */
export function stripAnsi(text: string): string {
  const plain = text.replace(ANSI, "").replace(/\r\n/g, "\n");
  if (!plain.includes("\r")) return plain;
  return plain
    .split("\n")
    .map((line) => {
      const parts = line.split("\r").filter((part) => part !== "");
      return parts.length === 0 ? "" : parts[parts.length - 1];
    })
    .join("\n");
}

// ---------------------------------------------------------------------------------------------
// Detection

// Program names that identify the tool on their own.
const PROGRAM_TOOLS: Readonly<Record<string, BuildTool>> = {
  tsc: "tsc",
  "vue-tsc": "tsc",
  eslint: "eslint",
  go: "go",
  golangci_lint: "go",
  "golangci-lint": "go",
  gotestsum: "go",
  cargo: "cargo",
  rustc: "cargo",
  gcc: "gcc",
  "g++": "gcc",
  cc: "gcc",
  "c++": "gcc",
  clang: "gcc",
  "clang++": "gcc",
  pytest: "pytest",
  "py.test": "pytest",
  jest: "jest",
  vitest: "vitest",
};

// Runners that execute the next word as the program (`npx tsc`, `pnpm exec vitest`).
const PASS_THROUGH = new Set([
  "npx",
  "bunx",
  "pnpx",
  "exec",
  "dlx",
  "run",
  "poetry",
  "uv",
  "pipenv",
]);

function commandWords(command: string | readonly string[]): string[][] {
  if (typeof command !== "string") return [command.map((word) => String(word))];
  return command
    .split(/&&|\|\||;|\|/)
    .map((segment) => segment.trim().split(/\s+/).filter((word) => word !== ""));
}

function baseName(word: string): string {
  const slash = Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\"));
  return (slash === -1 ? word : word.slice(slash + 1)).replace(/\.(exe|cmd|bat)$/i, "");
}

function toolOfWords(words: readonly string[]): BuildTool {
  let i = 0;
  // Skip `VAR=value` assignments and wrappers so `CI=1 npx jest` reads as jest.
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  while (i < words.length) {
    const name = baseName(words[i]);
    if (name === "deno") {
      const sub = words[i + 1];
      if (sub === "check") return "deno_check";
      if (sub === "test") return "deno_test";
      if (sub === "lint") return "deno_lint";
      return "unknown";
    }
    if (/^python[\d.]*$/.test(name) && words[i + 1] === "-m") {
      const module = words[i + 2];
      if (module === "pytest") return "pytest";
      return "unknown";
    }
    const tool = PROGRAM_TOOLS[name];
    if (tool !== undefined) return tool;
    if (PASS_THROUGH.has(name) || name === "time" || name === "env" || name === "sudo") {
      i++;
      continue;
    }
    return "unknown";
  }
  return "unknown";
}

// Output fingerprints, most specific first. Each is strict enough not to fire on the others.
const OUTPUT_SIGNATURES: ReadonlyArray<[BuildTool, RegExp]> = [
  ["deno_test", /^running \d+ tests? from |^(?:ok|FAILED) \| \d+ passed/m],
  ["deno_check", /^(?:error: )?TS\d+ \[(?:ERROR|WARN(?:ING)?)\]: /m],
  ["tsc", /\(\d+,\d+\): (?:error|warning) TS\d+: |:\d+:\d+ - (?:error|warning) TS\d+: /],
  ["deno_lint", /^(?:error|warning)\[[a-z][a-z0-9-]*\]: .*\n\s*--> /m],
  [
    "cargo",
    /^(?:error|warning)(?:\[E\d{4}\])?: .*\n\s*--> |^test result: FAILED|^thread '.*' (?:\(\d+\) )?panicked at /m,
  ],
  ["vitest", /^\s*FAIL\s+\S+ > |^\s*❯ \S+:\d+:\d+\s*$|^\s*Test Files\s+\d+/m],
  ["jest", /^\s*● .+|^Tests:\s+\d+ (?:failed|passed)/m],
  [
    "pytest",
    /^=+ (?:FAILURES|ERRORS|short test summary info|test session starts) =+$|^(?:FAILED|ERROR) \S+\.py(?:::\S+)?(?: - |$)/m,
  ],
  ["go", /^--- FAIL: |^FAIL\t\S+|^(?:vet: )?(?:\.{1,2}\/)?[^\s:]+\.go:\d+(?::\d+)?: /m],
  ["eslint", /^\s+\d+:\d+\s+(?:error|warning)\s+\S|: line \d+, col \d+, (?:Error|Warning) - /m],
  [
    "gcc",
    /^(?:[A-Za-z]:)?[^\s:][^:\n]*\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|m|mm|cu|ino):\d+:(?:\d+:)? (?:fatal error|error|warning): |undefined reference to /m,
  ],
];

/**
 * Names every tool whose output appears in `output` (a `make` or `npm test` run can hold several),
 * the tool named by the command first.
 *
 * @example
 * ```ts
 * detectTools("npm test", "FAIL src/a.test.ts > adds\n");  // ["vitest"]
 * ```
 */
export function detectTools(command: string | readonly string[], output = ""): BuildTool[] {
  const tools: BuildTool[] = [];
  for (const words of commandWords(command)) {
    const tool = toolOfWords(words);
    if (tool !== "unknown" && !tools.includes(tool)) tools.push(tool);
  }
  if (output !== "") {
    const plain = stripAnsi(output);
    for (const [tool, signature] of OUTPUT_SIGNATURES) {
      if (!tools.includes(tool) && signature.test(plain)) tools.push(tool);
    }
  }
  return tools;
}

/**
 * Names the tool behind a command and its output: the command decides when it names a known
 * program (`tsc`, `deno test`, `cargo`, `python -m pytest`), otherwise the output's fingerprints
 * do (for wrappers like `npm test` or `make`). `"unknown"` when neither tells.
 *
 * @example
 * ```ts
 * detectTool("npx tsc --noEmit");                  // "tsc"
 * detectTool("make", "main.c:3:5: error: x\n");    // "gcc"
 * detectTool("ls");                                // "unknown"
 * ```
 */
export function detectTool(command: string | readonly string[], output = ""): BuildTool {
  return detectTools(command, output)[0] ?? "unknown";
}

// ---------------------------------------------------------------------------------------------
// Parsing helpers

function int(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : undefined;
}

// `file:///a/b%20c.ts` → `/a/b c.ts`; `file:///C:/x.ts` → `C:/x.ts`; other text unchanged.
function fromFileUrl(path: string): string {
  if (!path.startsWith("file://")) return path;
  let rest = path.slice("file://".length);
  if (/^\/[A-Za-z]:\//.test(rest)) rest = rest.slice(1);
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

function severityOf(word: string): BuildErrorSeverity {
  return /^warn/i.test(word) ? "warning" : "error";
}

type Parser = (lines: readonly string[], tool: BuildTool) => BuildError[];

function make(
  tool: BuildTool,
  message: string,
  fields: Partial<Omit<BuildError, "tool" | "message">> = {},
): BuildError {
  const error: BuildError = { message: message.trim(), severity: fields.severity ?? "error", tool };
  // `./main.go` and `main.go` are the same file; the short form matches other reports.
  if (fields.file !== undefined && fields.file !== "") {
    error.file = fields.file.replace(/^\.\//, "");
  }
  if (fields.line !== undefined) error.line = fields.line;
  if (fields.column !== undefined) error.column = fields.column;
  if (fields.code !== undefined) error.code = fields.code;
  if (fields.test !== undefined && fields.test !== "") error.test = fields.test;
  return error;
}

// ---------------------------------------------------------------------------------------------
// tsc

const TSC_PLAIN = /^(\S.*?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$/;
const TSC_PRETTY = /^(\S.*?):(\d+):(\d+) - (error|warning) (TS\d+): (.*)$/;
const TSC_GLOBAL = /^(error|warning) (TS\d+): (.*)$/;

const parseTsc: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  for (const line of lines) {
    const m = TSC_PLAIN.exec(line) ?? TSC_PRETTY.exec(line);
    if (m) {
      out.push(make(tool, m[6], {
        file: m[1],
        line: int(m[2]),
        column: int(m[3]),
        severity: severityOf(m[4]),
        code: m[5],
      }));
      continue;
    }
    const g = TSC_GLOBAL.exec(line);
    if (g) out.push(make(tool, g[3], { severity: severityOf(g[1]), code: g[2] }));
  }
  return out;
};

// ---------------------------------------------------------------------------------------------
// deno check (and Deno's module-graph errors)

const DENO_TS = /^(?:error: )?(TS\d+) \[(ERROR|WARN|WARNING)\]: (.*)$/;
const DENO_ERROR = /^error: (.+)$/;
const DENO_AT = /^\s+at (\S+?):(\d+):(\d+)\)?$/;
const DENO_TEST_HEAD = /^(.+?) => (\S+?):(\d+):(\d+)$/;
const DENO_SUMMARY =
  /^(?:Type checking failed\.?|Test failed|Lint failed|Found \d+ (?:errors?|problems?)\.?)$/;

const parseDenoCheck: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  let pending: BuildError | undefined;
  // Inside `deno test` failure reports, `error:` lines are test failures, not check errors.
  let inTestReport = false;
  const flush = (): void => {
    if (pending !== undefined) out.push(pending);
    pending = undefined;
  };
  for (const line of lines) {
    if (DENO_TEST_HEAD.test(line)) inTestReport = true;
    const ts = DENO_TS.exec(line);
    if (ts) {
      flush();
      pending = make(tool, ts[3], { code: ts[1], severity: severityOf(ts[2]) });
      continue;
    }
    const err = DENO_ERROR.exec(line);
    if (err) {
      flush();
      if (!inTestReport && !DENO_SUMMARY.test(err[1].trim())) pending = make(tool, err[1]);
      continue;
    }
    const at = DENO_AT.exec(line);
    if (at && pending !== undefined && pending.file === undefined) {
      pending.file = fromFileUrl(at[1].replace(/^\(/, ""));
      pending.line = int(at[2]);
      pending.column = int(at[3]);
    }
  }
  flush();
  return out;
};

// ---------------------------------------------------------------------------------------------
// rustc / cargo and deno lint (same diagnostic layout)

const RUST_HEAD = /^(error|warning)(?:\[([^\]]+)\])?: (.+)$/;
const RUST_ARROW = /^\s*--> (.+?):(\d+):(\d+)$/;
const RUST_SUMMARY =
  /^(?:could not compile|aborting due to|\d+ warnings? emitted|build failed|test failed, to rerun|`[^`]+` \(.*\) generated \d+ warnings?|Found \d+ problems?|Checked \d+ files?)/;
const RUST_PANIC_NEW = /^thread '([^']+)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$/;
const RUST_PANIC_OLD = /^thread '([^']+)'(?: \(\d+\))? panicked at '(.*)', (.+?):(\d+):(\d+)$/;
const RUST_TEST_STDOUT = /^---- (\S+) stdout ----$/;

const parseRustStyle: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  let pending: BuildError | undefined;
  const flush = (): void => {
    if (pending !== undefined) out.push(pending);
    pending = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const head = RUST_HEAD.exec(line);
    if (head) {
      flush();
      if (!RUST_SUMMARY.test(head[3])) {
        pending = make(tool, head[3], { severity: severityOf(head[1]), code: head[2] });
      }
      continue;
    }
    const arrow = RUST_ARROW.exec(line);
    if (arrow && pending !== undefined && pending.file === undefined) {
      pending.file = fromFileUrl(arrow[1]);
      pending.line = int(arrow[2]);
      pending.column = int(arrow[3]);
      continue;
    }
    const panicNew = RUST_PANIC_NEW.exec(line);
    if (panicNew) {
      flush();
      // The panic message is on the following line(s).
      const message = (lines[i + 1] ?? "").trim() || "panicked";
      out.push(make(tool, message, {
        file: panicNew[2],
        line: int(panicNew[3]),
        column: int(panicNew[4]),
        test: panicNew[1] === "main" ? undefined : panicNew[1],
      }));
      continue;
    }
    const panicOld = RUST_PANIC_OLD.exec(line);
    if (panicOld) {
      flush();
      out.push(make(tool, panicOld[2] || "panicked", {
        file: panicOld[3],
        line: int(panicOld[4]),
        column: int(panicOld[5]),
        test: panicOld[1] === "main" ? undefined : panicOld[1],
      }));
      continue;
    }
    if (RUST_TEST_STDOUT.test(line)) flush();
  }
  flush();
  return out;
};

// ---------------------------------------------------------------------------------------------
// Go

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

// ---------------------------------------------------------------------------------------------
// gcc / clang / ld, and the generic `file:line:col: error: message` fallback

const GCC_DIAG =
  /^((?:[A-Za-z]:)?[^\s:][^:]*?):(\d+):(?:(\d+):)? (fatal error|error|warning): (.+)$/;
const LD_UNDEFINED = /^(?:(\S+?):\(\S+\): )?(undefined reference to .+)$/;
const LD_ERROR = /^(?:\S*\/)?ld(?:\.\w+)?: (?:error: )?(.+)$/;

const parseGcc: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  for (const line of lines) {
    const d = GCC_DIAG.exec(line);
    if (d) {
      out.push(make(tool, d[5], {
        file: d[1],
        line: int(d[2]),
        column: int(d[3]),
        severity: severityOf(d[4]),
      }));
      continue;
    }
    const u = LD_UNDEFINED.exec(line);
    if (u) {
      out.push(make(tool, u[2], { file: u[1] }));
      continue;
    }
    const ld = LD_ERROR.exec(line);
    if (ld && !/: in function /.test(ld[1]) && !/^warning: /.test(ld[1])) {
      out.push(make(tool, ld[1]));
    }
  }
  return out;
};

// ---------------------------------------------------------------------------------------------
// ESLint

const ESLINT_STYLISH = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}(\S+))?\s*$/;
const ESLINT_COMPACT = /^(.+?): line (\d+), col (\d+), (Error|Warning) - (.+?)(?: \(([^()]+)\))?$/;

const parseEslint: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  let file: string | undefined;
  for (const line of lines) {
    const compact = ESLINT_COMPACT.exec(line);
    if (compact) {
      out.push(make(tool, compact[5], {
        file: compact[1],
        line: int(compact[2]),
        column: int(compact[3]),
        severity: severityOf(compact[4]),
        code: compact[6],
      }));
      continue;
    }
    const s = ESLINT_STYLISH.exec(line);
    if (s && file !== undefined) {
      out.push(make(tool, s[4], {
        file,
        line: int(s[1]),
        column: int(s[2]),
        severity: severityOf(s[3]),
        code: s[5],
      }));
      continue;
    }
    // Stylish prints each file's path unindented above its problems.
    if (/^\S/.test(line) && !/^[✖✔]/.test(line) && !/\s{2,}/.test(line)) file = line.trim();
    else if (line.trim() === "") file = undefined;
  }
  return out;
};

// ---------------------------------------------------------------------------------------------
// pytest

const PY_SUMMARY = /^(FAILED|ERROR) (\S+?)(?: - (.+))?$/;
const PY_SECTION = /^_{3,} (.+?) _{3,}$/;
const PY_LOCATION = /^([^\s:/][^\s:]*\.py):(\d+): (.+)$/;
const PY_E_LINE = /^E\s+(.+)$/;

interface PyBlock {
  name: string;
  file?: string;
  line?: number;
  exception?: string;
  detail?: string;
}

const parsePytest: Parser = (lines, tool) => {
  const blocks: PyBlock[] = [];
  let block: PyBlock | undefined;
  let inSummary = false;
  const summary: Array<{ kind: string; id: string; message?: string }> = [];
  for (const line of lines) {
    if (/^=+ short test summary info =+$/.test(line)) {
      inSummary = true;
      block = undefined;
      continue;
    }
    if (/^=+ .* =+$/.test(line)) {
      if (inSummary) inSummary = false;
      block = undefined;
      continue;
    }
    const s = PY_SUMMARY.exec(line);
    if (s && (inSummary || /\.py(?:::|$)/.test(s[2]))) {
      summary.push({ kind: s[1], id: s[2], message: s[3] });
      continue;
    }
    const section = PY_SECTION.exec(line);
    if (section) {
      block = { name: section[1] };
      blocks.push(block);
      continue;
    }
    if (block === undefined) continue;
    const e = PY_E_LINE.exec(line);
    if (e && block.detail === undefined) {
      block.detail = e[1].trim();
      continue;
    }
    const loc = PY_LOCATION.exec(line);
    if (loc) {
      // The last frame inside the project is where the failure surfaced.
      block.file = loc[1];
      block.line = int(loc[2]);
      const what = loc[3].trim();
      if (!what.startsWith("in ")) block.exception = what;
    }
  }
  const out: BuildError[] = [];
  const used = new Set<PyBlock>();
  for (const entry of summary) {
    const sep = entry.id.indexOf("::");
    const file = sep === -1 ? entry.id : entry.id.slice(0, sep);
    const testPath = sep === -1 ? "" : entry.id.slice(sep + 2);
    const headerName = entry.kind === "ERROR" && testPath === ""
      ? `ERROR collecting ${file}`
      : testPath.replace(/::/g, ".");
    const match = blocks.find((b) =>
      !used.has(b) && (b.name === headerName || b.name === testPath)
    );
    if (match !== undefined) used.add(match);
    const message = entry.message ?? match?.detail ?? match?.exception ??
      (entry.kind === "ERROR" ? "error collecting tests" : "test failed");
    out.push(make(tool, message, {
      file: match?.file ?? file,
      line: match?.file !== undefined ? match.line : undefined,
      test: sep === -1 ? undefined : entry.id,
    }));
  }
  if (summary.length === 0) {
    // Run with `-rN` or cut short: fall back to the traceback sections.
    for (const b of blocks) {
      if (b.file === undefined && b.detail === undefined) continue;
      out.push(make(tool, b.detail ?? b.exception ?? "test failed", {
        file: b.file,
        line: b.line,
        test: b.name.startsWith("ERROR collecting") ? undefined : b.name,
      }));
    }
  }
  return out;
};

// ---------------------------------------------------------------------------------------------
// Jest

const JEST_FILE = /^\s*(FAIL|PASS)\s+(\S+)/;
const JEST_BULLET = /^\s*● (.+)$/;
const STACK_FRAME = /^\s*at (?:.*? \()?((?:[A-Za-z]:)?[^\s():]+?):(\d+):(\d+)\)?$/;

const parseJest: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  let file: string | undefined;
  let current: BuildError | undefined;
  let wantMessage = false;
  for (const line of lines) {
    const f = JEST_FILE.exec(line);
    if (f && !line.includes(" > ")) {
      file = f[1] === "FAIL" ? f[2] : undefined;
      current = undefined;
      continue;
    }
    const bullet = JEST_BULLET.exec(line);
    if (bullet) {
      const name = bullet[1].trim();
      // `● Console` introduces captured console output, not a failure.
      if (name === "Console") {
        current = undefined;
        continue;
      }
      current = make(tool, "", { test: name === "Test suite failed to run" ? undefined : name });
      if (file !== undefined) current.file = file;
      out.push(current);
      wantMessage = true;
      continue;
    }
    if (current === undefined) continue;
    const trimmed = line.trim();
    if (wantMessage && trimmed !== "") {
      current.message = trimmed;
      wantMessage = false;
      continue;
    }
    const frame = STACK_FRAME.exec(line);
    if (frame && current.line === undefined && !frame[1].includes("node_modules")) {
      current.file = frame[1];
      current.line = int(frame[2]);
      current.column = int(frame[3]);
    }
  }
  return out.map((e) => (e.message === "" ? { ...e, message: "test failed" } : e));
};

// ---------------------------------------------------------------------------------------------
// Vitest

const VITEST_FAIL = /^\s*FAIL\s+(\S+?)(?: > (.+?))?(?: \[ .* \])?\s*$/;
const VITEST_ARROW = /^\s*❯ (?:\S+ )?\(?((?:[A-Za-z]:)?[^\s():]+):(\d+):(\d+)\)?\s*$/;

const parseVitest: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  let current: BuildError | undefined;
  let wantMessage = false;
  for (const line of lines) {
    const fail = VITEST_FAIL.exec(line);
    if (fail) {
      current = make(tool, "", { file: fail[1], test: fail[2] });
      out.push(current);
      wantMessage = true;
      continue;
    }
    if (current === undefined) continue;
    const trimmed = line.trim();
    if (/^⎯+/.test(trimmed)) {
      if (!wantMessage) current = undefined;
      continue;
    }
    if (wantMessage && trimmed !== "") {
      current.message = trimmed;
      wantMessage = false;
      continue;
    }
    const arrow = VITEST_ARROW.exec(line);
    if (arrow && current.line === undefined && !arrow[1].includes("node_modules")) {
      current.file = arrow[1];
      current.line = int(arrow[2]);
      current.column = int(arrow[3]);
    }
  }
  return out.map((e) => (e.message === "" ? { ...e, message: "test failed" } : e));
};

// ---------------------------------------------------------------------------------------------
// deno test

const parseDenoTest: Parser = (lines, tool) => {
  const out: BuildError[] = [];
  const seen = new Set<string>();
  let current: BuildError | undefined;
  let section: "none" | "errors" | "failures" = "none";
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === "ERRORS") {
      section = "errors";
      continue;
    }
    if (trimmed === "FAILURES") {
      section = "failures";
      continue;
    }
    const head = DENO_TEST_HEAD.exec(line);
    if (head) {
      const key = `${head[1]}\u0000${head[2]}:${head[3]}`;
      if (seen.has(key)) {
        current = undefined;
        continue;
      }
      seen.add(key);
      current = make(tool, "", {
        file: fromFileUrl(head[2]),
        line: int(head[3]),
        column: int(head[4]),
        test: head[1],
      });
      out.push(current);
      continue;
    }
    if (current !== undefined && current.message === "" && section !== "failures") {
      const err = DENO_ERROR.exec(line);
      if (err) current.message = err[1];
    }
  }
  return out.map((e) => (e.message === "" ? { ...e, message: "test failed" } : e));
};

// ---------------------------------------------------------------------------------------------

const PARSERS: Readonly<Record<Exclude<BuildTool, "unknown">, Parser>> = {
  tsc: parseTsc,
  deno_check: parseDenoCheck,
  deno_lint: parseRustStyle,
  deno_test: parseDenoTest,
  eslint: parseEslint,
  go: parseGo,
  cargo: parseRustStyle,
  gcc: parseGcc,
  pytest: parsePytest,
  jest: parseJest,
  vitest: parseVitest,
};

/**
 * Extracts the problems reported in a tool's output. The tool is taken from `options.tool`, or
 * detected from the command and the output (several tools when the output mixes them); output
 * no parser recognises is read as generic `file:line:col: error: message` lines.
 *
 * @example
 * ```ts
 * parseBuildErrors("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.");
 * // [{ file: "src/a.ts", line: 3, column: 7, severity: "error", tool: "tsc", code: "TS2322",
 * //    message: "Type 'string' is not assignable to type 'number'." }]
 * ```
 */
export function parseBuildErrors(
  output: string,
  options: ParseBuildErrorsOptions = {},
): BuildError[] {
  const max = options.maxErrors ?? 200;
  const lines = stripAnsi(output).split("\n");
  const tools = options.tool !== undefined && options.tool !== "unknown"
    ? [options.tool]
    : detectTools(options.command ?? "", output);
  const out: BuildError[] = [];
  const seen = new Set<string>();
  const add = (errors: BuildError[]): void => {
    for (const error of errors) {
      const key = `${error.file}:${error.line}:${error.column}:${error.test}:${error.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(error);
      if (out.length >= max) return;
    }
  };
  for (const tool of tools) {
    if (tool === "unknown") continue;
    add(PARSERS[tool](lines, tool));
    if (out.length >= max) return out;
  }
  if (out.length === 0) add(parseGcc(lines, tools[0] ?? "unknown"));
  return out;
}

/**
 * One line for a problem: `file:line:col: [code] message (test)`.
 *
 * @example
 * ```ts
 * formatBuildError({ file: "a.ts", line: 1, column: 2, message: "bad", severity: "error", tool: "tsc" });
 * // "a.ts:1:2: bad"
 * ```
 */
export function formatBuildError(error: BuildError): string {
  let where = "";
  if (error.file !== undefined) {
    where = error.file;
    if (error.line !== undefined) where += `:${error.line}`;
    if (error.line !== undefined && error.column !== undefined) where += `:${error.column}`;
    where += ": ";
  }
  const code = error.code !== undefined ? `${error.code} ` : "";
  const test = error.test !== undefined && !error.message.includes(error.test)
    ? ` (${error.test})`
    : "";
  return `${where}${code}${error.message}${test}`;
}

/** What {@linkcode summarizeErrors} reports. */
export interface ErrorSummary {
  /** Problems of severity `error`. */
  errors: number;
  /** Problems of severity `warning`. */
  warnings: number;
  /** Distinct files named, in order of first appearance. */
  files: string[];
  /** Distinct failing tests, in order of first appearance. */
  tests: string[];
  /** Tools that reported something. */
  tools: BuildTool[];
  /** The first error (or warning when there is no error), formatted. */
  first?: string;
  /** One line: `2 errors, 1 warning in 2 files — a.ts:1:2: bad`, at most `maxChars` long. */
  text: string;
}

/**
 * Counts and condenses a list of problems into one line for a context block or a log.
 *
 * @example
 * ```ts
 * summarizeErrors([]).text; // "no errors"
 * ```
 */
export function summarizeErrors(
  errors: readonly BuildError[],
  options: { maxChars?: number } = {},
): ErrorSummary {
  const maxChars = options.maxChars ?? 200;
  const files: string[] = [];
  const tests: string[] = [];
  const tools: BuildTool[] = [];
  let errorCount = 0;
  let warningCount = 0;
  for (const error of errors) {
    if (error.severity === "error") errorCount++;
    else warningCount++;
    if (error.file !== undefined && !files.includes(error.file)) files.push(error.file);
    if (error.test !== undefined && !tests.includes(error.test)) tests.push(error.test);
    if (!tools.includes(error.tool)) tools.push(error.tool);
  }
  const firstError = errors.find((e) => e.severity === "error") ?? errors[0];
  const first = firstError === undefined ? undefined : formatBuildError(firstError);
  const parts: string[] = [];
  if (errorCount > 0) parts.push(`${errorCount} error${errorCount === 1 ? "" : "s"}`);
  if (warningCount > 0) parts.push(`${warningCount} warning${warningCount === 1 ? "" : "s"}`);
  let text = parts.length === 0 ? "no errors" : parts.join(", ");
  if (files.length > 0) text += ` in ${files.length} file${files.length === 1 ? "" : "s"}`;
  if (first !== undefined) text += ` — ${first}`;
  if (text.length > maxChars) text = `${text.slice(0, Math.max(0, maxChars - 1))}…`;
  const summary: ErrorSummary = {
    errors: errorCount,
    warnings: warningCount,
    files,
    tests,
    tools,
    text,
  };
  if (first !== undefined) summary.first = first;
  return summary;
}
