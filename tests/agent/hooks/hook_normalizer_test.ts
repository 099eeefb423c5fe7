import assert from "node:assert/strict";
import {
  canonicalEventName,
  normalizeHookPayload,
} from "../../../src/agent/hooks/hook_normalizer.ts";
import type { AgentName, HookEvent } from "../../../src/model/agent_records.ts";
import { FIXTURES } from "../../helpers/transcript_fixtures.ts";

const NOW = Date.parse("2026-01-02T03:04:05.000Z");

function ok(agent: AgentName, payload: unknown, eventName?: string): HookEvent {
  const result = normalizeHookPayload(agent, payload, NOW, { eventName });
  if (!result.ok) throw new Error(`rejected: ${result.reason}`);
  return result.event;
}

async function hookFixture(agent: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(`${FIXTURES}${agent}/hooks.jsonl`);
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("claude_code real hook payloads normalize", async () => {
  const payloads = await hookFixture("claude_code");
  const events = payloads.map((p) => ok("claude_code", p));
  assert.equal(events.length, 16);
  assert.deepEqual(events.map((e) => e.event_type), [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreToolUse",
    "PostToolUse",
    "PreToolUse",
    "PostToolUseFailure",
    "PreToolUse",
    "SubagentStart",
    "PreToolUse",
    "PostToolUse",
    "SubagentStop",
    "PostToolUse",
    "Stop",
    "SessionEnd",
  ]);
  const sessionId = String(payloads[0].session_id);
  assert.ok(events.every((e) => e.session_id === sessionId && e.cwd === "/home/fixture/project"));
  assert.ok(events.every((e) => e.project === "/home/fixture/project" && e.ts === NOW));
  assert.equal(events[0].source, "startup");
  assert.match(events[0].transcript_path ?? "", /\.claude\/projects\/-home-fixture-project\//);
  assert.equal(
    events[1].prompt,
    "Create hello.txt saying hello, then show it and list the folder.",
  );

  const write = events[3];
  assert.equal(write.tool_name, "Write");
  assert.equal(write.file_path, "/home/fixture/project/hello.txt");
  assert.equal(write.success, true);
  assert.equal(typeof write.duration_ms, "number");

  const bash = events[5];
  assert.equal(bash.command, "cat hello.txt && ls");
  assert.equal(bash.command_prefix, "cat");
  assert.equal(bash.success, true);

  const failure = events[7];
  assert.equal(failure.success, false);
  assert.equal(failure.tool_use_id, "toolu_script_003");
  assert.equal(
    failure.error,
    "Exit code 2\nls: cannot access 'missing-dir': No such file or directory",
  );
  assert.equal(failure.command_prefix, "ls");

  // Events fired inside the sub-agent name it.
  assert.deepEqual(
    events.slice(9, 13).map((e) => [e.agent_id !== undefined, e.agent_type]),
    [[true, "general-purpose"], [true, "general-purpose"], [true, "general-purpose"], [
      true,
      "general-purpose",
    ]],
  );
  assert.equal(events[14].message, "Done: hello.txt holds the greeting.");
  assert.equal(events[15].source, "other");
  assert.deepEqual(events[3].raw, payloads[3]);
});

Deno.test("codex real hook payloads normalize; its failed command is not a success", async () => {
  const payloads = await hookFixture("codex");
  const events = payloads.map((p) => ok("codex", p));
  assert.deepEqual(events.map((e) => e.event_type), [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreToolUse",
    "PostToolUse",
    "Stop",
  ]);
  assert.ok(events.every((e) => e.model === "gpt-5"));
  assert.equal(events[2].tool_name, "Bash");
  assert.equal(events[2].command, "echo hello from codex > note.txt && cat note.txt");
  assert.equal(events[2].command_prefix, "echo");
  // Codex hands PostToolUse only the output text, without the exit code: success is unknown
  // rather than a made-up `true` (the rollout has the exit code).
  assert.equal(events[3].success, undefined);
  assert.equal(events[5].success, undefined);
  assert.equal(events[5].tool_use_id, "call_script_002");
});

Deno.test("copilot_cli real hook payloads: a command that exits non-zero is a failure", async () => {
  // Recorded by the real Copilot CLI; its camelCase payloads do not name their event, so the
  // recorder kept the name the hook was registered under beside each payload.
  const recorded = (await hookFixture("copilot_cli")) as Array<
    { event: string; payload: Record<string, unknown> }
  >;
  const events = recorded.map((r) => ok("copilot_cli", r.payload, r.event));
  assert.deepEqual(events.map((e) => e.event_type), [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreToolUse",
    "PostToolUseFailure",
    "PreToolUse",
    "PostToolUseFailure",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionEnd",
  ]);
  const posts = events.filter((e) => e.event_type.startsWith("PostToolUse"));
  assert.deepEqual(posts.map((e) => [e.tool_name, e.success]), [
    ["bash", true],
    ["bash", false],
    ["view", false],
    ["edit", true],
  ]);
  // Copilot reported `ls missing-dir` as `resultType: "success"`; only the exit code at the end
  // of the text it gave the model says otherwise.
  const ls = recorded.find((r) =>
    r.event === "postToolUse" &&
    (r.payload.toolArgs as { command?: string }).command === "ls missing-dir"
  );
  assert.equal((ls?.payload.toolResult as { resultType: string }).resultType, "success");
  assert.equal(
    posts[1].error,
    "Exit code 2\nls: cannot access 'missing-dir': No such file or directory\n" +
      "<shellId: 1 completed with exit code 2>",
  );
  assert.equal(posts[2].error, "Path does not exist");
  assert.ok(events.every((e) => e.cwd === "/home/fixture/project"));
});

Deno.test("copilot_cli shell results: the exit code at the end of the text decides", () => {
  const post = (text: string) =>
    ok("copilot_cli", {
      sessionId: "cp1",
      timestamp: NOW,
      cwd: "/w",
      toolName: "bash",
      toolArgs: { command: "make" },
      toolResult: { resultType: "success", textResultForLlm: text },
    }, "postToolUse");
  assert.equal(post("ok\n<shellId: 3 completed with exit code 0>").success, true);
  assert.equal(post("no\n<exited with exit code 1>").success, false);
  assert.equal(
    post("no\n<shellId: 3 completed with exit code 127>\n").event_type,
    "PostToolUseFailure",
  );
  // The marker only counts at the very end: a command that prints it is not a failure.
  assert.equal(post("<exited with exit code 1>\nbut then fine").success, true);
});

Deno.test("codex apply_patch and exec_command inputs", () => {
  const patch = ok("codex", {
    session_id: "c1",
    hook_event_name: "PreToolUse",
    cwd: "/repo",
    tool_name: "apply_patch",
    tool_input: {
      command:
        "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** Add File: src/b.ts\n+x\n*** End Patch",
    },
  });
  assert.equal(patch.file_path, "src/a.ts");
  assert.deepEqual(patch.file_paths, ["src/a.ts", "src/b.ts"]);
  assert.equal(patch.command, undefined);

  const exec = ok("codex", {
    session_id: "c1",
    hook_event_name: "PostToolUse",
    tool_name: "exec_command",
    tool_input: { cmd: "deno task test --filter x" },
    tool_response: "Chunk ID: 1\nProcess exited with code 1\nOutput:\nFAILED",
  });
  assert.equal(exec.command_prefix, "deno task test");
  assert.equal(exec.event_type, "PostToolUseFailure");
  assert.equal(exec.success, false);
  assert.match(exec.error ?? "", /Process exited with code 1/);

  const mcp = ok("codex", {
    session_id: "c1",
    hook_event_name: "PreToolUse",
    tool_name: "mcp__vantage__search",
    tool_input: { query: "x" },
  });
  assert.equal(mcp.command, undefined);
  assert.equal(mcp.file_path, undefined);

  const notify = ok("codex", {
    type: "agent-turn-complete",
    "thread-id": "t1",
    "turn-id": "u1",
    cwd: "/repo",
    "last-assistant-message": "All done",
  });
  assert.equal(notify.event_type, "Stop");
  assert.equal(notify.session_id, "t1");
  assert.equal(notify.message, "All done");
});

Deno.test("copilot_cli camelCase payloads", () => {
  const pre = ok("copilot_cli", {
    sessionId: "cp1",
    timestamp: 1767323045123,
    cwd: "/w",
    toolName: "bash",
    toolArgs: '{"command":"npm test -- --watch=false","description":"Run tests"}',
  }, "preToolUse");
  assert.equal(pre.event_type, "PreToolUse");
  assert.equal(pre.ts, 1767323045123);
  assert.equal(pre.command, "npm test -- --watch=false");
  assert.equal(pre.command_prefix, "npm test");

  const post = ok("copilot_cli", {
    sessionId: "cp1",
    timestamp: 1767323046000,
    cwd: "/w",
    toolName: "edit",
    toolArgs: '{"path":"/w/src/a.ts","old_str":"a","new_str":"b"}',
    toolResult: { resultType: "success", textResultForLlm: "File updated" },
  }, "postToolUse");
  assert.equal(post.event_type, "PostToolUse");
  assert.equal(post.file_path, "/w/src/a.ts");
  assert.equal(post.success, true);

  const failed = ok("copilot_cli", {
    sessionId: "cp1",
    timestamp: 1767323047000,
    cwd: "/w",
    toolName: "bash",
    toolArgs: '{"command":"pytest -x"}',
    toolResult: { resultType: "failure", textResultForLlm: "1 failed\nE assert 1 == 2" },
  }, "postToolUse");
  assert.equal(failed.event_type, "PostToolUseFailure");
  assert.equal(failed.success, false);
  assert.equal(failed.error, "failure: 1 failed\nE assert 1 == 2");
  assert.equal(failed.command_prefix, "pytest");

  const failure = ok("copilot_cli", {
    sessionId: "cp1",
    timestamp: 1767323048000,
    cwd: "/w",
    toolName: "view",
    toolArgs: '{"path":"/w/missing"}',
    error: "Path does not exist",
  }, "postToolUseFailure");
  assert.equal(failure.success, false);
  assert.equal(failure.error, "Path does not exist");

  const prompt = ok("copilot_cli", {
    sessionId: "cp1",
    timestamp: 1767323049000,
    cwd: "/w",
    prompt: "fix it",
  }, "userPromptSubmitted");
  assert.equal(prompt.event_type, "UserPromptSubmit");
  assert.equal(prompt.prompt, "fix it");

  const stop = ok("copilot_cli", {
    sessionId: "cp1",
    timestamp: 1767323050000,
    cwd: "/w",
    transcriptPath: "/h/.copilot/session-state/cp1/events.jsonl",
    stopReason: "end_turn",
  }, "agentStop");
  assert.equal(stop.event_type, "Stop");
  assert.equal(stop.transcript_path, "/h/.copilot/session-state/cp1/events.jsonl");

  // Without the event name, the fields tell which hook fired.
  const inferred = ["sessionStart", "sessionEnd", "preCompact", "subagentStop", "errorOccurred"];
  const payloads = [
    { source: "startup", initialPrompt: "hi" },
    { reason: "complete" },
    { trigger: "auto", customInstructions: "", transcriptPath: "/t" },
    { agentName: "reviewer", stopReason: "end_turn", transcriptPath: "/t" },
    { error: { message: "boom", name: "Error" }, errorContext: "model_call", recoverable: false },
  ];
  payloads.forEach((extra, i) => {
    const event = ok("copilot_cli", { sessionId: "cp1", timestamp: NOW, cwd: "/w", ...extra });
    assert.equal(event.event_type, canonicalEventName(inferred[i]));
  });
  const error = ok("copilot_cli", {
    sessionId: "cp1",
    cwd: "/w",
    error: { message: "boom", name: "Error" },
    errorContext: "model_call",
  });
  assert.equal(error.error, "boom");
  assert.equal(error.source, "model_call");
});

Deno.test("copilot_cli PascalCase (VS Code compatible) payloads", () => {
  const post = ok("copilot_cli", {
    hook_event_name: "PostToolUse",
    session_id: "cp2",
    timestamp: "2026-01-02T03:04:06.000Z",
    cwd: "/w",
    tool_name: "bash",
    tool_input: { command: "go test ./..." },
    tool_result: { result_type: "error", text_result_for_llm: "--- FAIL: TestX" },
  });
  assert.equal(post.event_type, "PostToolUseFailure");
  assert.equal(post.ts, Date.parse("2026-01-02T03:04:06.000Z"));
  assert.equal(post.command_prefix, "go test");
  assert.equal(post.error, "error: --- FAIL: TestX");

  const denied = ok("copilot_cli", {
    hook_event_name: "PostToolUse",
    session_id: "cp2",
    tool_name: "bash",
    tool_input: { command: "rm -rf /" },
    tool_result: { result_type: "denied", text_result_for_llm: "Denied by policy" },
  });
  assert.equal(denied.success, false);

  const stop = ok("copilot_cli", {
    hook_event_name: "Stop",
    session_id: "cp2",
    timestamp: "2026-01-02T03:04:07.000Z",
    cwd: "/w",
    transcript_path: "/t",
    stop_reason: "end_turn",
  });
  assert.equal(stop.event_type, "Stop");
  assert.equal(stop.message, "end_turn");
});

Deno.test("openclaw plugin payloads", () => {
  const after = ok("openclaw", {
    hook_event_name: "after_tool_call",
    session_id: "oc1",
    session_key: "agent:main:main",
    agent_id: "main",
    cwd: "/n",
    timestamp: 1767323045000,
    tool_name: "exec",
    tool_call_id: "call_1",
    params: { command: "npm run build" },
    result: { isError: true, content: "tsc: error TS2322" },
    duration_ms: 812,
  });
  assert.equal(after.event_type, "PostToolUseFailure");
  assert.equal(after.tool_use_id, "call_1");
  assert.equal(after.command_prefix, "npm run build");
  assert.equal(after.error, "tsc: error TS2322");
  assert.equal(after.duration_ms, 812);

  const write = ok("openclaw", {
    hook_event_name: "before_tool_call",
    session_id: "oc1",
    tool_name: "write",
    params: { path: "/n/TODO.md", content: "x" },
  });
  assert.equal(write.event_type, "PreToolUse");
  assert.equal(write.file_path, "/n/TODO.md");

  const names: Record<string, string> = {
    session_start: "SessionStart",
    session_end: "SessionEnd",
    message_received: "UserPromptSubmit",
    agent_end: "Stop",
    before_compaction: "PreCompact",
    after_compaction: "PostCompact",
    subagent_spawned: "SubagentStart",
    subagent_ended: "SubagentStop",
  };
  for (const [given, canonical] of Object.entries(names)) {
    assert.equal(
      ok("openclaw", { hook_event_name: given, session_id: "oc1" }).event_type,
      canonical,
    );
  }
  const model = ok("openclaw", {
    hook_event_name: "session_start",
    session_key: "agent:main:main",
    model: { id: "anthropic/claude-sonnet-4-5" },
  });
  assert.equal(model.session_id, "agent:main:main");
  assert.equal(model.model, "anthropic/claude-sonnet-4-5");
});

Deno.test("claude_code failure markers inside tool_response", () => {
  const base = { session_id: "s", hook_event_name: "PostToolUse", tool_name: "Bash" };
  const cases: [Record<string, unknown>, string][] = [
    [{ is_error: true, content: "bad" }, "bad"],
    [{ interrupted: true, stdout: "" }, "interrupted"],
    [{ exit_code: 3, stderr: "nope\nmore" }, "Exit code 3\nnope\nmore"],
    [{ exitCode: 1, output: "x" }, "Exit code 1\nx"],
    [{ success: false, error: "denied" }, "denied"],
  ];
  for (const [response, error] of cases) {
    const event = ok("claude_code", { ...base, tool_response: response });
    assert.equal(event.event_type, "PostToolUseFailure", JSON.stringify(response));
    assert.equal(event.success, false);
    assert.equal(event.error, error);
  }
  const fine = ok("claude_code", {
    ...base,
    tool_response: { stdout: "ok", stderr: "", interrupted: false, exit_code: 0 },
  });
  assert.equal(fine.success, true);

  const interrupted = ok("claude_code", {
    session_id: "s",
    hook_event_name: "PostToolUseFailure",
    tool_name: "Bash",
    error: "Exit code 130\n\n\nline a\nline b\nline c",
    is_interrupt: true,
  });
  assert.equal(interrupted.error, "interrupted\nExit code 130\nline a");
});

Deno.test("multi-file and notebook inputs, FileChanged, unknown event names", () => {
  const multi = ok("claude_code", {
    session_id: "s",
    hook_event_name: "PreToolUse",
    tool_name: "MultiEdit",
    tool_input: { file_path: "/p/a.ts", edits: [{ old_string: "a", new_string: "b" }] },
  });
  assert.equal(multi.file_path, "/p/a.ts");
  const notebook = ok("claude_code", {
    session_id: "s",
    hook_event_name: "PreToolUse",
    tool_name: "NotebookEdit",
    tool_input: { notebook_path: "/p/n.ipynb", new_source: "x" },
  });
  assert.equal(notebook.file_path, "/p/n.ipynb");
  const changed = ok("claude_code", {
    session_id: "s",
    hook_event_name: "FileChanged",
    file_path: "/p/.env",
    event: "change",
  });
  assert.equal(changed.event_type, "FileChanged");
  assert.equal(changed.file_path, "/p/.env");
  assert.equal(
    ok("claude_code", { session_id: "s", hook_event_name: "BrandNewEvent" }).event_type,
    "BrandNewEvent",
  );
  assert.equal(
    ok("claude_code", { session_id: "s", hook_event_name: "pretooluse" }).event_type,
    "PreToolUse",
  );
});

Deno.test("rejects unusable payloads with a reason and never throws", () => {
  const rejects: [unknown, RegExp][] = [
    [null, /not an object \(got null\)/],
    [[1, 2], /not an object \(got an array\)/],
    [42, /not an object \(got number\)/],
    ["{broken", /not a JSON object/],
    [{ hook_event_name: "Stop" }, /missing session id/],
    [{ session_id: "", hook_event_name: "Stop" }, /missing session id/],
    [{ session_id: "s" }, /missing hook event name/],
  ];
  for (const [payload, reason] of rejects) {
    const result = normalizeHookPayload("claude_code", payload, NOW);
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, reason);
  }
  const unknownAgent = normalizeHookPayload("vim" as AgentName, { session_id: "s" }, NOW);
  assert.equal(unknownAgent.ok, false);

  // A JSON string is accepted.
  const fromText = normalizeHookPayload(
    "claude_code",
    '{"session_id":"s","hook_event_name":"Stop"}',
    NOW,
  );
  assert.equal(fromText.ok, true);

  // Hostile shapes: wrong types everywhere, deep nesting, cycles.
  const cyclic: Record<string, unknown> = { session_id: "s", hook_event_name: "PostToolUse" };
  cyclic.tool_input = cyclic;
  cyclic.tool_response = { exit_code: "x", is_error: "yes" };
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 5000; i++) deep = { next: deep };
  const weird: unknown[] = [
    cyclic,
    { session_id: 5, hook_event_name: ["x"] },
    { session_id: "s", hook_event_name: "PreToolUse", tool_name: 7, tool_input: "not json {" },
    { session_id: "s", hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: deep },
    { session_id: "s", hook_event_name: "Stop", timestamp: "yesterday", duration_ms: "NaN" },
    { session_id: "s", hook_event_name: "PreToolUse", toolArgs: "[1,2]", toolName: "bash" },
  ];
  for (const payload of weird) {
    assert.doesNotThrow(() => normalizeHookPayload("claude_code", payload, NOW));
  }
  const stop = normalizeHookPayload("claude_code", weird[4], NOW);
  assert.ok(stop.ok && stop.event.ts === NOW && stop.event.duration_ms === undefined);
});

Deno.test("secrets are redacted before extraction; redaction can be turned off", () => {
  const payload = {
    session_id: "s",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: `curl -H "Authorization: Bearer abcdefghijklmnop" https://x` },
    api_key: "super-secret-value",
  };
  const event = ok("claude_code", payload);
  assert.equal(event.command, `curl -H "Authorization: [REDACTED:authorization]" https://x`);
  assert.equal(event.raw.api_key, "[REDACTED:api_key]");
  assert.equal(event.command_prefix, "curl");
  const raw = normalizeHookPayload("claude_code", payload, NOW, { redact: false });
  assert.ok(raw.ok && raw.event.raw.api_key === "super-secret-value");
});
