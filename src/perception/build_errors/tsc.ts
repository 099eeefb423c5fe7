/**
 * TypeScript's `tsc` (and `vue-tsc`): plain `file(line,col): error TSnnnn: …`, `--pretty`
 * `file:line:col - error TSnnnn: …`, and errors without a file.
 *
 * @module
 */
import { int, make, severityOf } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

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

/** `tsc` in the registry. */
export const tscParser: ToolParser = {
  parse: parseTsc,
  programs: ["tsc", "vue-tsc"],
  signature: /\(\d+,\d+\): (?:error|warning) TS\d+: |:\d+:\d+ - (?:error|warning) TS\d+: /,
};
