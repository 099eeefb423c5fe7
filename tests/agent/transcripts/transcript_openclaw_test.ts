import assert from "node:assert/strict";
import { costOf } from "../../../src/agent/usage/pricing.ts";
import {
  createOpenClawParser,
  openclawSessionIdFromPath,
} from "../../../src/agent/transcripts/transcript_openclaw.ts";
import {
  findFiles,
  fixtureLines,
  FIXTURES,
  parseFixture,
} from "../../helpers/transcript_fixtures.ts";

Deno.test("openclaw recorded session: messages, tool calls and per-message usage", async () => {
  const [path] = await findFiles(`${FIXTURES}openclaw`, (n) => n.endsWith(".jsonl"));
  const session = openclawSessionIdFromPath(path)!;
  const header = JSON.parse((await fixtureLines(path))[0]);
  const totals = await parseFixture("openclaw", path);

  assert.equal(totals.lines, 19);
  assert.deepEqual(totals.sessionIds, [session]);
  assert.deepEqual(totals.sessions.get(session), {
    agent: "openclaw",
    session_id: session,
    started_at: Date.parse(header.timestamp),
    cwd: "/home/fixture/project",
    model: "gpt-5",
  });
  assert.deepEqual(totals.byType, {
    user: 1,
    thinking: 1,
    tool_use: 4,
    tool_result: 4,
    assistant: 1,
  });
  assert.equal(totals.toolCalls, 4);
  const uses = totals.messages.filter((m) => m.message_type === "tool_use");
  assert.deepEqual(uses.map((m) => m.tool_name), ["read", "exec", "exec", "exec"]);
  assert.deepEqual(uses.map((m) => m.file_path ?? m.command_prefix), [
    "notes.md",
    "echo",
    "ls",
    "seq",
  ]);
  // `ls missing-dir` exited 2: OpenClaw says `isError: false` and puts the exit code in details.
  const results = totals.messages.filter((m) => m.message_type === "tool_result");
  assert.deepEqual(results.map((m) => m.is_error === true), [false, false, true, false]);
  assert.deepEqual(results.map((m) => m.tool_use_id), uses.map((m) => m.tool_use_id));
  assert.match(results[2].text, /\(Command exited with code 2\)$/);
  assert.equal(results[3].text.split("\n").length, 400);

  // Five model calls. OpenClaw reports fresh input and cache reads apart
  // (12000/0, 12200/11800, 12300/12100, 12400/12200, 13900/12300 cached).
  assert.equal(totals.usage.length, 5);
  assert.deepEqual(totals.tokens, {
    input: 14400,
    output: 135,
    cacheRead: 48400,
    cacheWrite: 0,
    reasoning: 14,
  });
  assert.ok(totals.usage.every((u) => u.usage_key.startsWith(`${session}:`)));
  // OpenClaw priced each call with the rates configured for the recording, which are the
  // pricing table's for gpt-5: they must agree call by call.
  for (const usage of totals.usage) {
    const computed = costOf(usage, usage.model);
    assert.ok(computed !== undefined && usage.reported_cost_usd !== undefined);
    assert.ok(Math.abs(computed - usage.reported_cost_usd) < 1e-9);
  }
  const reported = totals.usage.reduce((sum, u) => sum + (u.reported_cost_usd ?? 0), 0);
  assert.ok(Math.abs(reported - 0.0254) < 1e-9);
  assert.deepEqual(totals.unknownTypes, []);
});

Deno.test("openclaw: a command the person ran with ! is a tool call and its result", () => {
  const parser = createOpenClawParser({ path: "/h/.openclaw/agents/main/sessions/abc.jsonl" });
  const records = parser.parseLine(JSON.stringify({
    type: "message",
    id: "b1",
    timestamp: "2026-01-02T03:04:05Z",
    message: { role: "bashExecution", command: "ls -la", output: "x\n", exitCode: 1 },
  }));
  assert.deepEqual(
    records.messages.map((m) => [m.message_type, m.tool_name, m.command_prefix, m.is_error]),
    [["tool_use", "bash", "ls", undefined], ["tool_result", "bash", undefined, true]],
  );
  assert.equal(records.tool_calls, 1);
});

Deno.test("openclaw: file name forms and unknown entries", () => {
  assert.equal(openclawSessionIdFromPath("/h/.openclaw/agents/main/sessions/abc.jsonl"), "abc");
  assert.equal(
    openclawSessionIdFromPath("/h/.openclaw/agents/main/sessions/abc.jsonl.reset.2026-01-02"),
    "abc",
  );
  assert.equal(
    openclawSessionIdFromPath("/h/.openclaw/agents/main/sessions/1767323045_abc.jsonl"),
    "abc",
  );
  assert.equal(
    openclawSessionIdFromPath("/h/.openclaw/agents/main/agent/openclaw-agent.sqlite#abc"),
    "abc",
  );
  const parser = createOpenClawParser({ path: "/h/.openclaw/agents/main/sessions/abc.jsonl" });
  assert.equal(parser.parseLine('{"type":"new_kind","id":"x"}').unknown_type, "new_kind");
  const compaction = parser.parseLine(
    '{"type":"compaction","id":"c1","summary":"Earlier: fixed tests","tokensBefore":90000}',
  );
  assert.equal(compaction.messages[0].message_type, "system");
  assert.equal(compaction.messages[0].session_id, "abc");
});
