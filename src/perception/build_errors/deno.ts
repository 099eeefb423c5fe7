/**
 * Deno: `deno check` type errors (and module-graph errors) with their file URLs, `deno test`
 * failures (each once, though Deno reports them twice), and `deno lint`, whose diagnostics have
 * rustc's layout.
 *
 * @module
 */
import { parseRustStyle } from "./cargo.ts";
import { fromFileUrl, int, make, severityOf, withTestFailedMessage } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

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
  return withTestFailedMessage(out);
};

/** `deno check` in the registry. */
export const denoCheckParser: ToolParser = {
  parse: parseDenoCheck,
  programs: ["deno check"],
  signature: /^(?:error: )?TS\d+ \[(?:ERROR|WARN(?:ING)?)\]: /m,
};

/** `deno test` in the registry. */
export const denoTestParser: ToolParser = {
  parse: parseDenoTest,
  programs: ["deno test"],
  signature: /^running \d+ tests? from |^(?:ok|FAILED) \| \d+ passed/m,
};

/** `deno lint` in the registry. */
export const denoLintParser: ToolParser = {
  parse: parseRustStyle,
  programs: ["deno lint"],
  signature: /^(?:error|warning)\[[a-z][a-z0-9-]*\]: .*\n\s*--> /m,
};
