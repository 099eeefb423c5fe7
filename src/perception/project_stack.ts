/**
 * What a project builds and tests with, read from its manifests: the build
 * systems, test frameworks and the commands that build, test and lint it.
 * The project's own entry points (make and just targets, package scripts,
 * deno tasks) come first, then each ecosystem's conventions. Manifests are
 * read, never executed.
 *
 * @module
 */

import { basename } from "node:path";

/** Manifest file names, each with the build system it implies. */
export const MANIFESTS: Readonly<Record<string, string>> = {
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

/** What the file scan found that the stack is read from. */
export interface StackFacts {
  /** The project root (absolute). */
  root: string;
  /** Names of the files and folders at the root. */
  names: ReadonlySet<string>;
  /** Manifests found near the root, relative to it. */
  manifests: readonly string[];
  /** Files per language. */
  languageCounts: ReadonlyMap<string, number>;
  /** Where tests live (`src/**\/*.test.ts`), with how many files each. */
  testPatterns: ReadonlyMap<string, number>;
  /** The main language, when one was found. */
  primaryLanguage?: string;
}

/** The build systems, test frameworks and commands of a project, most specific first. */
export interface ProjectStack {
  /** Build systems and package managers. */
  build_systems: string[];
  /** Test frameworks. */
  test_frameworks: string[];
  /** Commands that build the project. */
  build_commands: string[];
  /** Commands that run its tests. */
  test_commands: string[];
  /** Commands that lint it. */
  lint_commands: string[];
}

/**
 * Reads the stack of the project `facts` describe from its manifests.
 *
 * @example
 * ```ts ignore
 * const stack = await detectStack({ root: "/p", names: new Set(["go.mod"]), manifests: ["go.mod"],
 *   languageCounts: new Map([["Go", 3]]), testPatterns: new Map() });
 * stack.test_commands; // ["go test ./..."]
 * ```
 */
export async function detectStack(facts: StackFacts): Promise<ProjectStack> {
  const { names, manifests, languageCounts, testPatterns } = facts;
  const has = (name: string): boolean => names.has(name);
  const path = (name: string): string => `${facts.root}/${name}`;
  const buildSystems = new OrderedSet();
  const frameworks = new OrderedSet();
  const build = new OrderedSet();
  const test = new OrderedSet();
  const lint = new OrderedSet();

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
    has("requirements.txt") || has("Pipfile") || facts.primaryLanguage === "Python";
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
  return {
    build_systems: buildSystems.items,
    test_frameworks: frameworks.items,
    build_commands: build.items,
    test_commands: test.items,
    lint_commands: lint.items,
  };
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
