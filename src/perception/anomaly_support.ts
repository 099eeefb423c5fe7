/**
 * Helpers the anomaly rules share: build/test attempts gathered from shell calls and build
 * sensor runs, error-text normalisation, fingerprints, and short human wording.
 *
 * @module
 */

import { type BuildError, detectTool, parseBuildErrors } from "./build_errors.ts";
import type { AnomalyFinding, SessionActivity } from "./anomaly_types.ts";
import { baseNameOf, type ToolCall, toolCalls } from "./tool_calls.ts";

/** One run of a build, lint or test command, from a shell tool call or the build sensor. */
export interface Attempt {
  /** When the attempt finished, ms since the epoch. */
  ts: number;
  /** The command as run. */
  command: string;
  /** Grouping key: the program and its subcommand (`npm test`, `cargo build`, `pytest`). */
  key: string;
  /** Exit code 0 / tool success. */
  ok: boolean;
  /** Test runner rather than compiler/linter. */
  test: boolean;
  /** Problems parsed from its output. */
  errors: BuildError[];
  /** Error text (first lines) for quoting. */
  text: string;
  /** Where the attempt was observed. */
  source: "shell" | "build";
}

// Programs that build, lint or test (beyond those `detectTool` knows by name). The first set
// takes a subcommand worth keeping in the key (`make test`, `gradle build`).
const BUILD_PROGRAMS_WITH_SUBCOMMAND = new Set([
  "make",
  "mvn",
  "mvnw",
  "gradle",
  "gradlew",
  "dotnet",
  "mix",
  "swift",
  "zig",
  "just",
  "bazel",
  "bazelisk",
  "turbo",
  "nx",
  "sbt",
  "ruff",
  "biome",
  "lerna",
]);
const BUILD_PROGRAMS = new Set([
  "cmake",
  "ninja",
  "msbuild",
  "tox",
  "nox",
  "mypy",
  "pyright",
  "flake8",
  "pylint",
  "mocha",
  "rspec",
  "phpunit",
  "ctest",
  "prettier",
  "webpack",
  "vite",
  "rollup",
  "esbuild",
]);

// Subcommands of package runners that mean build/lint/test.
const RUNNER_SCRIPTS =
  /^(?:build|compile|test|tests|check|lint|typecheck|type-check|tsc|verify|ci|e2e|test:\S+|build:\S+|lint:\S+)$/;

const TEST_WORDS =
  /(^|[\s:/])(test|tests|spec|pytest|jest|vitest|mocha|rspec|phpunit|ctest|nextest|unittest|e2e)(\b|$)/;

function words(command: string): string[] {
  // The part after the last `cd … &&` is the command that matters.
  const segments = command.split(/&&|;|\|\|/).map((s) => s.trim()).filter((s) => s !== "");
  const main = segments.find((s) => !/^(cd|export|source|\.|set)\s/.test(s)) ?? segments[0] ?? "";
  const list = main.split(/\s+/).filter((w) => w !== "");
  let i = 0;
  while (
    i < list.length &&
    (/^[A-Za-z_][A-Za-z0-9_]*=/.test(list[i]) || /^(sudo|time|env|nice|command)$/.test(list[i]))
  ) {
    i++;
  }
  return list.slice(i);
}

function programOf(word: string): string {
  return baseNameOf(word).replace(/\.(exe|cmd|bat)$/i, "");
}

/**
 * The grouping key of a command: program plus subcommand (`npm run build`, `go test`,
 * `pytest`), or undefined when it is not a build, lint or test command.
 *
 * @example
 * ```ts
 * buildCommandKey("cd web && npm run build -- --prod"); // "npm run build"
 * buildCommandKey("python -m pytest tests/a.py");       // "python -m pytest"
 * buildCommandKey("ls -la");                            // undefined
 * ```
 */
