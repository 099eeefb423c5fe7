import assert from "node:assert/strict";
import {
  claudeFileRole,
  createClaudeCodeParser,
} from "../../../src/agent/transcripts/transcript_claude_code.ts";
import {
  findFiles,
  fixtureLines,
  FIXTURES,
  foldLines,
  parseFixture,
} from "../../helpers/transcript_fixtures.ts";

const ROOT = `${FIXTURES}claude_code/projects`;

async function fixturePaths(): Promise<{ main: string; subagent: string }> {
  const files = await findFiles(ROOT, (name) => name.endsWith(".jsonl"));
  const subagent = files.find((f) => f.includes("/subagents/"));
  const main = files.find((f) => !f.includes("/subagents/"));
  assert.ok(main !== undefined && subagent !== undefined, "fixtures missing");
  return { main, subagent };
}

function sessionIdOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1).replace(/\.jsonl$/, "");
}

Deno.test("claude_code fixture: messages, tool calls and de-duplicated usage", async () => {
  const { main } = await fixturePaths();
  const totals = await parseFixture("claude_code", main);
  const sessionId = sessionIdOf(main);

  assert.equal(totals.lines, 17);
  assert.deepEqual(totals.sessionIds, [sessionId]);
  const session = totals.sessions.get(sessionId);
  assert.equal(session?.cwd, "/home/fixture/project");
  assert.equal(session?.model, "claude-opus-4-8");
  assert.equal(session?.git_branch, "HEAD");
  assert.equal(session?.parent_session_id, undefined);

  assert.deepEqual(totals.byType, {
    user: 1,
    thinking: 1,
    assistant: 2,
    tool_use: 4,
    tool_result: 4,
  });
  assert.equal(totals.toolCalls, 4);
  assert.equal(totals.messages.filter((m) => m.is_error === true).length, 1);
  assert.ok(totals.messages.every((m) => m.session_id === sessionId));
  assert.ok(totals.messages.every((m) => m.cwd === "/home/fixture/project"));
  assert.equal(new Set(totals.messages.map((m) => m.message_key)).size, 12);

  // Seven assistant lines, five API responses: msg_script_001 is written three times.
  assert.equal(totals.usage.length, 5);
  assert.deepEqual(totals.usage.map((u) => u.usage_key), [
    "msg_script_001:req_script_001",
    "msg_script_002:req_script_002",
    "msg_script_003:req_script_003",
    "msg_script_004:req_script_004",
    "msg_script_007:req_script_007",
  ]);
  assert.deepEqual(totals.tokens, {
    input: 1315,
    output: 180,
    cacheRead: 12900,
    cacheWrite: 3360,
    reasoning: 0,
  });
  assert.deepEqual(totals.unknownTypes, []);
  assert.equal(totals.malformedLines, 0);

  const tools = totals.messages.filter((m) => m.message_type === "tool_use");
  assert.deepEqual(tools.map((m) => m.tool_name), ["Write", "Bash", "Bash", "Agent"]);
  assert.equal(tools[0].file_path, "/home/fixture/project/hello.txt");
  assert.equal(tools[1].command, "cat hello.txt && ls");
  assert.equal(tools[1].command_prefix, "cat");
  assert.equal(tools[2].command_prefix, "ls");
  const failed = totals.messages.find((m) => m.is_error === true);
  assert.equal(failed?.tool_use_id, "toolu_script_003");
  assert.match(failed?.text ?? "", /^Exit code 2/);
});

Deno.test("claude_code fixture: a sub-agent transcript is a session of its own, under its parent", async () => {
  const { main, subagent } = await fixturePaths();
  const parent = sessionIdOf(main);
  const totals = await parseFixture("claude_code", subagent);
  const agentId = subagent.slice(subagent.lastIndexOf("/agent-") + 7, -6);
  const own = `${parent}/agent-${agentId}`;

  assert.equal(totals.lines, 5);
  assert.deepEqual(totals.sessionIds, [own]);
  const session = totals.sessions.get(own);
  assert.equal(session?.parent_session_id, parent);
  assert.equal(session?.is_subagent, true);
  // Claude Code 2.1.197 names the type on the sub-agent's own assistant lines.
  assert.equal(session?.subagent_type, "general-purpose");
  assert.deepEqual(totals.byType, { user: 1, tool_use: 1, tool_result: 1, assistant: 1 });
  assert.equal(totals.toolCalls, 1);
  assert.ok(totals.messages.every((m) => m.session_id === own && m.subagent_id === agentId));
  assert.equal(totals.usage.length, 2);
  assert.ok(totals.usage.every((u) => u.session_id === own && u.subagent_id === agentId));
  assert.deepEqual(totals.tokens, {
    input: 1850,
    output: 24,
    cacheRead: 0,
    cacheWrite: 0,
    reasoning: 0,
  });
});

