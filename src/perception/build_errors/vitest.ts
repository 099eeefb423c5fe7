/**
 * Vitest: each `FAIL file > test` with its message and the first `❯` location outside
 * node_modules.
 *
 * @module
 */
import { locateFailure, make, withTestFailedMessage } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

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
    locateFailure(current, VITEST_ARROW.exec(line));
  }
  return withTestFailedMessage(out);
};

/** Vitest in the registry. */
export const vitestParser: ToolParser = {
  parse: parseVitest,
  programs: ["vitest"],
  signature: /^\s*FAIL\s+\S+ > |^\s*❯ \S+:\d+:\d+\s*$|^\s*Test Files\s+\d+/m,
};
