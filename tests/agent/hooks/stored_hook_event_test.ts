/**
 * A stored hook event read back is the event its intake normalized (every
 * field the store keeps, `file_paths` of a multi-file edit included, an
 * outcome a transcript filled in later too), without normalizing the
 * stored payload again.
 */
import assert from "node:assert/strict";
import { normalizeHookPayload } from "../../../src/agent/hooks/hook_normalizer.ts";
import { storedHookEvent } from "../../../src/agent/hooks/stored_hook_event.ts";
import type { AgentName, HookEvent } from "../../../src/model/agent_records.ts";
import { insertHookEvent } from "../../../src/store/agent/events.ts";
import { openDatabase } from "../../../src/store/database.ts";
import { readPerceptionBundle } from "../../../src/store/perception/perception_bundle.ts";
import { recordToolOutcomes } from "../../../src/store/agent/tool_outcomes.ts";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const PATCH = [
  "*** Begin Patch",
  "*** Update File: src/a.ts",
  "@@",
  "-old",
  "+new",
  "*** Add File: src/b.ts",
  "+fresh",
  "*** End Patch",
].join("\n");

/** Payloads of several agents and events, as the hooks send them. */
const CASES: Array<[AgentName, Record<string, unknown>, string?]> = [
  ["claude_code", {
    hook_event_name: "SessionStart",
    source: "startup",
    cwd: "/work/app",
    transcript_path: "/h/.claude/projects/x/s.jsonl",
    model: "claude-sonnet-4-5",
  }],
  ["claude_code", {
    hook_event_name: "UserPromptSubmit",
    cwd: "/work/app",
    prompt: "make the tests pass",
  }],
  ["claude_code", {
    hook_event_name: "PostToolUse",
    cwd: "/work/app",
    tool_name: "Bash",
    tool_use_id: "toolu_1",
    tool_input: { command: "npm test -- --watch=false" },
    tool_response: { stdout: "1 failed", stderr: "", exit_code: 1 },
    duration_ms: 812,
  }],
  ["codex", {
    hook_event_name: "PostToolUse",
    cwd: "/work/app",
    tool_name: "apply_patch",
    tool_use_id: "call_7",
    tool_input: { command: PATCH },
    tool_response: "Success. Updated the following files",
    agent_id: "worker",
  }],
  ["copilot_cli", {
    sessionId: "s1",
    timestamp: NOW + 4, // its own time, the order it came in
    cwd: "/work/app",
    toolName: "edit",
    toolArgs: JSON.stringify({ path: "/work/app/src/c.ts", old_str: "a", new_str: "b" }),
  }, "preToolUse"],
];

/** The event as normalized, minus what the store does not keep in columns. */
function kept(event: HookEvent): HookEvent {
  const copy: HookEvent = { ...event };
  delete copy.transcript_path;
  delete copy.source;
  delete copy.message;
  delete copy.agent_id;
  delete copy.agent_type;
  return copy;
}

Deno.test("stored events read back as their intake normalized them", () => {
  const db = openDatabase(":memory:");
  try {
    const normalized: HookEvent[] = [];
    for (const [i, [agent, payload, eventName]] of CASES.entries()) {
      const result = normalizeHookPayload(agent, { session_id: "s1", ...payload }, NOW + i, {
        eventName,
      });
      assert.ok(result.ok, result.ok ? "" : result.reason);
      assert.ok(insertHookEvent(db, result.event, `d${i}`, NOW + i));
      normalized.push(result.event);
    }
    assert.deepEqual(normalized[3].file_paths, ["src/a.ts", "src/b.ts"]);
    // The transcript tells how the patch went after its hook was stored.
    recordToolOutcomes(db, [{
      agent: "codex",
      session_id: "s1",
      tool_use_id: "call_7",
      ts: NOW + 10,
      success: false,
      exit_code: 1,
      error: "patch did not apply",
    }]);
    normalized[3].success = false;
    normalized[3].error = "patch did not apply";

    const rows = readPerceptionBundle(db, {
      session_id: "s1",
      since: NOW - 1,
      events: 100,
      fileChanges: 0,
      rules: false,
    }).events ?? [];
    assert.equal(rows.length, CASES.length);
    const back = rows.map(storedHookEvent);
    assert.deepEqual(back, normalized.map(kept));
  } finally {
    db.close();
  }
});

Deno.test("a row no intake could have written is skipped", () => {
  const row = {
    agent: "claude_code",
    session_id: "s1",
    cwd: null,
    project: null,
    event_type: "Stop",
    ts: NOW,
    tool_name: null,
    tool_use_id: null,
    file_path: null,
    command: null,
    command_prefix: null,
    success: null,
    error: null,
    duration_ms: null,
    prompt: null,
    model: null,
    raw: "{}",
  };
  assert.deepEqual(storedHookEvent(row), {
    agent: "claude_code",
    session_id: "s1",
    event_type: "Stop",
    ts: NOW,
    raw: {},
  });
  assert.equal(storedHookEvent({ ...row, agent: "vim" }), undefined);
  assert.equal(storedHookEvent({ ...row, raw: "[1]" }), undefined);
  assert.equal(storedHookEvent({ ...row, raw: "{torn" }), undefined);
});
