/**
 * The project sensor: what a repository is made of — languages, build system, test framework,
 * where the tests live, the files an agent should read first, and the commands that build and
 * test it — so an agent in a fresh session does not spend twenty tool calls on `ls` and `cat`.
 *
 * The scan is bounded (files, directories, depth), skips ignored directories and never follows
 * symbolic links. What the manifests it finds say about the build and the tests is read in
 * `project_stack.ts`.
 *
 * @module
 */

import { basename, resolve } from "node:path";
import { IgnoreMatcher } from "./ignore_rules.ts";
import { detectStack, MANIFESTS } from "./project_stack.ts";
import { walkTree } from "./tree_walk.ts";

/** Files of one language found by the scan. */
export interface LanguageCount {
  /** Language name (`TypeScript`, `Go`, …). */
  language: string;
  /** Files with its extensions. */
  files: number;
}

/** What {@linkcode detectProject} found. JSON-safe. */
export interface ProjectState {
  /** Absolute project root. */
  root: string;
  /** Base name of the root. */
  name: string;
  /** Languages by file count, most files first. */
  languages: LanguageCount[];
  /** The language with most files, ignoring markup and shell when others exist. */
  primary_language?: string;
  /** `deno`, `npm`, `pnpm`, `cargo`, `go`, `make`, `cmake`, `maven`, `gradle`, `poetry`, … */
  build_systems: string[];
  /** `deno test`, `jest`, `vitest`, `pytest`, `go test`, `cargo test`, `junit`, … */
  test_frameworks: string[];
  /** Glob-like patterns covering the test files found, most files first (`tests/**\/*_test.ts`). */
  test_locations: string[];
  /** Number of test files found. */
  test_files: number;
  /** Non-ignored top-level directories. */
  top_level_dirs: string[];
  /** Files worth reading first: README, AGENTS.md, CLAUDE.md, CONTRIBUTING, CI workflows, … */
  key_files: string[];
  /** Build manifests found (root-relative), e.g. several `package.json` in a monorepo. */
  manifests: string[];
  /** Commands that build (or type-check) the project, most canonical first. */
  build_commands: string[];
  /** Commands that run the tests, most canonical first. */
  test_commands: string[];
  /** Commands that lint or format-check, most canonical first. */
  lint_commands: string[];
  /** Files seen by the scan. */
  files_scanned: number;
  /** The scan hit a limit; counts are lower bounds. */
  scan_truncated: boolean;
  /** When the scan ran, ms since the epoch. */
  detected_at: number;
}

/** Limits for {@linkcode detectProject}. */
export interface DetectProjectOptions {
  /** Stop counting after this many files. Default 20 000. */
  maxFiles?: number;
  /** Stop after this many directories. Default 5 000. */
  maxDirs?: number;
  /** Do not descend deeper than this. Default 12. */
  maxDepth?: number;
  /** Ignore rules; `.gitignore` files are loaded into it. Default: built-in rules. */
  ignore?: IgnoreMatcher;
  /** Clock, for tests. */
  now?: () => number;
}

const LANGUAGE_BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  cts: "TypeScript",
  js: "JavaScript",
  jsx: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  py: "Python",
  pyi: "Python",
  go: "Go",
  rs: "Rust",
  java: "Java",
  kt: "Kotlin",
  kts: "Kotlin",
  scala: "Scala",
  c: "C",
  h: "C",
  cc: "C++",
  cpp: "C++",
  cxx: "C++",
  hpp: "C++",
  hh: "C++",
  hxx: "C++",
  cs: "C#",
  fs: "F#",
  rb: "Ruby",
  php: "PHP",
  swift: "Swift",
  m: "Objective-C",
  mm: "Objective-C",
  ex: "Elixir",
  exs: "Elixir",
  erl: "Erlang",
  hs: "Haskell",
  ml: "OCaml",
  clj: "Clojure",
  dart: "Dart",
  lua: "Lua",
  sh: "Shell",
  bash: "Shell",
  zsh: "Shell",
  ps1: "PowerShell",
  sql: "SQL",
  html: "HTML",
  css: "CSS",
  scss: "CSS",
  sass: "CSS",
  less: "CSS",
  vue: "Vue",
  svelte: "Svelte",
  zig: "Zig",
  nim: "Nim",
  r: "R",
  jl: "Julia",
  sol: "Solidity",
  tf: "Terraform",
};

