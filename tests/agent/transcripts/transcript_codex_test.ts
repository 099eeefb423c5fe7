import assert from "node:assert/strict";
import {
  codexSessionIdFromPath,
  createCodexParser,
} from "../../../src/agent/transcripts/transcript_codex.ts";
import {
  findFiles,
  fixtureLines,
  FIXTURES,
  foldLines,
  parseFixture,
} from "../../helpers/transcript_fixtures.ts";

async function rolloutPath(): Promise<string> {
  const files = await findFiles(`${FIXTURES}codex/sessions`, (n) => n.startsWith("rollout-"));
  assert.equal(files.length, 1);
  return files[0];
}

function tokenCount(total: number, input: number, cached: number, output: number): string {
  return JSON.stringify({
    timestamp: "2026-01-02T03:04:05.000Z",
    type: "event_msg",
    payload: {
      type: "token_count",
      info: {
        total_token_usage: {
          input_tokens: input,
          cached_input_tokens: cached,
          output_tokens: output,
          reasoning_output_tokens: 0,
          total_tokens: total,
        },
        model_context_window: 200000,
      },
    },
  });
}

Deno.test("codex fixture: messages, tool calls and cumulative usage as differences", async () => {
  const path = await rolloutPath();
  const sessionId = codexSessionIdFromPath(path);
  assert.ok(sessionId !== undefined);
  const totals = await parseFixture("codex", path);

  assert.equal(totals.lines, 26);
  assert.deepEqual(totals.sessionIds, [sessionId]);
  const session = totals.sessions.get(sessionId);
  assert.equal(session?.cwd, "/home/fixture/project");
  assert.equal(session?.model, "gpt-5");
  const meta = JSON.parse((await fixtureLines(path))[0]);
  assert.equal(session?.started_at, Date.parse(meta.payload.timestamp));

  assert.deepEqual(totals.byType, {
    system: 2,
    user: 1,
    thinking: 1,
    tool_use: 2,
    tool_result: 2,
    assistant: 1,
  });
  assert.equal(totals.toolCalls, 2);
  const user = totals.messages.find((m) => m.message_type === "user");
  assert.equal(user?.text, "Write note.txt saying hello and show it.");

  const uses = totals.messages.filter((m) => m.message_type === "tool_use");
  assert.deepEqual(uses.map((m) => m.tool_name), ["exec_command", "exec_command"]);
  assert.deepEqual(uses.map((m) => m.command_prefix), ["echo", "ls"]);
  assert.deepEqual(uses.map((m) => m.message_key), [
    "call_script_001:call",
    "call_script_002:call",
  ]);
  const results = totals.messages.filter((m) => m.message_type === "tool_result");
  assert.deepEqual(results.map((m) => m.is_error === true), [false, true]);
  assert.deepEqual(results.map((m) => m.tool_use_id), ["call_script_001", "call_script_002"]);

  // Each command's exit code, twice: from item_completed (written before the PostToolUse hook)
  // and from function_call_output (written after it).
  assert.deepEqual(
    totals.outcomes.map((o) => [o.tool_use_id, o.success, o.exit_code]),
    [
      ["call_script_001", true, 0],
      ["call_script_001", true, 0],
      ["call_script_002", false, 2],
      ["call_script_002", false, 2],
    ],
  );
  const failed = totals.outcomes.filter((o) => !o.success);
  assert.ok(failed.every((o) => o.session_id === sessionId));
  assert.deepEqual(failed.map((o) => o.error), [
    "Exit code 2\nls: cannot access 'missing-dir': No such file or directory",
    "Exit code 2\nls: cannot access 'missing-dir': No such file or directory",
  ]);

  // token_count totals 1040 → 2170 → 3382; token_usage_record lines must not add more.
  assert.deepEqual(totals.usage.map((u) => u.usage_key), [
    `${sessionId}:1040`,
    `${sessionId}:2170`,
    `${sessionId}:3382`,
  ]);
  assert.deepEqual(totals.tokens, {
    input: 1400,
    output: 82,
    cacheRead: 1900,
    cacheWrite: 0,
    reasoning: 16,
  });
  assert.ok(totals.usage.every((u) => u.model === "gpt-5" && u.context_window === 258400));
  assert.deepEqual(totals.unknownTypes, []);
  assert.equal(totals.malformedLines, 0);
});

