/**
 * The build sensor: runs a build, lint or test command, passes its output through unchanged,
 * keeps the last megabyte of it, and reports a run record with the parsed errors. A watch loop
 * re-runs the command when files change. Nothing here touches the store: records go to the
 * caller (through the return value or a callback).
 *
 * @module
 */

import { concatBytes } from "../core/bytes.ts";
import {
  type BuildError,
  type BuildTool,
  detectTool,
  parseBuildErrors,
  stripAnsi,
} from "./build_errors.ts";

/** Where passed-through output goes: `Deno.stdout`, a file, or anything with `write`. */
export interface ByteSink {
  /** Writes some bytes; may return how many were written (partial writes are retried). */
  write(chunk: Uint8Array): Promise<number | void> | number | void;
}

/** One finished run of a build command. JSON-safe. */
export interface BuildRunRecord {
  /** argv as run. */
  command: string[];
  /** argv joined with spaces, for display and prefix matching. */
  command_line: string;
  /** Working directory of the run. */
  cwd?: string;
  /** Label given by the caller (`--tag`), to keep several watchers apart. */
  tag?: string;
  /** Start time, ms since the epoch. */
  started_at: number;
  /** Wall time of the run. */
  duration_ms: number;
  /** Exit code; 127 when the program could not be started, 130/143 when aborted. */
  exit_code: number;
  /** Signal that ended the process, when one did. */
  signal?: string;
  /** Tool detected from the command and output. */
  tool: BuildTool;
  /** Problems parsed from the captured output. */
  errors: BuildError[];
  /** Last `tailChars` characters of the combined output, colours stripped. */
  output_tail: string;
  /** Total bytes the command printed on stdout and stderr. */
  output_bytes: number;
  /** More output was printed than was kept for parsing. */
  output_truncated: boolean;
  /** Why the program could not be started, when it could not. */
  spawn_error?: string;
}

/** Options for {@linkcode runBuild}. */
export interface RunBuildOptions {
  /** Working directory. Default: the current one. */
  cwd?: string;
  /** Environment of the child. Default: the parent's. */
  env?: Record<string, string>;
  /** Receives the child's stdout unchanged (e.g. `Deno.stdout`). Default: discarded. */
  stdout?: ByteSink;
  /** Receives the child's stderr unchanged. Default: discarded. */
  stderr?: ByteSink;
  /** Bytes of output kept for parsing (the last ones). Default 1 MiB. */
  maxCaptureBytes?: number;
  /** Characters of output returned in `output_tail`. Default 8192. */
  tailChars?: number;
  /**
   * Ask the child for colours even though its output is a pipe (`FORCE_COLOR`, `CLICOLOR_FORCE`,
   * …). Set it when the sink is a terminal; colours are stripped before parsing anyway.
   */
  forceColor?: boolean;
  /** Label copied into the record (`--tag`). */
  tag?: string;
  /** Stops the child (SIGTERM) when aborted. */
  signal?: AbortSignal;
  /**
   * The child's stdin: `inherit` (default, so interactive builds can prompt) or `null` (for
   * runs started by a server, where stdin belongs to someone else).
   */
  stdin?: "inherit" | "null";
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

const DEFAULT_CAPTURE = 1024 * 1024;

const COLOR_ENV: Readonly<Record<string, string>> = {
  FORCE_COLOR: "1",
  CLICOLOR_FORCE: "1",
  MYPY_FORCE_COLOR: "1",
  PY_COLORS: "1",
  CARGO_TERM_COLOR: "always",
};

/** Keeps the last `limit` bytes written to it, in arrival order. */
class TailBuffer {
  readonly #limit: number;
  #chunks: Uint8Array[] = [];
  #size = 0;
  total = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    if (chunk.length >= this.#limit) {
      this.#chunks = [chunk.slice(chunk.length - this.#limit)];
      this.#size = this.#limit;
      return;
    }
    // Copy: some streams reuse their buffers.
    this.#chunks.push(chunk.slice());
    this.#size += chunk.length;
    while (this.#size - this.#chunks[0].length >= this.#limit) {
      this.#size -= this.#chunks.shift()!.length;
    }
  }

  get truncated(): boolean {
    return this.total > this.#size || this.#size > this.#limit;
  }

