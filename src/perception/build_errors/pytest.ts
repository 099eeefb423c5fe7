/**
 * pytest: the short test summary, matched with the traceback sections for the line and the
 * assertion; collection errors; tracebacks alone when there is no summary.
 *
 * @module
 */
import { int, make } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

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

/** pytest in the registry. */
export const pytestParser: ToolParser = {
  parse: parsePytest,
  programs: ["pytest", "py.test", "python -m pytest"],
  signature:
    /^=+ (?:FAILURES|ERRORS|short test summary info|test session starts) =+$|^(?:FAILED|ERROR) \S+\.py(?:::\S+)?(?: - |$)/m,
};
