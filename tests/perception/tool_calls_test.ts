import assert from "node:assert/strict";
import type { HookEvent } from "../../src/model/agent_records.ts";
import { editPairs, stableJson, toolCalls, toolKind } from "../../src/perception/tool_calls.ts";
import {
  buildCommandKey,
  isTestCommand,
  normalizeError,
} from "../../src/perception/anomaly_support.ts";
import { contextWindowFor, normalizeModelId } from "../../src/perception/context_windows.ts";
import { call, T0 } from "./anomaly_fixtures.ts";

Deno.test("toolCalls pairs Pre and Post events by id and resolves relative files", () => {
  const events: HookEvent[] = [
    ...call({
      tool: "Edit",
      file: "src/a.ts",
      ts: T0,
      success: false,
      error: "old_string not found",
    }),
    ...call({ tool: "Bash", command: "npm test", ts: T0 + 5000, success: true, output: "ok" }),
  ];
  const calls = toolCalls(events.reverse());
  assert.equal(calls.length, 2);
  assert.deepEqual(
    [
      calls[0].tool_name,
      calls[0].kind,
      calls[0].files,
      calls[0].success,
      calls[0].error,
      calls[0].end_ts,
    ],
    ["Edit", "edit", ["/repo/src/a.ts"], false, "old_string not found", T0 + 1000],
  );
  assert.deepEqual([calls[1].kind, calls[1].command, calls[1].output], ["shell", "npm test", "ok"]);
});

Deno.test("toolCalls pairs id-less events with the latest open call of the same tool", () => {
  const base = { agent: "openclaw" as const, session_id: "s", raw: {} };
  const calls = toolCalls([
    { ...base, event_type: "PreToolUse", tool_name: "exec", command: "ls", ts: 1 },
    { ...base, event_type: "PostToolUse", tool_name: "exec", success: true, ts: 2 },
    {
      ...base,
      event_type: "PostToolUse",
      tool_name: "read",
      file_path: "/x",
      success: true,
      ts: 3,
    },
  ]);
  assert.deepEqual(calls.map((c) => [c.tool_name, c.ts, c.end_ts, c.success]), [
    ["exec", 1, 2, true],
    ["read", 3, 3, true],
  ]);
});

Deno.test("toolKind folds the agents' tool names", () => {
  assert.deepEqual(
    [
      "Edit",
      "apply_patch",
      "str_replace_editor",
      "Read",
      "view",
      "Bash",
      "exec_command",
      "Grep",
      "mcp__x__y",
    ].map(toolKind),
    ["edit", "edit", "edit", "read", "read", "shell", "shell", "search", "other"],
  );
});

Deno.test("editPairs reads Edit, MultiEdit, Write and apply_patch inputs", () => {
  const [edit] = toolCalls(
    call({ tool: "Edit", file: "/r/a.ts", ts: 1, input: { old_string: "a", new_string: "b" } }),
  );
  assert.deepEqual(editPairs(edit), [{ file: "/r/a.ts", old_text: "a", new_text: "b" }]);
  const [multi] = toolCalls(call({
    tool: "MultiEdit",
    file: "/r/a.ts",
    ts: 1,
    input: { edits: [{ old_string: "x", new_string: "y" }, { old_string: "p", new_string: "q" }] },
  }));
  assert.equal(editPairs(multi).length, 2);
  const [write] = toolCalls(
    call({ tool: "Write", file: "/r/b.ts", ts: 1, input: { content: "all" } }),
  );
  assert.deepEqual(editPairs(write), [{ file: "/r/b.ts", old_text: "", new_text: "all" }]);
  const [patch] = toolCalls(call({
    tool: "apply_patch",
    ts: 1,
    input:
      "*** Begin Patch\n*** Update File: src/x.ts\n@@ fn\n-old line\n+new line\n*** Add File: y.ts\n+hello\n*** End Patch",
  }));
  assert.deepEqual(editPairs(patch), [
    { file: "/repo/src/x.ts", old_text: "old line", new_text: "new line" },
    { file: "/repo/y.ts", old_text: "", new_text: "hello" },
  ]);
});

Deno.test("stableJson sorts keys at every level", () => {
  assert.equal(stableJson({ b: 1, a: [2, { d: 3, c: null }] }), '{"a":[2,{"c":null,"d":3}],"b":1}');
  assert.equal(stableJson(undefined), "");
});

Deno.test("buildCommandKey groups build and test commands and ignores the rest", () => {
  assert.equal(buildCommandKey("cd web && npm run build -- --prod"), "npm run build");
  assert.equal(buildCommandKey("npm test"), "npm test");
  assert.equal(buildCommandKey("pnpm exec vitest run"), "vitest");
  assert.equal(buildCommandKey("CI=1 npx jest src"), "jest");
  assert.equal(buildCommandKey("python3 -m pytest -x tests"), "python -m pytest");
  assert.equal(buildCommandKey("uv run pytest"), "pytest");
  assert.equal(buildCommandKey("cargo build --release"), "cargo build");
  assert.equal(buildCommandKey("go test ./..."), "go test");
  assert.equal(buildCommandKey("deno task test"), "deno task test");
  assert.equal(buildCommandKey("make -j8"), "make");
  assert.equal(buildCommandKey("./gradlew test"), "gradlew test");
  assert.equal(buildCommandKey("mypy src"), "mypy");
  assert.equal(buildCommandKey("ls -la"), undefined);
  assert.equal(buildCommandKey("npm install"), undefined);
  assert.equal(buildCommandKey("git commit -m x"), undefined);
  assert.equal(isTestCommand("npm test"), true);
  assert.equal(isTestCommand("go test ./..."), true);
  assert.equal(isTestCommand("cargo build"), false);
  assert.equal(isTestCommand("make check"), false);
});

Deno.test("normalizeError makes reruns of the same error compare equal", () => {
  assert.equal(
    normalizeError("Error at /home/u/app/src/x.ts:10:7: Cannot read properties of undefined"),
    normalizeError("\n  Error at /home/u/app/src/x.ts:12:3: Cannot read properties of undefined\n"),
  );
  assert.notEqual(
    normalizeError("Error: a is not defined"),
    normalizeError("Error: b is not defined"),
  );
  assert.equal(normalizeError("took 123ms, id 0xdeadbeef"), "took <n>ms, id <hex>");
});

Deno.test("contextWindowFor knows the common models and falls back", () => {
  assert.deepEqual(contextWindowFor("claude-opus-4-1-20250805"), { tokens: 200_000, known: true });
  assert.deepEqual(contextWindowFor("claude-sonnet-4-5-20250929[1m]"), {
    tokens: 1_000_000,
    known: true,
  });
  assert.deepEqual(contextWindowFor("us.anthropic.claude-sonnet-4-5-20250929-v1:0"), {
    tokens: 200_000,
    known: true,
  });
  assert.equal(contextWindowFor("openai/gpt-5-codex").tokens, 272_000);
  assert.equal(contextWindowFor("gpt-4.1-mini").tokens, 1_047_576);
  assert.equal(contextWindowFor("gemini-2.5-pro").tokens, 1_048_576);
  assert.deepEqual(contextWindowFor("my-local-model"), { tokens: 200_000, known: false });
  assert.deepEqual(contextWindowFor(undefined), { tokens: 200_000, known: false });
  assert.equal(normalizeModelId("Anthropic/Claude-Haiku-4-5"), "claude-haiku-4-5");
});