Deno.test("claude_code fixture: the main transcript names its sub-agent, type and task", async () => {
  const { main, subagent } = await fixturePaths();
  const parent = sessionIdOf(main);
  const agentId = subagent.slice(subagent.lastIndexOf("/agent-") + 7, -6);
  const parser = createClaudeCodeParser({ path: main });
  const links = (await fixtureLines(main)).flatMap((line) =>
    parser.parseLine(line).linked_sessions ?? []
  );
  // The Agent call's result carries toolUseResult.agentId and agentType: one link, the run
  // starting when the call was made.
  assert.deepEqual(links, [{
    agent: "claude_code",
    session_id: `${parent}/agent-${agentId}`,
    started_at: Date.parse("2026-11-30T18:35:33.287Z"),
    parent_session_id: parent,
    is_subagent: true,
    subagent_type: "general-purpose",
    title: "Count the files",
    cwd: "/home/fixture/project",
  }]);
});

Deno.test("claude_code: a call's final usage wins, also across a restart through saved state", async () => {
  const { main } = await fixturePaths();
  const lines = await fixtureLines(main);
  const whole = await parseFixture("claude_code", main);
  // msg_script_001 is written as three lines while it streams: output 8, 8, then the final 80.
  assert.equal(whole.usageEmitted, 6);
  assert.equal(whole.usage[0].output_tokens, 80);
  assert.equal(whole.usage[0].cache_write_1h_tokens, 3000);
  assert.equal(whole.usage[0].service_tier, "standard");

  // Stop after its first line (index 5), save the state, resume with the rest.
  const first = createClaudeCodeParser({ path: main });
  const before = foldLines(first, lines.slice(0, 6));
  assert.deepEqual(before.usage.map((u) => [u.usage_key, u.output_tokens]), [
    ["msg_script_001:req_script_001", 8],
  ]);
  const state = JSON.parse(JSON.stringify(first.saveState()));
  const resumed = createClaudeCodeParser({ path: main, state });
  const after = foldLines(resumed, lines.slice(6));
  // The repeated partial line adds nothing; the last line brings the final figures.
  assert.equal(after.usageEmitted, 5);
  assert.deepEqual(after.usage[0], { ...whole.usage[0], ts: after.usage[0].ts });
  assert.deepEqual(after.usage.map((u) => u.usage_key), whole.usage.map((u) => u.usage_key));
  // Session facts were already reported before the restart: not reported again.
  assert.deepEqual(after.sessionIds, []);

  // Without state the same line yields the same key, so a store merges it into the call.
  const fresh = createClaudeCodeParser({ path: main });
  const again = fresh.parseLine(lines[7]);
  assert.equal(again.usage[0].usage_key, "msg_script_001:req_script_001");
  assert.equal(again.messages[0].message_key, `${JSON.parse(lines[7]).uuid}:0`);

  // State saved by an older version (bare keys) still resumes: the key is reported again.
  const legacy = createClaudeCodeParser({
    path: main,
    state: { ...state, call_usage: undefined, seen_usage: ["msg_script_001:req_script_001"] },
  } as never);
  assert.equal(legacy.parseLine(lines[7]).usage[0].output_tokens, 80);
});

Deno.test("claude_code: time from nested and first records, never the epoch", () => {
  const path = "/h/.claude/projects/-p/s9.jsonl";
  const snapshot = createClaudeCodeParser({ path });
  const first = snapshot.parseLine(JSON.stringify({
    type: "file-history-snapshot",
    messageId: "m0",
    snapshot: { messageId: "m0", trackedFileBackups: {}, timestamp: "2026-11-20T10:00:00.000Z" },
    isSnapshotUpdate: false,
  }));
  assert.equal(first.session?.session_id, "s9");
  assert.equal(first.session?.started_at, Date.parse("2026-11-20T10:00:00.000Z"));
  const user = snapshot.parseLine(JSON.stringify({
    type: "user",
    uuid: "u1",
    sessionId: "s9",
    timestamp: "2026-11-20T10:00:05.000Z",
    message: { role: "user", content: "hi" },
  }));
  assert.equal(user.messages[0].ts, Date.parse("2026-11-20T10:00:05.000Z"));
  assert.equal(user.session, undefined, "the start stays the earliest time");

  // A summary line carries no time: the session is known, its start is not (not 1970).
  const summary = createClaudeCodeParser({ path });
  const info = summary.parseLine('{"type":"summary","summary":"Earlier work","leafUuid":"x"}');
  assert.equal(info.session?.session_id, "s9");
  assert.equal(info.session?.started_at, undefined);
  const later = summary.parseLine(JSON.stringify({
    type: "user",
    uuid: "u2",
    sessionId: "s9",
    timestamp: "2026-11-21T08:00:00.000Z",
    message: { role: "user", content: "go on" },
  }));
  assert.equal(later.session?.started_at, Date.parse("2026-11-21T08:00:00.000Z"));
});

