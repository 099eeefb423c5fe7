/**
 * Jest: each `●` failure with its message and first frame outside node_modules; captured
 * console output is skipped.
 *
 * @module
 */
import { locateFailure, make, withTestFailedMessage } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

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
    locateFailure(current, STACK_FRAME.exec(line));
  }
  return withTestFailedMessage(out);
};

/** Jest in the registry. */
export const jestParser: ToolParser = {
  parse: parseJest,
  programs: ["jest"],
  signature: /^\s*● .+|^Tests:\s+\d+ (?:failed|passed)/m,
};
