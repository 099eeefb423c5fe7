import assert from "node:assert/strict";
import { describeStack, detectProject } from "../../src/perception/project_detect.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "vantage_project_" });
  for (const [rel, text] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return root;
}

async function withTree(
  files: Record<string, string>,
  fn: (root: string) => Promise<void>,
): Promise<void> {
  const root = await tree(files);
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("detectProject describes a pnpm + TypeScript + vitest project", async () => {
  await withTree({
    "package.json": JSON.stringify({
      name: "web",
      scripts: { build: "tsc -b && vite build", test: "vitest run", lint: "eslint ." },
      devDependencies: { typescript: "5", vitest: "2", eslint: "9" },
    }),
    "pnpm-lock.yaml": "",
    "tsconfig.json": "{}",
    "README.md": "# web",
    "AGENTS.md": "rules",
    "CONTRIBUTING.md": "",
    "Dockerfile": "FROM node",
    ".github/workflows/ci.yml": "on: push",
    "src/index.ts": "",
    "src/util/math.ts": "",
    "src/util/math.test.ts": "",
    "src/components/__tests__/Button.tsx": "",
    "src/components/Button.tsx": "",
    "src/legacy.js": "",
    "packages/core/AGENTS.md": "",
    "packages/core/package.json": "{}",
    "node_modules/vitest/index.js": "",
    "dist/index.js": "",
  }, async (root) => {
    const state = await detectProject(root, { now: () => 42 });
    assert.equal(state.primary_language, "TypeScript");
    assert.deepEqual(state.languages, [
      { language: "TypeScript", files: 5 },
      { language: "JavaScript", files: 1 },
    ]);
    assert.deepEqual(state.build_systems, ["pnpm"]);
    assert.deepEqual(state.test_frameworks, ["vitest"]);
    assert.deepEqual(state.build_commands, ["pnpm run build"]);
    assert.deepEqual(state.test_commands, ["pnpm test"]);
    assert.deepEqual(state.lint_commands, ["pnpm run lint"]);
    assert.deepEqual(state.test_locations, ["src/**/*.test.ts", "src/**/__tests__/*.tsx"]);
    assert.equal(state.test_files, 2);
    assert.deepEqual(state.top_level_dirs, ["packages", "src"]);
    assert.deepEqual(state.key_files, [
      "README.md",
      "AGENTS.md",
      "CONTRIBUTING.md",
      "Dockerfile",
      // Instructions for a sub-package matter more than CI configuration.
      "packages/core/AGENTS.md",
      ".github/workflows/ci.yml",
    ]);
    assert.deepEqual(state.manifests, ["package.json", "packages/core/package.json"]);
    assert.equal(state.detected_at, 42);
    assert.equal(state.scan_truncated, false);
    assert.equal(describeStack(state), "TypeScript · build=pnpm run build · test=pnpm test");
    assert.deepEqual(JSON.parse(JSON.stringify(state)), state, "JSON-safe");
  });
});

Deno.test("detectProject reads deno.jsonc tasks and Makefile targets first", async () => {
  await withTree({
    "deno.jsonc":
      '{\n  // tasks\n  "tasks": { "test": "deno test -A", "build": "deno compile main.ts", },\n}\n',
    "Makefile":
      ".PHONY: test\nall: build\nbuild:\n\tdeno task build\ntest: build\n\tdeno task test\nlint:\n\tdeno lint\n",
    "main.ts": "",
    "tests/main_test.ts": "",
    "tests/deep/other_test.ts": "",
    "CLAUDE.md": "",
  }, async (root) => {
    const state = await detectProject(root);
    assert.deepEqual(state.build_systems, ["make", "deno"]);
    assert.deepEqual(state.build_commands, ["make build", "deno task build", "deno check"]);
    assert.deepEqual(state.test_commands, ["make test", "deno task test", "deno test"]);
    assert.deepEqual(state.lint_commands, ["make lint", "deno lint"]);
    assert.deepEqual(state.test_frameworks, ["deno test"]);
    assert.deepEqual(state.test_locations, ["tests/**/*_test.ts"]);
    assert.deepEqual(state.key_files, ["CLAUDE.md", "Makefile"]);
  });
});

Deno.test("detectProject recognises Go, Rust, Python and JVM projects by their manifests", async () => {
  await withTree(
    { "go.mod": "module example.com/x\n", "main.go": "", "pkg/a/a_test.go": "" },
    async (root) => {
      const s = await detectProject(root);
      assert.equal(s.primary_language, "Go");
      assert.deepEqual([s.build_systems, s.test_frameworks, s.test_commands], [
        ["go"],
        ["go test"],
        ["go test ./..."],
      ]);
      assert.deepEqual(s.test_locations, ["pkg/**/*_test.go"]);
    },
  );
  await withTree(
    { "Cargo.toml": "[package]\nname='x'\n", "src/main.rs": "", "tests/it.rs": "" },
    async (root) => {
      const s = await detectProject(root);
      assert.deepEqual([s.build_systems, s.test_frameworks, s.build_commands[0]], [["cargo"], [
        "cargo test",
      ], "cargo build"]);
      assert.deepEqual(s.test_locations, ["tests/**/*.rs"]);
    },
  );
  await withTree({
    "pyproject.toml":
      '[tool.poetry]\nname = "x"\n[tool.pytest.ini_options]\naddopts = "-q"\n[tool.ruff]\n[build-system]\n',
    "poetry.lock": "",
    "app/main.py": "",
    "tests/test_main.py": "",
  }, async (root) => {
    const s = await detectProject(root);
    assert.equal(s.primary_language, "Python");
    assert.deepEqual(s.build_systems, ["poetry"]);
    assert.deepEqual(s.test_frameworks, ["pytest"]);
    assert.deepEqual(s.test_commands, ["poetry run pytest"]);
    assert.deepEqual(s.lint_commands, ["poetry run ruff check ."]);
    assert.deepEqual(s.test_locations, ["tests/**/test_*.py"]);
  });
  await withTree({
    "build.gradle.kts": 'dependencies { testImplementation("org.junit.jupiter:junit-jupiter") }',
    "gradlew": "#!/bin/sh",
    "src/main/kotlin/App.kt": "",
    "src/test/kotlin/AppTest.kt": "",
  }, async (root) => {
    const s = await detectProject(root);
    assert.deepEqual([s.primary_language, s.build_systems, s.test_frameworks], ["Kotlin", [
      "gradle",
    ], ["junit"]]);
    assert.deepEqual(s.test_commands, ["./gradlew test"]);
    assert.deepEqual(s.test_locations, ["src/**/*Test.kt"]);
  });
});

Deno.test("detectProject bounds its scan and honours .gitignore", async () => {
  const files: Record<string, string> = { ".gitignore": "fixtures/\n" };
  for (let i = 0; i < 60; i++) files[`src/f${i}.c`] = "";
  for (let i = 0; i < 30; i++) files[`fixtures/f${i}.py`] = "";
  await withTree(files, async (root) => {
    const full = await detectProject(root);
    assert.deepEqual(full.languages, [{ language: "C", files: 60 }]);
    const limited = await detectProject(root, { maxFiles: 10 });
    assert.equal(limited.scan_truncated, true);
    assert.ok(limited.files_scanned <= 10);
  });
  const empty = await Deno.makeTempDir();
  try {
    const s = await detectProject(empty);
    assert.equal(s.primary_language, undefined);
    assert.deepEqual([s.languages, s.build_systems, s.test_commands], [[], [], []]);
    assert.equal(describeStack(s), "");
  } finally {
    await Deno.remove(empty);
  }
});
