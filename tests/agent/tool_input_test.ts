import assert from "node:assert/strict";
import { commandPrefix, isShellTool, patchFiles, toolTarget } from "../../src/agent/tool_input.ts";

Deno.test("commandPrefix names what a command runs", () => {
  const cases: [string, string | undefined][] = [
    ["npm test", "npm test"],
    ["npm run test -- --ci", "npm run test"],
    ["deno task test", "deno task test"],
    ["deno test -A tests/", "deno test"],
    ["git status --short", "git status"],
    ["git -C repo log -1", "git log"],
    ["pytest -x tests/", "pytest"],
    ["python3 -m pytest -q", "python3 -m pytest"],
    ["cd web && CI=1 npm run build", "npm run build"],
    ["FOO=1 BAR=2 cargo test -p core", "cargo test"],
    ["sudo apt-get install -y jq", "apt-get install"],
    ["time go test ./...", "go test"],
    ["/usr/bin/git diff", "git diff"],
    ["./node_modules/.bin/jest --watch", "jest"],
    ["./gradlew build", "./gradlew build"],
    ["uv run pytest", "uv run pytest"],
    ["bundle exec rspec spec/a_spec.rb", "bundle exec rspec"],
    ["make -C sub test", "make test"],
    ["ls | wc -l", "ls"],
    ["echo hi > out.txt && cat out.txt", "echo"],
    ['"my tool" --flag', "my tool"],
    ["cd /tmp", undefined],
    ["", undefined],
  ];
  for (const [command, prefix] of cases) assert.equal(commandPrefix(command), prefix, command);
});

Deno.test("patchFiles lists the files of an apply_patch patch", () => {
  const patch = [
    "*** Begin Patch",
    "*** Update File: src/a.ts",
    "*** Move to: src/b.ts",
    "@@",
    "-x",
    "+y",
    "*** Delete File: old.txt",
    "*** Add File: src/a.ts",
    "+dup",
    "*** End Patch",
  ].join("\n");
  assert.deepEqual(patchFiles(patch), ["src/a.ts", "src/b.ts", "old.txt"]);
  assert.deepEqual(patchFiles("no patch here"), []);
});

Deno.test("toolTarget reads files and commands of every agent's tools", () => {
  assert.deepEqual(toolTarget("Read", { file_path: "/p/a.ts" }), { file_path: "/p/a.ts" });
  assert.deepEqual(toolTarget("view", '{"path":"/p/b.ts"}'), { file_path: "/p/b.ts" });
  assert.deepEqual(toolTarget("exec_command", { cmd: "npm test" }), {
    command: "npm test",
    command_prefix: "npm test",
  });
  assert.deepEqual(toolTarget("shell", { command: ["bash", "-lc", "git status"] }), {
    command: "git status",
    command_prefix: "git status",
  });
  assert.deepEqual(toolTarget("local_shell", { command: ["ls", "-la", "my dir"] }), {
    command: 'ls -la "my dir"',
    command_prefix: "ls",
  });
  assert.deepEqual(toolTarget("apply_patch", "*** Begin Patch\n*** Add File: n.txt\n+x"), {
    file_path: "n.txt",
  });
  assert.deepEqual(
    toolTarget("Bash", {
      command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: q.py\nEOF",
    }),
    {
      command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: q.py\nEOF",
      command_prefix: "apply_patch",
      file_path: "q.py",
    },
  );
  assert.deepEqual(toolTarget("mcp__x__y", { command: "npm test" }), {});
  assert.deepEqual(toolTarget("Bash", "not json"), {});
  assert.deepEqual(toolTarget(undefined, null), {});
  assert.equal(isShellTool("Bash"), true);
  assert.equal(isShellTool("powershell"), true);
  assert.equal(isShellTool("Write"), false);
});
