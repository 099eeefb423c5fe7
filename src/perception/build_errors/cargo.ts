/**
 * rustc and cargo: `error[E0308]: …` heads with their `--> file:line:col` arrows (summaries
 * skipped), and `cargo test` panics in the old and new formats. `deno lint` prints the same
 * layout and is read by the same parser.
 *
 * @module
 */
import { fromFileUrl, int, make, severityOf } from "./helpers.ts";
import type { BuildError, Parser, ToolParser } from "./types.ts";

const RUST_HEAD = /^(error|warning)(?:\[([^\]]+)\])?: (.+)$/;
const RUST_ARROW = /^\s*--> (.+?):(\d+):(\d+)$/;
const RUST_SUMMARY =
  /^(?:could not compile|aborting due to|\d+ warnings? emitted|build failed|test failed, to rerun|`[^`]+` \(.*\) generated \d+ warnings?|Found \d+ problems?|Checked \d+ files?)/;
const RUST_PANIC_NEW = /^thread '([^']+)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$/;
const RUST_PANIC_OLD = /^thread '([^']+)'(?: \(\d+\))? panicked at '(.*)', (.+?):(\d+):(\d+)$/;
const RUST_TEST_STDOUT = /^---- (\S+) stdout ----$/;

/** Reads the rustc diagnostic layout (cargo, rustc, `deno lint`). */
export const parseRustStyle: Parser = (lines, tool) => {
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

/** cargo and rustc in the registry. */
export const cargoParser: ToolParser = {
  parse: parseRustStyle,
  programs: ["cargo", "rustc"],
  signature:
    /^(?:error|warning)(?:\[E\d{4}\])?: .*\n\s*--> |^test result: FAILED|^thread '.*' (?:\(\d+\) )?panicked at /m,
};