// Languages that say little about what the project *is* when others are present.
const SECONDARY_LANGUAGES = new Set(["Shell", "HTML", "CSS", "SQL", "PowerShell"]);

// Test file name shapes, tried in order; the template becomes the glob's last segment.
const TEST_NAME_PATTERNS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^.+_test\.go$/, () => "*_test.go"],
  [/^.+\.(test|spec)\.([cm]?[jt]sx?)$/, (m) => `*.${m[1]}.${m[2]}`],
  [/^.+_test\.([cm]?[jt]sx?)$/, (m) => `*_test.${m[1]}`],
  [/^test_.+\.py$/, () => "test_*.py"],
  [/^.+_test\.py$/, () => "*_test.py"],
  [/^.+_(spec|test)\.rb$/, (m) => `*_${m[1]}.rb`],
  [/^.+(Test|Tests|IT)\.(java|kt|scala)$/, (m) => `*${m[1]}.${m[2]}`],
  [/^.+_test\.exs$/, () => "*_test.exs"],
  [/^.+Test\.php$/, () => "*Test.php"],
  [/^.+_test\.dart$/, () => "*_test.dart"],
  [/^.+Tests?\.cs$/, () => "*Tests.cs"],
  [/^.+_test\.(c|cc|cpp)$/, (m) => `*_test.${m[1]}`],
];

// Names of files an agent should know about, wherever they appear near the root.
const KEY_FILE_PATTERNS: readonly RegExp[] = [
  /^readme(\..+)?$/i,
  /^agents\.md$/i,
  /^claude\.md$/i,
  /^gemini\.md$/i,
  /^conventions\.md$/i,
  /^contributing(\..+)?$/i,
  /^changelog(\..+)?$/i,
  /^security\.md$/i,
  /^(license|licence|copying)(\..+)?$/i,
  /^codeowners$/i,
  /^dockerfile(\..+)?$/i,
  /^.+\.dockerfile$/i,
  /^(docker-)?compose(\..+)?\.ya?ml$/i,
  /^makefile$/i,
  /^justfile$/i,
  /^\.cursorrules$/,
  /^\.windsurfrules$/,
  /^copilot-instructions\.md$/,
  /^\.gitlab-ci\.ya?ml$/,
  /^\.env\.example$/,
];

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

function testTemplate(relPath: string, name: string): string | undefined {
  for (const [regex, template] of TEST_NAME_PATTERNS) {
    const m = regex.exec(name);
    if (m) return template(m);
  }
  const segments = relPath.split("/");
  if (segments.includes("__tests__") && /\.[cm]?[jt]sx?$/.test(name)) {
    return `__tests__/*.${extensionOf(name)}`;
  }
  // Rust integration tests and Go-less `tests/` dirs of compiled languages.
  if (segments[0] === "tests" && segments.length === 2 && name.endsWith(".rs")) return "*.rs";
  return undefined;
}

// `src/a/b/x.test.ts` → `src/**/*.test.ts`; `x.test.ts` → `*.test.ts`.
function testLocation(relPath: string, template: string): string {
  const segments = relPath.split("/");
  if (template.startsWith("__tests__/")) {
    const at = segments.indexOf("__tests__");
    return at === 0 ? template : `${segments[0]}/**/${template}`;
  }
  // `**` also matches no directory at all, so one pattern covers a whole top-level tree.
  return segments.length === 1 ? template : `${segments[0]}/**/${template}`;
}

/**
 * Scans a project root and describes its stack.
 *
 * @example
 * ```ts
 * const state = await detectProject("/work/main");
 * state.primary_language; // "TypeScript"
 * state.test_commands;    // ["deno task test", "deno test"]
 * ```
 */