export function buildCommandKey(command: string): string | undefined {
  const w = words(command);
  if (w.length === 0) return undefined;
  const program = programOf(w[0]);
  const sub = w[1];
  if (["npm", "pnpm", "yarn", "bun"].includes(program)) {
    if (sub === "run" && w[2] !== undefined && RUNNER_SCRIPTS.test(w[2])) {
      return `${program} run ${w[2]}`;
    }
    if (sub !== undefined && (RUNNER_SCRIPTS.test(sub) || sub === "t")) return `${program} ${sub}`;
    if (sub === "exec" || sub === "dlx" || sub === "x") {
      return buildCommandKey(w.slice(2).join(" "));
    }
    return undefined;
  }
  if (["npx", "bunx", "pnpx"].includes(program)) return buildCommandKey(w.slice(1).join(" "));
  if (program === "deno") {
    if (sub === "task" && w[2] !== undefined && RUNNER_SCRIPTS.test(w[2])) {
      return `deno task ${w[2]}`;
    }
    if (sub !== undefined && ["check", "test", "lint", "fmt", "compile", "bench"].includes(sub)) {
      return `deno ${sub}`;
    }
    return undefined;
  }
  if (program === "go" || program === "cargo") {
    const ok = ["build", "test", "vet", "check", "clippy", "run", "install", "nextest", "bench"];
    return sub !== undefined && ok.includes(sub) ? `${program} ${sub}` : undefined;
  }
  if (/^python[\d.]*$/.test(program) && sub === "-m" && w[2] !== undefined) {
    return ["pytest", "unittest", "mypy", "ruff", "build", "tox"].includes(w[2])
      ? `python -m ${w[2]}`
      : undefined;
  }
  if (["uv", "poetry", "pipenv"].includes(program) && sub === "run") {
    return buildCommandKey(w.slice(2).join(" "));
  }
  if (BUILD_PROGRAMS_WITH_SUBCOMMAND.has(program)) {
    return sub !== undefined && /^[a-z][\w:-]*$/.test(sub) ? `${program} ${sub}` : program;
  }
  if (BUILD_PROGRAMS.has(program) || detectTool(w) !== "unknown") return program;
  return undefined;
}

/** Whether a build command runs tests. */
export function isTestCommand(command: string): boolean {
  const key = buildCommandKey(command);
  if (key === undefined) return false;
  const tool = detectTool(command);
  if (tool === "pytest" || tool === "jest" || tool === "vitest" || tool === "deno_test") {
    return true;
  }
  return TEST_WORDS.test(key);
}

const ERROR_MARKERS =
  /\b(error|Error|ERROR|FAILED|FAIL|failed|panic|panicked|Traceback|Exception|undefined:|cannot|Cannot|not found|No such file)\b/;

/** The first line of `text` that looks like an error (else the first non-empty line). */
export function firstErrorLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const line = lines.find((l) => ERROR_MARKERS.test(l)) ?? lines[0] ?? "";
  return line.length > 240 ? `${line.slice(0, 239)}…` : line;
}

/**
 * Normalises an error text so that "the same error" compares equal across runs: the first
 * error-looking line with paths, line/column numbers, addresses, ids and numbers replaced.
 *
 * @example
 * ```ts
 * normalizeError("src/a.ts:12:5 - error TS2322: Type 'string' is not assignable");
 * // "<path> - error TS<n>: Type 'string' is not assignable"
 * ```
 */
export function normalizeError(text: string): string {
  return firstErrorLine(text)
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>")
    .replace(/(?:[A-Za-z]:)?(?:[\w.@~-]*[/\\])+[\w.@-]+(?::\d+)*/g, "<path>")
    .replace(
      /\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|py|go|rs|c|cc|cpp|h|java|kt|rb|php|cs|swift)(?::\d+)+/g,
      "<path>",
    )
    .replace(/\b0x[0-9a-f]+\b/gi, "<hex>")
    .replace(/\b[0-9a-f]{12,}\b/gi, "<hex>")
    .replace(/\d+(?:\.\d+)?/g, "<n>")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
}

