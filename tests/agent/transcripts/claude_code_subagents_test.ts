/**
 * Claude Code sub-agents, compactions and API errors as the parser reads them, on the
 * hand-written `-home-fixture-webapp` session (Claude Code 2.1.39 shapes: two parallel Task
 * calls linked through `agent_progress` records, the compaction agent, a retried and a final
 * API error) and on single lines for the older shapes.
 */
import assert from "node:assert/strict";
import {
  apiErrorText,
  apiRetryText,
  compactionText,
} from "../../../src/agent/transcripts/claude_code_events.ts";
import { internalSubagentType } from "../../../src/agent/transcripts/claude_code_subagents.ts";
import { createClaudeCodeParser } from "../../../src/agent/transcripts/transcript_claude_code.ts";
import type { SessionInfo } from "../../../src/model/agent_records.ts";
import {
  fixtureLines,
  FIXTURES,
  foldLines,
  parseFixture,
} from "../../helpers/transcript_fixtures.ts";

const SESSION = "5f3c9e2a-7b41-4d8e-9a10-3c2b8e6d4f71";
const DIR = `${FIXTURES}claude_code/projects/-home-fixture-webapp/`;
const MAIN = `${DIR}${SESSION}.jsonl`;
const sub = (id: string) => `${DIR}${SESSION}/subagents/agent-${id}.jsonl`;

function linksIn(lines: string[], parser = createClaudeCodeParser({ path: MAIN })): SessionInfo[] {
  return lines.flatMap((line) => parser.parseLine(line).linked_sessions ?? []);
}

Deno.test("webapp main transcript: own records, compaction, API errors, no usage from progress", async () => {
  const totals = await parseFixture("claude_code", MAIN);
  assert.deepEqual(totals.sessionIds, [SESSION]);
  const session = totals.sessions.get(SESSION);
  assert.equal(session?.title, "Fix the failing login test");
  assert.equal(session?.is_subagent, undefined);
  assert.deepEqual(totals.byType, {
    user: 3,
    assistant: 3,
    tool_use: 5,
    tool_result: 5,
    api_error: 2,
    compaction: 1,
    system: 1,
  });
  assert.equal(totals.toolCalls, 5);
  assert.deepEqual(totals.messages.filter((m) => m.message_type === "user").map((m) => m.text), [
    "The login test fails on CI. Find out why and fix it.",
    "Now run the whole suite.",
    "Try again.",
  ]);
  // The summary written after /compact is context for the model, not a prompt.
  const summary = totals.messages.find((m) => m.message_type === "system");
  assert.match(summary?.text ?? "", /^This session is being continued/);
  assert.deepEqual(
    totals.messages.filter((m) => m.message_type === "compaction").map((m) => [m.text, m.ts]),
    [["Conversation compacted (manual, 7614 tokens before)", Date.parse("2026-11-29T10:14:02Z")]],
  );
  assert.deepEqual(
    totals.messages.filter((m) => m.message_type === "api_error").map((m) => m.text),
    [
      "API error, retry 1/10 in 0.6 s: 529 Overloaded",
      "API Error: Rate limit reached [rate_limit, 429]",
    ],
  );
  // Six API responses; the <synthetic> error has none, and the progress record that repeats a
  // sub-agent's response is the sub-agent's to count.
  assert.deepEqual(totals.usage.map((u) => u.usage_key), [
    "msg_01WaLoginFix0001:req_011WaLogin0001",
    "msg_01WaLoginFix0002:req_011WaLogin0002",
    "msg_01WaLoginFix0003:req_011WaLogin0003",
    "msg_01WaLoginFix0004:req_011WaLogin0004",
    "msg_01WaLoginFix0005:req_011WaLogin0005",
    "msg_01WaLoginFix0006:req_011WaLogin0006",
  ]);
  assert.deepEqual(totals.tokens, {
    input: 34,
    output: 838,
    cacheRead: 22810,
    cacheWrite: 9740,
    reasoning: 0,
  });
  assert.deepEqual(totals.unknownTypes, []);
});

