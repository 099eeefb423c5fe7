/**
 * The project sensor: what a repository is made of — languages, build system, test framework,
 * where the tests live, the files an agent should read first, and the commands that build and
 * test it — so an agent in a fresh session does not spend twenty tool calls on `ls` and `cat`.
 *
 * The scan is bounded (files, directories, depth), skips ignored directories and never follows
 * symbolic links. Manifests are read, never executed.
 *
 * @module
 */

import { basename, resolve } from "node:path";
import { IgnoreMatcher } from "./ignore_rules.ts";
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

// Manifests: which build system each implies.
const MANIFESTS: Readonly<Record<string, string>> = {
  "package.json": "npm",
  "deno.json": "deno",
  "deno.jsonc": "deno",
  "Cargo.toml": "cargo",
  "go.mod": "go",
  "pyproject.toml": "python",
  "setup.py": "python",
  "setup.cfg": "python",
  "requirements.txt": "pip",
  "Pipfile": "pipenv",
  "Makefile": "make",
  "makefile": "make",
  "GNUmakefile": "make",
  "CMakeLists.txt": "cmake",
  "meson.build": "meson",
  "pom.xml": "maven",
  "build.gradle": "gradle",
  "build.gradle.kts": "gradle",
  "settings.gradle": "gradle",
  "settings.gradle.kts": "gradle",
  "build.sbt": "sbt",
  "Gemfile": "bundler",
  "composer.json": "composer",
  "mix.exs": "mix",
  "Package.swift": "swiftpm",
  "pubspec.yaml": "dart",
  "justfile": "just",
  "Justfile": "just",
  "WORKSPACE": "bazel",
  "WORKSPACE.bazel": "bazel",
  "MODULE.bazel": "bazel",
  "build.zig": "zig",
};

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

