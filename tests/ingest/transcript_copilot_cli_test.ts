import assert from "node:assert/strict";
import {
  copilotSessionIdFromPath,
  createCopilotCliParser,
} from "../../src/ingest/transcript_copilot_cli.ts";
import { findFiles, FIXTURES, parseFixture } from "../helpers/transcript_fixtures.ts";

const SESSION = "6b0f2c1e-9d4a-4f8e-b1c7-2a5e8d3f9c10";

Deno.test("copilot_cli fixture: messages, tool calls and shutdown usage", async () => {
  const [path] = await findFiles(`${FIXTURES}copilot_cli`, (n) => n === "events.jsonl");
  const totals = await parseFixture("copilot_cli", path);

  assert.equal(totals.lines, 18);
  assert.deepEqual(totals.sessionIds, [SESSION]);
  assert.deepEqual(totals.sessions.get(SESSION), {
    agent: "copilot_cli",
    session_id: SESSION,
    started_at: Date.parse("2026-11-29T09:00:00.000Z"),
    cwd: "/home/fixture/webapp",
    model: "claude-sonnet-4.5",
    git_branch: "main",
  });
  assert.deepEqual(totals.byType, {
    user: 1,
    thinking: 1,
    assistant: 2,
    tool_use: 3,
    tool_result: 3,
  });
  assert.equal(totals.toolCalls, 3);

  const uses = totals.messages.filter((m) => m.message_type === "tool_use");
  assert.deepEqual(uses.map((m) => m.tool_name), ["bash", "view", "edit"]);
  assert.equal(uses[0].command_prefix, "npm test");
  assert.equal(uses[1].file_path, "/home/fixture/webapp/src/missing.ts");
  assert.equal(uses[2].file_path, "/home/fixture/webapp/src/sum.ts");
  const results = totals.messages.filter((m) => m.message_type === "tool_result");
  assert.deepEqual(results.map((m) => m.is_error === true), [false, true, false]);
  assert.match(results[1].text, /does not exist/);

  // Per-model totals of the process: the record says how many requests it sums.
  assert.deepEqual(
    totals.usage.map((u) => [u.model, u.input_tokens, u.output_tokens, u.calls ?? 1]),
    [
      ["claude-sonnet-4.5", 18200, 410, 4],
      ["gpt-5-mini", 1500, 20, 1],
    ],
  );
  assert.deepEqual(totals.tokens, {
    input: 19700,
    output: 430,
    cacheRead: 12000,
    cacheWrite: 0,
    reasoning: 0,
  });
  assert.deepEqual(totals.unknownTypes, []);
  assert.equal(totals.malformedLines, 0);
});

Deno.test("copilot_cli: ephemeral events are skipped; session id from the folder", () => {
  const parser = createCopilotCliParser({ path: "/h/.copilot/session-state/abc/events.jsonl" });
  const delta = parser.parseLine(JSON.stringify({
    type: "assistant.message_delta",
    ephemeral: true,
    id: "e0",
    timestamp: "2026-01-02T03:04:05Z",
    data: { deltaContent: "par" },
  }));
  assert.equal(delta.messages.length, 0);
  const user = parser.parseLine(JSON.stringify({
    type: "user.message",
    id: "e1",
    parentId: null,
    timestamp: "2026-01-02T03:04:05Z",
    data: { content: "hello" },
  }));
  assert.equal(user.messages[0].session_id, "abc");
  assert.equal(user.messages[0].message_key, "e1");
  assert.equal(parser.parseLine('{"type":"weird","data":{}}').unknown_type, "weird");
  assert.equal(parser.parseLine('{"type":"session.info","data":{}}').unknown_type, undefined);
  assert.equal(copilotSessionIdFromPath("/h/.copilot/session-state/xyz/events.jsonl"), "xyz");
});