Deno.test("codex fixture: a restart mid-file resumes the cumulative totals", async () => {
  const path = await rolloutPath();
  const lines = await fixtureLines(path);
  const first = createCodexParser({ path });
  const before = foldLines(first, lines.slice(0, 16)); // through the first token_count
  const state = JSON.parse(JSON.stringify(first.saveState()));
  const after = foldLines(createCodexParser({ path, state }), lines.slice(16));
  assert.equal(before.usage.length, 1);
  assert.equal(after.usage.length, 2);
  assert.deepEqual(after.usage.map((u) => [u.input_tokens, u.cache_read_tokens, u.output_tokens]), [
    [200, 900, 30],
    [200, 1000, 12],
  ]);
  assert.ok(after.messages.every((m) => m.cwd === "/home/fixture/project"));
});

Deno.test("codex: info null, repeated snapshots and resets", () => {
  const parser = createCodexParser({
    path:
      "/h/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
  });
  const none = parser.parseLine(
    '{"timestamp":"2026-01-02T03:04:05Z","type":"event_msg","payload":{"type":"token_count","info":null}}',
  );
  assert.equal(none.usage.length, 0);
  assert.equal(none.malformed, false);

  const first = parser.parseLine(tokenCount(100, 90, 0, 10));
  assert.equal(first.usage[0].usage_key, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b:100");
  assert.equal(first.usage[0].input_tokens, 90);
  assert.equal(parser.parseLine(tokenCount(100, 90, 0, 10)).usage.length, 0);
  const second = parser.parseLine(tokenCount(200, 170, 50, 30));
  assert.deepEqual(
    [
      second.usage[0].input_tokens,
      second.usage[0].cache_read_tokens,
      second.usage[0].output_tokens,
    ],
    [30, 50, 20],
  );
  // A smaller total means the counter restarted (e.g. a new process): count it whole.
  const reset = parser.parseLine(tokenCount(40, 30, 0, 10));
  assert.equal(reset.usage[0].input_tokens, 30);
  assert.equal(reset.usage[0].output_tokens, 10);
});

Deno.test("codex: older shapes, sub-agent threads, titles and unknown types", () => {
  const parser = createCodexParser();
  const meta = parser.parseLine(JSON.stringify({
    timestamp: "2026-01-02T03:04:05.000Z",
    type: "session_meta",
    payload: {
      id: "child-1",
      timestamp: "2026-01-02T03:04:05.000Z",
      cwd: "/repo",
      source: { subagent: { thread_spawn: { parent_thread_id: "parent-1", depth: 1 } } },
      git: { branch: "main" },
    },
  }));
  assert.deepEqual(meta.session, {
    agent: "codex",
    session_id: "child-1",
    started_at: Date.parse("2026-01-02T03:04:05.000Z"),
    cwd: "/repo",
    git_branch: "main",
    parent_session_id: "parent-1",
  });

  const shell = parser.parseLine(JSON.stringify({
    type: "response_item",
    payload: {
      type: "function_call",
      name: "shell",
      arguments: JSON.stringify({ command: ["bash", "-lc", "cargo test -p core"] }),
      call_id: "c1",
    },
  }));
  assert.equal(shell.messages[0].command, "cargo test -p core");
  assert.equal(shell.messages[0].command_prefix, "cargo test");

  const output = parser.parseLine(JSON.stringify({
    type: "response_item",
    payload: {
      type: "function_call_output",
      call_id: "c1",
      output: JSON.stringify({ output: "1 failed", metadata: { exit_code: 101 } }),
    },
  }));
  assert.equal(output.messages[0].is_error, true);
  assert.equal(output.messages[0].text, "1 failed");

  const patch = parser.parseLine(JSON.stringify({
    type: "response_item",
    payload: {
      type: "custom_tool_call",
      name: "apply_patch",
      call_id: "c2",
      input: "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** End Patch",
    },
  }));
  assert.equal(patch.messages[0].file_path, "src/a.rs");
  assert.equal(patch.tool_calls, 1);

  const title = parser.parseLine(
    '{"type":"event_msg","payload":{"type":"thread_name_updated","thread_name":"Fix tests"}}',
  );
  assert.equal(title.session?.title, "Fix tests");
  assert.equal(
    parser.parseLine('{"type":"future_record","payload":{}}').unknown_type,
    "future_record",
  );
  assert.equal(parser.parseLine('{"type":"world_state","payload":{}}').unknown_type, undefined);
  assert.equal(parser.parseLine("garbage").malformed, true);
});

Deno.test("codexSessionIdFromPath reads the uuid at the end of a rollout name", () => {
  assert.equal(
    codexSessionIdFromPath(
      "rollout-2026-11-30T18-30-17-01a22db8-d446-75c2-8778-a8048465a522.jsonl",
    ),
    "01a22db8-d446-75c2-8778-a8048465a522",
  );
  assert.equal(codexSessionIdFromPath("/x/notes.jsonl"), undefined);
});

Deno.test("codex: tool outcomes from every record that tells one, and none from the others", () => {
  const parser = createCodexParser({
    path:
      "/h/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl",
  });
  const outcomes = (payload: unknown, type = "event_msg") =>
    parser.parseLine(JSON.stringify({ timestamp: "2026-01-02T03:04:06Z", type, payload }))
      .outcomes.map((o) => ({
        id: o.tool_use_id,
        ok: o.success,
        code: o.exit_code,
        error: o.error,
      }));

  // Older builds: exec_command_end carries the exit code and the output.
  assert.deepEqual(
    outcomes({ type: "exec_command_end", call_id: "c1", exit_code: 1, stderr: "boom\n" }),
    [{ id: "c1", ok: false, code: 1, error: "Exit code 1\nboom" }],
  );
  assert.deepEqual(outcomes({ type: "exec_command_end", call_id: "c2", exit_code: 0 }), [
    { id: "c2", ok: true, code: 0, error: undefined },
  ]);
  assert.deepEqual(
    outcomes({ type: "patch_apply_end", call_id: "p1", success: false, stderr: "no such file" }),
    [{ id: "p1", ok: false, code: undefined, error: "no such file" }],
  );
  // item_completed: an exit code wins; otherwise a tool item's status; other items say nothing.
  assert.deepEqual(
    outcomes({ type: "item_completed", item: { type: "McpToolCall", id: "m1", status: "failed" } }),
    [{ id: "m1", ok: false, code: undefined, error: "failed" }],
  );
  assert.deepEqual(
    outcomes({ item: { type: "FileChange", id: "f1", status: "completed" } }, "item_completed"),
    [{ id: "f1", ok: true, code: undefined, error: undefined }],
  );
  assert.deepEqual(
    outcomes({
      type: "item_completed",
      item: { type: "AgentMessage", id: "a1", status: "failed" },
    }),
    [],
  );
  // Output without an exit code (an unsupported call, a patch result) tells nothing.
  assert.deepEqual(
    outcomes(
      { type: "function_call_output", call_id: "u1", output: "unsupported call" },
      "response_item",
    ),
    [],
  );
  // The older JSON-encoded output with metadata.exit_code.
  assert.deepEqual(
    outcomes(
      {
        type: "function_call_output",
        call_id: "j1",
        output: JSON.stringify({
          output: "fatal: not a git repository\n",
          metadata: { exit_code: 128 },
        }),
      },
      "response_item",
    ),
    [{ id: "j1", ok: false, code: 128, error: "Exit code 128\nfatal: not a git repository" }],
  );
});
