/**
 * `vantage build [--watch] [--tag T] [--debounce 2s] -- <cmd>`: runs a build
 * or test command with its output passed through unchanged, records the run
 * (exit code, duration, parsed errors) and exits with the command's code.
 *
 * @module
 */
import { resolvePaths } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import { recordBuildRun } from "../perception/build_recorder.ts";
import { type BuildRunRecord, runBuild, watchBuild } from "../perception/build_runner.ts";
import { watchProject } from "../perception/file_watcher.ts";
import { openDatabase } from "../store/database.ts";
import { type Command, parseFlags, writeStderr } from "./command.ts";

/** Parses `500ms`, `2s`, `1m` or a bare number of milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(text.trim());
  if (match === null) {
    throw new VantageError(
      "invalid_arguments",
      `--debounce must look like 500ms, 2s or 1m; got '${text}'`,
    );
  }
  const factor = match[2] === "m" ? 60_000 : match[2] === "s" ? 1000 : 1;
  return Math.round(Number(match[1]) * factor);
}

function summary(run: BuildRunRecord): string {
  const seconds = (run.duration_ms / 1000).toFixed(1);
  if (run.spawn_error !== undefined) return `vantage build: could not start: ${run.spawn_error}`;
  const errors = run.errors.length === 0
    ? ""
    : `, ${run.errors.length} error${run.errors.length > 1 ? "s" : ""} parsed`;
  return `vantage build: exit ${run.exit_code} in ${seconds}s${errors} (recorded${
    run.tag ? ` as '${run.tag}'` : ""
  })`;
}

/** The `build` command. */
export const command: Command = {
  name: "build",
  summary: "Run a build or test command and record its result",
  usage: `Usage: vantage build [options] -- <command> [args…]

Runs the command with its output passed through unchanged, records the run
(tag, exit code, duration, parsed errors for tsc/deno, eslint, go, cargo,
gcc/clang, pytest, jest/vitest and the Deno test runner) and exits with the
command's exit code. Agents see the result through get_build_status.

Options:
  --watch          Run again whenever files in this folder change
  --tag T          Label for this build watcher (default: default)
  --debounce D     Quiet time before a re-run with --watch (default 2s)
  -h, --help       Show this help`,
  async run(args) {
    const split = args.indexOf("--");
    if (split === -1 || split === args.length - 1) {
      throw new VantageError(
        "invalid_arguments",
        "give the command after '--', e.g. vantage build -- deno task test",
      );
    }
    const { values } = parseFlags("build", args.slice(0, split), {
      watch: { type: "boolean" },
      tag: { type: "string" },
      debounce: { type: "string" },
    });
    const argv = args.slice(split + 1);
    const cwd = Deno.cwd();
    const tag = typeof values.tag === "string" ? values.tag : "default";
    const db = openDatabase(resolvePaths().database);
    const stdout = { write: (bytes: Uint8Array) => Deno.stdout.write(bytes) };
    const stderr = { write: (bytes: Uint8Array) => Deno.stderr.write(bytes) };
    try {
      if (values.watch !== true) {
        const run = await runBuild(argv, {
          cwd,
          tag,
          stdout,
          stderr,
          forceColor: Deno.stdout.isTerminal(),
        });
        recordBuildRun(db, run, cwd);
        writeStderr(summary(run));
        return run.exit_code;
      }
      const controller = new AbortController();
      const stop = () => controller.abort();
      Deno.addSignalListener("SIGINT", stop);
      const watcher = await watchProject(cwd);
      try {
        await watchBuild(argv, {
          cwd,
          tag,
          stdout,
          stderr,
          forceColor: Deno.stdout.isTerminal(),
          changes: watcher.batches(),
          debounceMs: typeof values.debounce === "string" ? parseDuration(values.debounce) : 2000,
          signal: controller.signal,
          onStart: () => writeStderr(`vantage build: running ${argv.join(" ")}`),
          onRun: (run) => {
            recordBuildRun(db, run, cwd);
            writeStderr(summary(run) + "; watching for changes (Ctrl-C stops)");
          },
        });
      } finally {
        watcher.close();
        Deno.removeSignalListener("SIGINT", stop);
      }
      return 0;
    } finally {
      db.close();
    }
  },
};
