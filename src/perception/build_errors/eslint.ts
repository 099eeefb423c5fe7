/**
 * ESLint: the stylish format (a file's path above its problems) and the compact one.
 *
 * @module
 */
import { int, make, severityOf } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

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

/** ESLint in the registry. */
export const eslintParser: ToolParser = {
  parse: parseEslint,
  programs: ["eslint"],
  signature: /^\s+\d+:\d+\s+(?:error|warning)\s+\S|: line \d+, col \d+, (?:Error|Warning) - /m,
};