export async function detectProject(
  root: string,
  options: DetectProjectOptions = {},
): Promise<ProjectState> {
  const absRoot = resolve(root);
  const languageCounts = new Map<string, number>();
  const testPatterns = new Map<string, number>();
  const keyFiles: string[] = [];
  const manifests: string[] = [];
  const names = new Set<string>();
  let testFiles = 0;

  const walk = await walkTree(absRoot, {
    ignore: options.ignore ?? new IgnoreMatcher(),
    maxFiles: options.maxFiles ?? 20_000,
    maxDirs: options.maxDirs ?? 5_000,
    maxDepth: options.maxDepth ?? 12,
    onFile: (relPath, name, depth) => {
      const language = LANGUAGE_BY_EXTENSION[extensionOf(name)];
      if (language !== undefined) {
        languageCounts.set(language, (languageCounts.get(language) ?? 0) + 1);
      }
      const template = testTemplate(relPath, name);
      if (template !== undefined) {
        testFiles++;
        const location = testLocation(relPath, template);
        testPatterns.set(location, (testPatterns.get(location) ?? 0) + 1);
      }
      if (depth === 1) names.add(name);
      if (MANIFESTS[name] !== undefined && depth <= 3) manifests.push(relPath);
      const isWorkflow = /^\.github\/workflows\/[^/]+\.ya?ml$/.test(relPath);
      const nearRoot = depth <= 1 || /^(\.github|docs|\.cursor)\//.test(relPath);
      const agentNotes = /^(agents|claude)\.md$/i.test(name) && depth <= 3;
      if (isWorkflow || agentNotes || (nearRoot && KEY_FILE_PATTERNS.some((p) => p.test(name)))) {
        keyFiles.push(relPath);
      }
    },
  });

  const topLevelDirs = walk.dirs
    .filter((dir) => dir !== "" && !dir.includes("/") && !dir.startsWith("."))
    .sort()
    .slice(0, 24);

  const languages = [...languageCounts.entries()]
    .map(([language, files]) => ({ language, files }))
    .sort((a, b) => b.files - a.files || (a.language < b.language ? -1 : 1));
  const primary = languages.find((l) => !SECONDARY_LANGUAGES.has(l.language)) ?? languages[0];

  const stack = await detectStack({
    root: absRoot,
    names,
    manifests,
    languageCounts,
    testPatterns,
    primaryLanguage: primary?.language,
  });

  const keyOrder = (file: string): number => {
    const name = basename(file).toLowerCase();
    const order = [
      "readme",
      "agents.md",
      "claude.md",
      "gemini.md",
      "conventions.md",
      "contributing",
    ];
    const index = order.findIndex((prefix) => name.startsWith(prefix));
    const depth = file.split("/").length;
    return (index === -1 ? order.length : index) + depth * 10;
  };
  const sortedKeyFiles = [...new Set(keyFiles)]
    .sort((a, b) => keyOrder(a) - keyOrder(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, 40);

  const testLocations = [...testPatterns.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 8)
    .map(([pattern]) => pattern);

  const state: ProjectState = {
    root: absRoot,
    name: basename(absRoot),
    languages,
    build_systems: stack.build_systems,
    test_frameworks: stack.test_frameworks,
    test_locations: testLocations,
    test_files: testFiles,
    top_level_dirs: topLevelDirs,
    key_files: sortedKeyFiles,
    manifests: manifests.sort().slice(0, 30),
    build_commands: stack.build_commands,
    test_commands: stack.test_commands,
    lint_commands: stack.lint_commands,
    files_scanned: walk.files,
    scan_truncated: walk.truncated,
    detected_at: (options.now ?? Date.now)(),
  };
  if (primary !== undefined) state.primary_language = primary.language;
  return state;
}

/**
 * One line for the context block: `TypeScript · build=deno task build · test=deno test`.
 *
 * @example
 * ```ts
 * describeStack({ primary_language: "Go", build_commands: ["go build ./..."],
 *   test_commands: ["go test ./..."] });
 * // "Go · build=go build ./... · test=go test ./..."
 * ```
 */
export function describeStack(
  state: Pick<ProjectState, "primary_language" | "build_commands" | "test_commands">,
): string {
  const parts: string[] = [];
  if (state.primary_language !== undefined) parts.push(state.primary_language);
  if (state.build_commands.length > 0) parts.push(`build=${state.build_commands[0]}`);
  if (state.test_commands.length > 0) parts.push(`test=${state.test_commands[0]}`);
  return parts.join(" · ");
}
