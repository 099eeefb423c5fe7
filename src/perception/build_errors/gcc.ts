/**
 * gcc and clang diagnostics (notes skipped), linker errors, and the generic
 * `file:line:col: error: message` shape that output no parser recognises is read as.
 *
 * @module
 */
import { int, make, severityOf } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

const GCC_DIAG =
  /^((?:[A-Za-z]:)?[^\s:][^:]*?):(\d+):(?:(\d+):)? (fatal error|error|warning): (.+)$/;
const LD_UNDEFINED = /^(?:(\S+?):\(\S+\): )?(undefined reference to .+)$/;
const LD_ERROR = /^(?:\S*\/)?ld(?:\.\w+)?: (?:error: )?(.+)$/;

/** Reads gcc, clang and linker output; the fallback for output of unknown tools. */
export const parseGcc: Parser = (lines, tool) => {
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

/** gcc and clang in the registry. */
export const gccParser: ToolParser = {
  parse: parseGcc,
  programs: ["gcc", "g++", "cc", "c++", "clang", "clang++"],
  signature:
    /^(?:[A-Za-z]:)?[^\s:][^:\n]*\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|m|mm|cu|ino):\d+:(?:\d+:)? (?:fatal error|error|warning): |undefined reference to /m,
};