Deno.test("claude_code: usage states 1-hour writes, web searches, fast mode and US-only inference", () => {
  const parser = createClaudeCodeParser({ path: "/h/.claude/projects/-p/s1.jsonl" });
  const line = (output: number) =>
    JSON.stringify({
      type: "assistant",
      uuid: `u${output}`,
      sessionId: "s1",
      requestId: "req_1",
      timestamp: "2026-11-20T10:00:00.000Z",
      message: {
        id: "msg_1",
        model: "claude-opus-4-6",
        role: "assistant",
        content: [{ type: "text", text: "x" }],
        usage: {
          input_tokens: 5,
          output_tokens: output,
          cache_creation_input_tokens: 500,
          cache_read_input_tokens: 100,
          cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 },
          server_tool_use: { web_search_requests: output > 10 ? 2 : 0 },
          service_tier: "standard",
          speed: "fast",
          inference_geo: "us",
        },
      },
    });
  const partial = parser.parseLine(line(10)).usage[0];
  assert.equal(partial.output_tokens, 10);
  assert.equal(partial.web_search_requests, undefined);
  const final = parser.parseLine(line(299)).usage[0];
  assert.deepEqual(
    [final.output_tokens, final.cache_write_tokens, final.cache_write_1h_tokens],
    [299, 500, 300],
  );
  assert.equal(final.web_search_requests, 2);
  assert.deepEqual([final.speed, final.inference_geo, final.service_tier], [
    "fast",
    "us",
    "standard",
  ]);
  // An earlier snapshot arriving again changes nothing.
  assert.equal(parser.parseLine(line(10)).usage.length, 0);
});

Deno.test("claude_code: malformed lines, unknown types, meta and synthetic messages", () => {
  const parser = createClaudeCodeParser({ path: "/h/.claude/projects/-p/s1.jsonl" });
  assert.equal(parser.parseLine("{not json").malformed, true);
  assert.equal(parser.parseLine("[1,2]").malformed, true);
  assert.equal(
    parser.parseLine('{"type":"brand-new-record","sessionId":"s1"}').unknown_type,
    "brand-new-record",
  );
  assert.equal(parser.parseLine('{"type":"attachment","sessionId":"s1"}').unknown_type, undefined);

  const meta = parser.parseLine(JSON.stringify({
    type: "user",
    isMeta: true,
    uuid: "u1",
    sessionId: "s1",
    cwd: "/p",
    timestamp: "2026-01-02T03:04:05.000Z",
    message: { role: "user", content: "Caveat: local command output follows" },
  }));
  assert.equal(meta.messages[0].role, "system");
  assert.equal(meta.messages[0].message_key, "u1:0");
  assert.equal(meta.session?.session_id, "s1");
  assert.equal(meta.session?.started_at, Date.parse("2026-01-02T03:04:05.000Z"));

  // Claude writes `<synthetic>` assistant messages for local errors: no usage from them.
  const synthetic = parser.parseLine(JSON.stringify({
    type: "assistant",
    uuid: "u2",
    sessionId: "s1",
    message: {
      id: "msg_x",
      model: "<synthetic>",
      role: "assistant",
      content: [{ type: "text", text: "API Error" }],
      usage: { input_tokens: 0, output_tokens: 0 },
    },
  }));
  assert.equal(synthetic.usage.length, 0);
  assert.equal(synthetic.messages[0].text, "API Error");

  const titled = parser.parseLine('{"type":"ai-title","aiTitle":"Fix the build","sessionId":"s1"}');
  assert.equal(titled.session?.title, "Fix the build");
  // A summary does not replace a real title.
  assert.equal(parser.parseLine('{"type":"summary","summary":"Other"}').session, undefined);
});

Deno.test("claude_code: secrets in message text are redacted, and can be kept", () => {
  const line = JSON.stringify({
    type: "user",
    uuid: "u1",
    sessionId: "s1",
    message: { role: "user", content: `use key sk-ant-api03-${"a".repeat(40)} please` },
  });
  const redacted = createClaudeCodeParser().parseLine(line);
  assert.equal(redacted.messages[0].text, "use key [REDACTED:anthropic_key] please");
  const kept = createClaudeCodeParser({ redact: false }).parseLine(line);
  assert.match(kept.messages[0].text, /sk-ant-api03-a+/);
});

Deno.test("claudeFileRole tells main and sub-agent transcripts apart", () => {
  assert.deepEqual(claudeFileRole("/h/.claude/projects/-p/abc.jsonl"), { session_id: "abc" });
  assert.deepEqual(claudeFileRole("/h/.claude/projects/-p/abc/subagents/agent-x1.jsonl"), {
    subagent_id: "x1",
    parent_session_id: "abc",
  });
  assert.deepEqual(claudeFileRole("C:\\u\\.claude\\projects\\C--p\\agent-x2.jsonl"), {
    subagent_id: "x2",
  });
});