Deno.test("webapp main transcript: both Task calls link to their sub-agents through agent_progress", async () => {
  const links = linksIn(await fixtureLines(MAIN));
  const common = {
    agent: "claude_code",
    parent_session_id: SESSION,
    is_subagent: true,
    cwd: "/home/fixture/webapp",
  };
  // Reported once each, at the first record naming the id (the results repeat the same facts);
  // a run starts when its Task call was made.
  assert.deepEqual(links, [
    {
      ...common,
      session_id: `${SESSION}/agent-a1f0c3e`,
      started_at: Date.parse("2026-11-29T10:00:05.002Z"),
      subagent_type: "Explore",
      title: "Find the login test",
    },
    {
      ...common,
      session_id: `${SESSION}/agent-b27d9e4`,
      started_at: Date.parse("2026-11-29T10:00:05.950Z"),
      subagent_type: "general-purpose",
      title: "Check the auth config",
    },
  ]);
});

Deno.test("webapp sub-agent files: own sessions with their own counts", async () => {
  const expected = [
    { id: "a1f0c3e", messages: 7, tools: 2, usage: 3, input: 12, output: 188, type: undefined },
    { id: "b27d9e4", messages: 6, tools: 2, usage: 3, input: 13, output: 181, type: undefined },
    {
      id: "acompact-5e91b2",
      messages: 3,
      tools: 0,
      usage: 1,
      input: 9,
      output: 820,
      type: "compact",
    },
  ];
  for (const want of expected) {
    const totals = await parseFixture("claude_code", sub(want.id));
    const id = `${SESSION}/agent-${want.id}`;
    assert.deepEqual(totals.sessionIds, [id], want.id);
    const session = totals.sessions.get(id);
    assert.equal(session?.parent_session_id, SESSION);
    assert.equal(session?.is_subagent, true);
    // 2.1.39 files do not name their type; the parent's Task call does (see above).
    assert.equal(session?.subagent_type, want.type, want.id);
    assert.equal(totals.messages.length, want.messages, want.id);
    assert.equal(totals.toolCalls, want.tools, want.id);
    assert.equal(totals.usage.length, want.usage, want.id);
    assert.equal(totals.tokens.input, want.input, want.id);
    assert.equal(totals.tokens.output, want.output, want.id);
    assert.ok(totals.messages.every((m) => m.session_id === id && m.subagent_id === want.id));
    assert.ok(totals.usage.every((u) => u.session_id === id && u.subagent_id === want.id));
  }
});

Deno.test("a link survives a restart between the Task call and the records that name the agent", async () => {
  const lines = await fixtureLines(MAIN);
  // Lines 1-5: snapshot, prompt, the message with both Task calls. Then a restart.
  const first = createClaudeCodeParser({ path: MAIN });
  assert.deepEqual(linksIn(lines.slice(0, 5), first), []);
  const state = JSON.parse(JSON.stringify(first.saveState()));
  const resumed = createClaudeCodeParser({ path: MAIN, state });
  const links = linksIn(lines.slice(5), resumed);
  assert.deepEqual(links.map((l) => [l.session_id, l.subagent_type, l.title]), [
    [`${SESSION}/agent-a1f0c3e`, "Explore", "Find the login test"],
    [`${SESSION}/agent-b27d9e4`, "general-purpose", "Check the auth config"],
  ]);
  // And what was reported before a restart is not reported again after it.
  const again = createClaudeCodeParser({
    path: MAIN,
    state: JSON.parse(JSON.stringify(resumed.saveState())),
  });
  assert.deepEqual(linksIn(lines.slice(5), again), []);
});

Deno.test("older results that only say `agentId: <id>` in their text still link", () => {
  const parser = createClaudeCodeParser({ path: "/h/.claude/projects/-p/s1.jsonl" });
  const at = (s: number) => `2026-01-02T03:04:0${s}.000Z`;
  parser.parseLine(JSON.stringify({
    type: "assistant",
    uuid: "u1",
    sessionId: "s1",
    timestamp: at(1),
    message: {
      id: "m1",
      model: "claude-sonnet-4-5",
      content: [{
        type: "tool_use",
        id: "t1",
        name: "Task",
        input: { description: "Plan the change", prompt: "…", subagent_type: "Plan" },
      }],
    },
  }));
  const result = parser.parseLine(JSON.stringify({
    type: "user",
    uuid: "u2",
    sessionId: "s1",
    timestamp: at(5),
    message: {
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "t1",
        content: [{ type: "text", text: "Done.\nagentId: 4f2a9c1 (for resuming)" }],
      }],
    },
  }));
  assert.deepEqual(result.linked_sessions, [{
    agent: "claude_code",
    session_id: "s1/agent-4f2a9c1",
    started_at: Date.parse(at(1)),
    parent_session_id: "s1",
    is_subagent: true,
    subagent_type: "Plan",
    title: "Plan the change",
  }]);
  // A result of any other tool is not read for agent ids.
  const other = parser.parseLine(JSON.stringify({
    type: "user",
    uuid: "u3",
    sessionId: "s1",
    timestamp: at(6),
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t9", content: "agentId: deadbee" }],
    },
  }));
  assert.equal(other.linked_sessions, undefined);
});