/** The build/lint/test attempts of a session: shell calls with a known outcome plus sensor runs. */
export function collectAttempts(activity: SessionActivity, calls?: readonly ToolCall[]): Attempt[] {
  const attempts: Attempt[] = [];
  for (const call of calls ?? toolCalls(activity.events)) {
    if (call.kind !== "shell" || call.command === undefined || call.success === undefined) continue;
    const key = buildCommandKey(call.command);
    if (key === undefined) continue;
    const text = [call.error ?? "", call.output ?? ""].filter((t) => t !== "").join("\n");
    attempts.push({
      ts: call.end_ts ?? call.ts,
      command: call.command,
      key,
      ok: call.success,
      test: isTestCommand(call.command),
      errors: call.success ? [] : parseBuildErrors(text, { command: call.command, maxErrors: 50 }),
      text,
      source: "shell",
    });
  }
  for (const run of activity.build_runs ?? []) {
    const key = buildCommandKey(run.command_line) ?? run.command_line.slice(0, 60);
    attempts.push({
      ts: run.started_at + run.duration_ms,
      command: run.command_line,
      key,
      ok: run.exit_code === 0,
      test: isTestCommand(run.command_line) || run.tool === "deno_test" || run.tool === "pytest" ||
        run.tool === "jest" || run.tool === "vitest",
      errors: run.errors,
      text: run.output_tail ?? run.errors.map((e) => e.message).join("\n"),
      source: "build",
    });
  }
  return attempts.sort((a, b) => a.ts - b.ts);
}

/** The error line to quote for an attempt. */
export function quoteAttempt(attempt: Attempt): string {
  const error = attempt.errors.find((e) => e.severity === "error") ?? attempt.errors[0];
  if (error !== undefined) {
    const where = error.file !== undefined
      ? `${error.file}${error.line !== undefined ? `:${error.line}` : ""}: `
      : "";
    return clip(`${where}${error.code !== undefined ? `${error.code} ` : ""}${error.message}`, 200);
  }
  return clip(firstErrorLine(attempt.text), 200);
}

/** FNV-1a 32-bit hash as 8 hex digits: short, stable fingerprints. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** `kind:hash(parts)`. */
export function fingerprint(kind: AnomalyFinding["kind"], ...parts: string[]): string {
  return `${kind}:${shortHash(parts.join("\u0000"))}`;
}

/** Cuts text to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const single = text.replace(/\s+/g, " ").trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}

/** `45 s`, `3 min`, `2 h`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `${min} min`;
  return `${Math.round(min / 60)} h`;
}

/** `1.2M`, `84k`, `950`. */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(Math.round(n));
}

/** Lists names, at most `max`, then `+N more`. */
export function listNames(names: readonly string[], max = 3): string {
  if (names.length <= max) return names.join(", ");
  return `${names.slice(0, max).join(", ")} +${names.length - max} more`;
}

/** Whether an error location names `file` (absolute): same path, or a suffix of it. */
export function errorNamesFile(errorFile: string, file: string): boolean {
  const normalized = errorFile.replace(/\\/g, "/").replace(/^\.\//, "");
  if (normalized === file) return true;
  return file.endsWith(`/${normalized}`);
}

// Extensions of files whose edits cannot break a build by themselves.
const DOC_EXTENSIONS = /\.(md|mdx|txt|rst|adoc|png|jpe?g|gif|svg)$/i;

/** Whether a file is documentation (its edit cannot break a build). */
export function isDocFile(path: string): boolean {
  return DOC_EXTENSIONS.test(path);
}

/** Start of the session: given, or its first event. */
export function sessionStart(activity: SessionActivity): number {
  if (activity.started_at !== undefined) return activity.started_at;
  let first = activity.now;
  for (const event of activity.events) if (event.ts < first) first = event.ts;
  return first;
}
