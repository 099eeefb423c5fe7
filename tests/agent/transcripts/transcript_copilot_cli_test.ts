import assert from "node:assert/strict";
import {
  copilotSessionIdFromPath,
  createCopilotCliParser,
} from "../../../src/agent/transcripts/transcript_copilot_cli.ts";
import {
  findFiles,
  fixtureLines,
  FIXTURES,
  parseFixture,
} from "../../helpers/transcript_fixtures.ts";

Deno.test("copilot_cli recorded session: messages, tool calls and per-call usage", async () => {
  const [path] = await findFiles(`${FIXTURES}copilot_cli`, (n) => n === "events.jsonl");
  const session = copilotSessionIdFromPath(path)!;
  const lines = await fixtureLines(path);
  const start = JSON.parse(lines[0]);
  assert.equal(start.type, "session.start");
  const totals = await parseFixture("copilot_cli", path);

  assert.equal(totals.lines, 56);
  assert.deepEqual(totals.sessionIds, [session]);
  assert.deepEqual(totals.sessions.get(session), {
    agent: "copilot_cli",
    session_id: session,
    started_at: Date.parse(start.data.startTime),
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
  const user = totals.messages.find((m) => m.message_type === "user");
  assert.equal(user?.text, "Write note.txt saying hello, show it, then change it.");
  const thinking = totals.messages.find((m) => m.message_type === "thinking");
  assert.equal(thinking?.text, "Write the note, then show it.");

  const uses = totals.messages.filter((m) => m.message_type === "tool_use");
  assert.deepEqual(uses.map((m) => m.tool_name), ["bash", "bash", "view", "edit"]);
  assert.deepEqual(uses.map((m) => m.command_prefix ?? m.file_path), [
    "echo",
    "ls",
    "/home/fixture/project/missing.txt",
    "/home/fixture/project/note.txt",
  ]);
  // `ls missing-dir` exits 2 yet comes back `success: true`: its shellExecution.exitCode says
  // it failed. The view of a missing file is `success: false`.
  const results = totals.messages.filter((m) => m.message_type === "tool_result");
  assert.deepEqual(results.map((m) => m.is_error === true), [false, true, true, false]);
  assert.deepEqual(results.map((m) => m.tool_use_id), uses.map((m) => m.tool_use_id));
  assert.match(results[1].text, /<shellId: \d+ completed with exit code 2>$/);
  assert.equal(results[2].text, "Path does not exist");

  // Five model calls, one session.usage_record each; the shutdown's totals repeat them and are
  // not counted. Input per call is fresh input: Copilot's inputTokens include the cached ones
  // (9000/0, 9200/8800, 9300/9100, 9400/9200, 9500/9300 cached).
  assert.equal(totals.usage.length, 5);
  assert.ok(totals.usage.every((u) => u.usage_key.startsWith(`${session}:usage:resp_script_`)));
  assert.deepEqual(totals.usage.map((u) => u.input_tokens), [9000, 400, 200, 200, 200]);
  assert.deepEqual(totals.tokens, {
    input: 10000,
    output: 172,
    cacheRead: 36400,
    cacheWrite: 0,
    reasoning: 20,
  });
  const shutdown = JSON.parse(lines[lines.length - 1]);
  assert.equal(shutdown.type, "session.shutdown");
  const metrics = shutdown.data.modelMetrics["gpt-5"].usage;
  assert.equal(metrics.inputTokens - metrics.cacheReadTokens, totals.tokens.input);
  assert.equal(metrics.outputTokens, totals.tokens.output);
  assert.deepEqual(totals.unknownTypes, []);
  assert.equal(totals.malformedLines, 0);
});

Deno.test("copilot_cli: without usage records a shutdown's totals count, once per process", () => {
  const parser = createCopilotCliParser({ path: "/h/.copilot/session-state/old/events.jsonl" });
  const line = (type: string, data: unknown, id: string) =>
    parser.parseLine(JSON.stringify({ type, id, timestamp: "2026-01-02T03:04:05Z", data }));
  line("session.start", { sessionId: "old", context: { cwd: "/p" }, selectedModel: "m" }, "e1");
  const shutdown = (id: string) =>
    line("session.shutdown", {
      modelMetrics: {
        m: { usage: { inputTokens: 500, outputTokens: 20, cacheReadTokens: 300 } },
      },
    }, id).usage;
  assert.deepEqual(shutdown("e2").map((u) => [u.usage_key, u.input_tokens, u.cache_read_tokens]), [
    ["old:shutdown:e2:m", 200, 300],
  ]);
  // A resumed process that wrote usage records: its shutdown repeats them.
  line("session.resume", { context: { cwd: "/p" } }, "e3");
  line("session.usage_record", { usage: { model: "m", inputTokens: 50, outputTokens: 5 } }, "e4");
  assert.deepEqual(shutdown("e5"), []);
  // The state survives a restart between the record and the shutdown.
  const resumed = createCopilotCliParser({
    path: "/h/.copilot/session-state/old/events.jsonl",
    state: (() => {
      line("session.resume", {}, "e6");
      line(
        "session.usage_record",
        { usage: { model: "m", inputTokens: 5, outputTokens: 1 } },
        "e7",
      );
      return parser.saveState();
    })(),
  });
  const after = resumed.parseLine(JSON.stringify({
    type: "session.shutdown",
    id: "e8",
    timestamp: "2026-01-02T03:04:09Z",
    data: { modelMetrics: { m: { usage: { inputTokens: 5, outputTokens: 1 } } } },
  }));
  assert.deepEqual(after.usage, []);
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

Deno.test("copilot_cli: a shutdown's per-model totals say how many requests they sum", () => {
  const parser = createCopilotCliParser({ path: "/h/.copilot/session-state/sum/events.jsonl" });
  const line = (type: string, data: unknown, id: string) =>
    parser.parseLine(JSON.stringify({ type, id, timestamp: "2026-01-02T03:04:05Z", data }));
  line("session.start", { sessionId: "sum", context: { cwd: "/p" }, selectedModel: "a" }, "e1");
  const usage = line("session.shutdown", {
    modelMetrics: {
      "claude-sonnet-4.5": {
        requests: { count: 4, cost: 4 },
        usage: { inputTokens: 18200, outputTokens: 410, cacheReadTokens: 1200 },
      },
      "gpt-5-mini": { requests: { count: 1 }, usage: { inputTokens: 1500, outputTokens: 20 } },
    },
  }, "e2").usage;
  // Priced and counted as that many calls; one request leaves the default (1).
  assert.deepEqual(usage.map((u) => [u.model, u.input_tokens, u.output_tokens, u.calls]), [
    ["claude-sonnet-4.5", 17000, 410, 4],
    ["gpt-5-mini", 1500, 20, undefined],
  ]);
});