  text(): string {
    let bytes = concatBytes(this.#chunks, this.#size);
    if (bytes.length > this.#limit) bytes = bytes.subarray(bytes.length - this.#limit);
    let text = new TextDecoder().decode(bytes);
    // A cut in the middle of a line (or of a UTF-8 sequence) would parse as garbage.
    if (this.truncated) {
      const newline = text.indexOf("\n");
      if (newline !== -1) text = text.slice(newline + 1);
    }
    return text;
  }
}

async function writeAll(sink: ByteSink, chunk: Uint8Array): Promise<void> {
  let rest = chunk;
  while (rest.length > 0) {
    const written = await sink.write(rest);
    if (typeof written !== "number" || written >= rest.length) return;
    rest = rest.subarray(Math.max(written, 0));
  }
}

async function pump(
  stream: ReadableStream<Uint8Array>,
  sink: ByteSink | undefined,
  capture: TailBuffer,
): Promise<void> {
  for await (const chunk of stream) {
    capture.push(chunk);
    if (sink !== undefined) {
      try {
        await writeAll(sink, chunk);
      } catch {
        // A closed terminal must not stop the build or the capture.
      }
    }
  }
}

/**
 * Runs `argv` (no shell: `argv[0]` is the program), streams its output to the given sinks while
 * keeping the last `maxCaptureBytes`, and returns a run record with the parsed errors. Never
 * throws for a failing or missing program: that is what the record reports.
 *
 * @example
 * ```ts
 * const run = await runBuild(["deno", "check", "main.ts"], { stdout: Deno.stdout, stderr: Deno.stderr });
 * run.exit_code; // 0 when the check passed
 * run.errors;    // [{ file, line, column, message, severity, tool: "deno_check", code }]
 * ```
 */
export async function runBuild(
  argv: readonly string[],
  options: RunBuildOptions = {},
): Promise<BuildRunRecord> {
  if (argv.length === 0) throw new TypeError("Cannot run build: the command is empty");
  const now = options.now ?? Date.now;
  const startedAt = now();
  const started = performance.now();
  const command = [...argv];
  const capture = new TailBuffer(options.maxCaptureBytes ?? DEFAULT_CAPTURE);
  const base = {
    command,
    command_line: command.join(" "),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.tag !== undefined ? { tag: options.tag } : {}),
    started_at: startedAt,
  };

  let env: Record<string, string> | undefined = options.env;
  if (options.forceColor) env = { ...(env ?? Deno.env.toObject()), ...COLOR_ENV };

  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command[0], {
      args: command.slice(1),
      cwd: options.cwd,
      env,
      clearEnv: options.env !== undefined,
      stdin: options.stdin ?? "inherit",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const notFound = error instanceof Deno.errors.NotFound;
    return {
      ...base,
      duration_ms: Math.round(performance.now() - started),
      exit_code: notFound ? 127 : 126,
      tool: detectTool(command),
      errors: [{
        message: `cannot run ${command[0]}: ${message}`,
        severity: "error",
        tool: detectTool(command),
      }],
      output_tail: "",
      output_bytes: 0,
      output_truncated: false,
      spawn_error: message,
    };
  }

  const onAbort = (): void => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const [status] = await Promise.all([
      child.status,
      pump(child.stdout, options.stdout, capture),
      pump(child.stderr, options.stderr, capture),
    ]);
    const text = capture.text();
    const tool = detectTool(command, text);
    const plain = stripAnsi(text);
    const tailChars = options.tailChars ?? 8192;
    const record: BuildRunRecord = {
      ...base,
      duration_ms: Math.round(performance.now() - started),
      exit_code: status.signal !== null ? 128 + signalNumber(status.signal) : status.code,
      tool,
      errors: parseBuildErrors(text, { command }),
      output_tail: plain.length > tailChars ? plain.slice(plain.length - tailChars) : plain,
      output_bytes: capture.total,
      output_truncated: capture.truncated,
    };
    if (status.signal !== null) record.signal = status.signal;
    return record;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

function signalNumber(signal: Deno.Signal): number {
  const numbers: Partial<Record<Deno.Signal, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGTERM: 15,
  };
  return numbers[signal] ?? 0;
}

/** Options for {@linkcode watchBuild}. */
export interface WatchBuildOptions extends Omit<RunBuildOptions, "signal"> {
  /** Change notifications (any value counts as "something changed"), e.g. a file watcher's batches. */
  changes: AsyncIterable<unknown>;
  /** Quiet time after the last change before re-running. Default 2000 ms. */
  debounceMs?: number;
  /** Run once before waiting for changes. Default true. */
  runAtStart?: boolean;
  /** Receives every run record (store it, print a summary). Errors thrown here are ignored. */
  onRun: (record: BuildRunRecord) => void | Promise<void>;
  /** Called when a run starts (show "running…"). */
  onStart?: (argv: readonly string[]) => void;
  /** Ends the loop; a running build is stopped. */
  signal?: AbortSignal;
}

/**
 * Runs `argv`, then again each time `changes` yields and stays quiet for `debounceMs`. Changes
 * during a run queue exactly one more run after it. Resolves when `signal` aborts or `changes`
 * ends (after the run in progress finishes). Idle cost is one pending timer at most.
 *
 * @example
 * ```ts
 * const watcher = await watchProject(root, {});
 * await watchBuild(["deno", "test"], {
 *   changes: watcher.batches(),
 *   onRun: (run) => console.log(run.exit_code),
 *   signal: controller.signal,
 * });
 * ```
 */
export async function watchBuild(
  argv: readonly string[],
  options: WatchBuildOptions,
): Promise<void> {
  const debounceMs = options.debounceMs ?? 2000;
  const signal = options.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let rerun = false;
  let runController: AbortController | undefined;

  const runOnce = async (): Promise<void> => {
    runController = new AbortController();
    const stop = (): void => runController?.abort();
    signal?.addEventListener("abort", stop, { once: true });
    try {
      options.onStart?.(argv);
      const record = await runBuild(argv, { ...options, signal: runController.signal });
      try {
        await options.onRun(record);
      } catch {
        // The loop must outlive a failing consumer.
      }
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  };

  const trigger = (): void => {
    if (signal?.aborted) return;
    if (running !== undefined) {
      rerun = true;
      return;
    }
    running = (async () => {
      do {
        rerun = false;
        await runOnce();
      } while (rerun && !signal?.aborted);
      running = undefined;
    })();
  };

  if (options.runAtStart ?? true) trigger();

  const iterator = options.changes[Symbol.asyncIterator]();
  const aborted = new Promise<IteratorResult<unknown>>((resolve) => {
    if (signal?.aborted) resolve({ done: true, value: undefined });
    signal?.addEventListener("abort", () => resolve({ done: true, value: undefined }), {
      once: true,
    });
  });
  try {
    while (!signal?.aborted) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) break;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        trigger();
      }, debounceMs);
    }
  } finally {
    if (timer !== undefined) {
      clearTimeout(timer);
      // The source ended with a change still pending: honour it unless we were stopped.
      if (!signal?.aborted) trigger();
    }
    // Not awaited: an async generator's `return` waits for its pending `next`, which may never
    // settle once we stopped listening.
    iterator.return?.().catch(() => {});
    while (running !== undefined) await running;
  }
}