Deno.test("summary lines without a time wait for the first timed record", () => {
  const path = "/h/.claude/projects/-p/s2.jsonl";
  const first = createClaudeCodeParser({ path });
  const held = first.parseLine(
    JSON.stringify({ type: "summary", summary: "Login test fixed", leafUuid: "leaf-1" }),
  );
  assert.deepEqual(held.messages, []);
  const resumed = createClaudeCodeParser({
    path,
    state: JSON.parse(JSON.stringify(first.saveState())),
  });
  const timed = foldLines(resumed, [JSON.stringify({
    type: "user",
    uuid: "u1",
    sessionId: "s2",
    timestamp: "2026-03-04T05:06:07.000Z",
    message: { role: "user", content: "next" },
  })]);
  assert.deepEqual(
    timed.messages.map((m) => [m.message_type, m.text, m.ts, m.message_key]),
    [
      ["compaction", "Login test fixed", Date.parse("2026-03-04T05:06:07.000Z"), "summary:leaf-1"],
      ["user", "next", Date.parse("2026-03-04T05:06:07.000Z"), "u1:0"],
    ],
  );
  // Once a time is known, a summary takes the latest one at once.
  const later = resumed.parseLine(
    JSON.stringify({ type: "summary", summary: "Second", leafUuid: "leaf-2" }),
  );
  assert.equal(later.messages[0].ts, Date.parse("2026-03-04T05:06:07.000Z"));
});

Deno.test("side-chain records inside a main transcript keep the session and name their chain", () => {
  const parser = createClaudeCodeParser({ path: "/h/.claude/projects/-p/s3.jsonl" });
  const line = (extra: Record<string, unknown>) =>
    parser.parseLine(JSON.stringify({
      type: "user",
      uuid: crypto.randomUUID(),
      sessionId: "s3",
      timestamp: "2026-03-04T05:06:07.000Z",
      isSidechain: true,
      message: { role: "user", content: "look around" },
      ...extra,
    }));
  assert.deepEqual(
    [line({ agentId: "x9" }).messages[0], line({}).messages[0]].map((m) => [
      m.session_id,
      m.subagent_id,
    ]),
    [["s3", "x9"], ["s3", "sidechain"]],
  );
});

Deno.test("event texts: compaction, retried and failed API calls", () => {
  assert.equal(compactionText({}), "Conversation compacted");
  assert.equal(
    compactionText({ content: "Conversation compacted", compactMetadata: { trigger: "auto" } }),
    "Conversation compacted (auto)",
  );
  assert.equal(
    apiRetryText({ retryAttempt: 2, error: { cause: { code: "FailedToOpenSocket" } } }),
    "API error, retry 2: FailedToOpenSocket",
  );
  assert.equal(apiRetryText({ content: "upstream timeout" }), "API error: upstream timeout");
  assert.equal(apiRetryText({}), "API error");
  assert.equal(
    apiErrorText(
      { isApiErrorMessage: true, error: "authentication_failed", apiErrorStatus: 401 },
      "Please run /login · API Error: 401 token expired",
    ),
    "Please run /login · API Error: 401 token expired [authentication_failed]",
  );
  assert.equal(
    apiErrorText({ error: { status: 529, message: "overloaded" } }, ""),
    "API error [overloaded]",
  );
});

Deno.test("internal sub-agents get their type from their id; Task agents do not", () => {
  assert.equal(internalSubagentType("acompact-70d8e7"), "compact");
  assert.equal(internalSubagentType("aprompt_suggestion-1a2b3c"), "prompt_suggestion");
  assert.equal(internalSubagentType("a93ccab"), undefined);
  assert.equal(internalSubagentType("aae8c0dea9f0ff346"), undefined);
});