/** Strips `//` and `/* *\/` comments and trailing commas so JSONC parses as JSON. */
function parseJsonc(text: string): unknown {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      out += char;
      if (char === "\\") out += text[++i] ?? "";
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (char === "/" && text[i + 1] === "*") {
      i += 2;
      while (i < text.length && !(text[i] === "*" && text[i + 1] === "/")) i++;
      i++;
    } else {
      out += char;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function readText(path: string, maxBytes = 512 * 1024): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > maxBytes) return undefined;
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  const text = await readText(path);
  if (text === undefined) return undefined;
  try {
    const value = parseJsonc(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function recordKeys(value: unknown): string[] {
  return isRecord(value) ? Object.keys(value) : [];
}

// Target names a Makefile / justfile defines at the start of a line (`test:`, `build: deps`).
function makeTargets(text: string): Set<string> {
  const targets = new Set<string>();
  for (const m of text.matchAll(/^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*(?:[^\n=]*?):(?!=)/gm)) {
    targets.add(m[1]);
  }
  return targets;
}

class OrderedSet {
  readonly items: string[] = [];
  add(...values: Array<string | undefined>): void {
    for (const value of values) {
      if (value !== undefined && value !== "" && !this.items.includes(value)) {
        this.items.push(value);
      }
    }
  }
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

  const buildSystems = new OrderedSet();
  const frameworks = new OrderedSet();
  const build = new OrderedSet();
  const test = new OrderedSet();
  const lint = new OrderedSet();
  const has = (name: string): boolean => names.has(name);
  const path = (name: string): string => `${absRoot}/${name}`;

  // The project's own entry points (make/just targets) first: they encode its conventions.
  for (const makefile of ["Makefile", "makefile", "GNUmakefile"]) {
    if (!has(makefile)) continue;
    buildSystems.add("make");
    const targets = makeTargets((await readText(path(makefile))) ?? "");
    if (targets.has("build")) build.add("make build");
    else if (targets.has("all")) build.add("make");
    for (const t of ["test", "check", "tests"]) if (targets.has(t)) test.add(`make ${t}`);
    for (const t of ["lint", "vet", "fmt-check"]) if (targets.has(t)) lint.add(`make ${t}`);
    break;
  }
  for (const justfile of ["justfile", "Justfile"]) {
    if (!has(justfile)) continue;
    buildSystems.add("just");
    const recipes = makeTargets((await readText(path(justfile))) ?? "");
    if (recipes.has("build")) build.add("just build");
    if (recipes.has("test")) test.add("just test");
    if (recipes.has("lint")) lint.add("just lint");
    break;
  }

  // Deno.
  const denoName = has("deno.json") ? "deno.json" : has("deno.jsonc") ? "deno.jsonc" : undefined;
  if (denoName !== undefined) {
    buildSystems.add("deno");
    const deno = (await readJson(path(denoName))) ?? {};
    const tasks = recordKeys(deno.tasks);
    if (tasks.includes("build")) build.add("deno task build");
    build.add("deno check");
    if (tasks.includes("test")) test.add("deno task test");
    test.add("deno test");
    if (tasks.includes("lint")) lint.add("deno task lint");
    lint.add("deno lint");
    frameworks.add("deno test");
  }

  // Node and friends.
  if (has("package.json")) {
    const pkg = (await readJson(path("package.json"))) ?? {};
    const declared = typeof pkg.packageManager === "string" ? pkg.packageManager.split("@")[0] : "";
    const pm = ["pnpm", "yarn", "bun", "npm"].includes(declared)
      ? declared
      : has("pnpm-lock.yaml")
      ? "pnpm"
      : has("yarn.lock")
      ? "yarn"
      : has("bun.lockb") || has("bun.lock")
      ? "bun"
      : "npm";
    buildSystems.add(pm);
    const scripts = isRecord(pkg.scripts) ? pkg.scripts : {};
    const run = (
      script: string,
    ): string => (pm === "npm" ? `npm run ${script}` : `${pm} run ${script}`);
    for (const s of ["build", "compile"]) if (s in scripts) build.add(run(s));
    for (const s of ["typecheck", "type-check", "check"]) if (s in scripts) build.add(run(s));
    if ("test" in scripts) test.add(pm === "bun" ? "bun run test" : `${pm} test`);
    for (const s of ["test:unit", "test:e2e", "e2e"]) if (s in scripts) test.add(run(s));
    for (const s of ["lint", "format:check", "fmt:check"]) if (s in scripts) lint.add(run(s));
    const deps = new Set([
      ...recordKeys(pkg.dependencies),
      ...recordKeys(pkg.devDependencies),
      ...recordKeys(pkg.peerDependencies),
    ]);
    const scriptText = Object.values(scripts).filter((v) => typeof v === "string").join(" ");
    const npmFrameworks: Array<[string, string]> = [
      ["vitest", "vitest"],
      ["jest", "jest"],
      ["mocha", "mocha"],
      ["ava", "ava"],
      ["jasmine", "jasmine"],
      ["@playwright/test", "playwright"],
      ["cypress", "cypress"],
      ["karma", "karma"],
      ["tap", "tap"],
      ["uvu", "uvu"],
    ];
    for (const [dep, framework] of npmFrameworks) {
      if (deps.has(dep) || new RegExp(`(^|[\\s/])${framework}(\\s|$)`).test(scriptText)) {
        frameworks.add(framework);
      }
    }
    if (/\bnode --test\b/.test(scriptText)) frameworks.add("node:test");
    if (/\bbun test\b/.test(scriptText)) frameworks.add("bun test");
    if (deps.has("typescript") && build.items.every((c) => !c.includes(" run "))) {
      build.add("npx tsc --noEmit");
    }
    if (deps.has("eslint") && !lint.items.some((c) => c.includes("lint"))) lint.add("npx eslint .");
  }

  // Rust.
  if (has("Cargo.toml")) {
    buildSystems.add("cargo");
    build.add("cargo build");
    test.add("cargo test");
    lint.add("cargo clippy");
    frameworks.add("cargo test");
  }

  // Go.
  if (has("go.mod")) {
    buildSystems.add("go");
    build.add("go build ./...");
    test.add("go test ./...");
    lint.add("go vet ./...");
    frameworks.add("go test");
  }

  // Python.
  const pyproject = has("pyproject.toml") ? (await readText(path("pyproject.toml"))) ?? "" : "";
  const isPython = pyproject !== "" || has("setup.py") || has("setup.cfg") ||
    has("requirements.txt") || has("Pipfile") || primary?.language === "Python";
  if (isPython) {
    const runner = has("uv.lock")
      ? "uv run "
      : /^\[tool\.poetry\]/m.test(pyproject) || has("poetry.lock")
      ? "poetry run "
      : has("Pipfile")
      ? "pipenv run "
      : "";
    if (runner === "uv run ") buildSystems.add("uv");
    else if (runner === "poetry run ") buildSystems.add("poetry");
    else if (has("Pipfile")) buildSystems.add("pipenv");
    else if (/^\[tool\.hatch/m.test(pyproject)) buildSystems.add("hatch");
    else if (/^\[tool\.pdm/m.test(pyproject)) buildSystems.add("pdm");
    else buildSystems.add("pip");
    const requirements = has("requirements.txt")
      ? (await readText(path("requirements.txt"))) ?? ""
      : "";
    const setupCfg = has("setup.cfg") ? (await readText(path("setup.cfg"))) ?? "" : "";
    const tox = has("tox.ini") ? (await readText(path("tox.ini"))) ?? "" : "";
    const pytest = /^\[tool\.pytest/m.test(pyproject) || has("pytest.ini") || has("conftest.py") ||
      /["'\s]pytest\b/.test(pyproject) || /^pytest\b/m.test(requirements) ||
      /^\[tool:pytest\]/m.test(setupCfg) || /^\[pytest\]/m.test(tox) ||
      [...testPatterns.keys()].some((p) => p.endsWith("test_*.py") || p.endsWith("*_test.py"));
    if (pytest) {
      frameworks.add("pytest");
      test.add(`${runner}pytest`);
    } else if (languageCounts.has("Python")) {
      frameworks.add("unittest");
      test.add(`${runner}python -m unittest`);
    }
    if (/^\[build-system\]/m.test(pyproject)) {
      build.add(runner === "" ? "python -m build" : `${runner}python -m build`);
    }
    if (/^\[tool\.ruff/m.test(pyproject) || has("ruff.toml")) lint.add(`${runner}ruff check .`);
    if (/^\[tool\.mypy/m.test(pyproject) || has("mypy.ini")) lint.add(`${runner}mypy .`);
  }

  // JVM.
  if (has("pom.xml")) {
    buildSystems.add("maven");
    const pom = (await readText(path("pom.xml"))) ?? "";
    build.add(has("mvnw") ? "./mvnw package" : "mvn package");
    test.add(has("mvnw") ? "./mvnw test" : "mvn test");
    if (/junit/i.test(pom)) frameworks.add("junit");
    if (/testng/i.test(pom)) frameworks.add("testng");
  }
  const gradleFile = ["build.gradle.kts", "build.gradle"].find(has);
  if (gradleFile !== undefined || has("settings.gradle") || has("settings.gradle.kts")) {
    buildSystems.add("gradle");
    const gradle = gradleFile !== undefined ? (await readText(path(gradleFile))) ?? "" : "";
    const cmd = has("gradlew") ? "./gradlew" : "gradle";
    build.add(`${cmd} build`);
    test.add(`${cmd} test`);
    if (/junit|useJUnitPlatform/i.test(gradle)) frameworks.add("junit");
  }
  if (has("build.sbt")) {
    buildSystems.add("sbt");
    build.add("sbt compile");
    test.add("sbt test");
  }

  // C / C++.
  if (has("CMakeLists.txt")) {
    buildSystems.add("cmake");
    build.add("cmake -S . -B build && cmake --build build");
    const cmake = (await readText(path("CMakeLists.txt"))) ?? "";
    if (/\b(enable_testing|add_test)\s*\(/i.test(cmake)) {
      frameworks.add("ctest");
      test.add("ctest --test-dir build");
    }
  }
  if (has("meson.build")) {
    buildSystems.add("meson");
    build.add("meson setup build && meson compile -C build");
    test.add("meson test -C build");
  }

  // Everything else with a well-known convention.
  if (has("Gemfile")) {
    buildSystems.add("bundler");
    const gemfile = (await readText(path("Gemfile"))) ?? "";
    if (/rspec/.test(gemfile) || has(".rspec")) {
      frameworks.add("rspec");
      test.add("bundle exec rspec");
    } else {
      frameworks.add("minitest");
      test.add("bundle exec rake test");
    }
  }
  if (has("composer.json")) {
    buildSystems.add("composer");
    const composer = (await readJson(path("composer.json"))) ?? {};
    if ("test" in (isRecord(composer.scripts) ? composer.scripts : {})) test.add("composer test");
    const dev = new Set([...recordKeys(composer.require), ...recordKeys(composer["require-dev"])]);
    if (dev.has("phpunit/phpunit") || has("phpunit.xml") || has("phpunit.xml.dist")) {
      frameworks.add("phpunit");
      test.add("vendor/bin/phpunit");
    }
  }
  if (has("mix.exs")) {
    buildSystems.add("mix");
    build.add("mix compile");
    test.add("mix test");
    frameworks.add("exunit");
  }
  if (has("Package.swift")) {
    buildSystems.add("swiftpm");
    build.add("swift build");
    test.add("swift test");
    frameworks.add("xctest");
  }
  if (has("pubspec.yaml")) {
    const pubspec = (await readText(path("pubspec.yaml"))) ?? "";
    const flutter = /^\s*flutter\s*:/m.test(pubspec);
    buildSystems.add(flutter ? "flutter" : "dart");
    test.add(flutter ? "flutter test" : "dart test");
    frameworks.add(flutter ? "flutter test" : "dart test");
  }
  if (names.has("WORKSPACE") || names.has("WORKSPACE.bazel") || names.has("MODULE.bazel")) {
    buildSystems.add("bazel");
    build.add("bazel build //...");
    test.add("bazel test //...");
  }
  if (has("build.zig")) {
    buildSystems.add("zig");
    build.add("zig build");
    test.add("zig build test");
  }
  if ([...names].some((n) => /\.(sln|csproj|fsproj)$/.test(n))) {
    buildSystems.add("dotnet");
    build.add("dotnet build");
    test.add("dotnet test");
  }

  // Test files of Deno/Go-style names without a manifest still say which runner is meant.
  if (frameworks.items.length === 0) {
    const patterns = [...testPatterns.keys()];
    if (patterns.some((p) => p.endsWith("_test.go"))) frameworks.add("go test");
    if (patterns.some((p) => p.endsWith(".rs"))) frameworks.add("cargo test");
  }

  // A monorepo without root manifests: name what the packages use.
  if (!manifests.some((m) => !m.includes("/"))) {
    for (const manifest of manifests) buildSystems.add(MANIFESTS[basename(manifest)]);
  }

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
    build_systems: buildSystems.items,
    test_frameworks: frameworks.items,
    test_locations: testLocations,
    test_files: testFiles,
    top_level_dirs: topLevelDirs,
    key_files: sortedKeyFiles,
    manifests: manifests.sort().slice(0, 30),
    build_commands: build.items,
    test_commands: test.items,
    lint_commands: lint.items,
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
