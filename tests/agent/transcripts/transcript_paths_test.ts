import assert from "node:assert/strict";
import {
  detectAgentFromPath,
  isCopilotOtelPath,
  transcriptSources,
} from "../../../src/agent/transcripts/transcript_paths.ts";
import { createTranscriptParser } from "../../../src/agent/transcripts/transcript_parser.ts";
import { AGENT_NAMES } from "../../../src/model/agent_records.ts";

Deno.test("detectAgentFromPath recognises each agent's layout", () => {
  const cases: [string, string | undefined][] = [
    ["/home/u/.claude/projects/-home-u-app/0b1c.jsonl", "claude_code"],
    ["/home/u/.claude/projects/-home-u-app/0b1c/subagents/agent-a1.jsonl", "claude_code"],
    ["/home/u/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-abc.jsonl", "codex"],
    ["/srv/codex-home/sessions/2026/01/02/rollout-x.jsonl", "codex"],
    ["/home/u/.codex/archived_sessions/rollout-2026-01-02T03-04-05-abc.jsonl", "codex"],
    ["/home/u/.codex/archived_sessions/old.jsonl", "codex"],
    ["/home/u/.copilot/session-state/3f2a/events.jsonl", "copilot_cli"],
    ["/home/u/.copilot/otel/copilot-otel.jsonl", "copilot_cli"],
    ["/home/u/.openclaw/agents/main/sessions/8c1d.jsonl", "openclaw"],
    ["/home/u/.clawdbot/agents/main/sessions/8c1d.jsonl", "openclaw"],
    ["/home/u/.openclaw/agents/main/agent/openclaw-agent.sqlite", "openclaw"],
    ["/home/u/.openclaw/agents/main/agent/openclaw-agent.sqlite-wal", undefined],
    ["C:\\Users\\u\\.claude\\projects\\C--app\\0b1c.jsonl", "claude_code"],
    ["/home/u/.codex/session_index.jsonl", undefined],
    ["/home/u/.copilot/session-state/3f2a/plan.md", undefined],
    ["/tmp/notes.jsonl", undefined],
  ];
  for (const [path, agent] of cases) assert.equal(detectAgentFromPath(path), agent, path);
});

Deno.test("transcriptSources lists the roots and matches their files", () => {
  const sources = transcriptSources("/home/u");
  assert.deepEqual(sources.map((s) => [s.agent, s.root, s.glob]), [
    ["claude_code", "/home/u/.claude/projects", "**/*.jsonl"],
    ["codex", "/home/u/.codex/sessions", "**/rollout-*.jsonl"],
    ["codex", "/home/u/.codex/archived_sessions", "*.jsonl"],
    ["copilot_cli", "/home/u/.copilot/session-state", "*/events.jsonl"],
    ["copilot_cli", "/home/u/.copilot/otel", "*.jsonl"],
    [
      "openclaw",
      "/home/u/.openclaw/agents",
      "*/sessions/*.jsonl, */agent/openclaw-agent.sqlite",
    ],
  ]);
  const [claude, codex, archived, copilot, copilotOtel, openclaw] = sources;
  assert.equal(claude.matches("-p/s.jsonl"), true);
  assert.equal(codex.matches("2026/01/02/rollout-x.jsonl"), true);
  assert.equal(codex.matches("2026/01/02/other.jsonl"), false);
  assert.equal(archived.matches("rollout-x.jsonl"), true);
  assert.equal(archived.matches("a/rollout-x.jsonl"), false);
  assert.equal(copilot.matches("abc/events.jsonl"), true);
  assert.equal(copilot.matches("abc/other.jsonl"), false);
  // Copilot's OpenTelemetry file export, read by its own ingester.
  assert.equal(copilotOtel.matches("copilot-otel.jsonl"), true);
  assert.equal(copilotOtel.matches("old/copilot-otel.jsonl"), false);
  assert.equal(isCopilotOtelPath("/home/u/.copilot/otel/copilot-otel.jsonl"), true);
  assert.equal(isCopilotOtelPath("/home/u/.copilot/session-state/abc/events.jsonl"), false);
  // A session whose id is "otel" is still a session.
  assert.equal(isCopilotOtelPath("/home/u/.copilot/session-state/otel/events.jsonl"), false);
  assert.equal(openclaw.matches("main/sessions/x.jsonl"), true);
  assert.equal(openclaw.matches("main/agent/x.jsonl"), false);
  // OpenClaw 2026.8+: the SQLite store, and its WAL, which a write changes first.
  assert.equal(openclaw.matches("main/agent/openclaw-agent.sqlite"), true);
  assert.equal(openclaw.matches("main/agent/openclaw-agent.sqlite-wal"), true);
  assert.equal(openclaw.matches("main/agent/openclaw-agent.sqlite-shm"), false);
  assert.equal(
    openclaw.transcriptOf?.("/home/u/.openclaw/agents/main/agent/openclaw-agent.sqlite-wal"),
    "/home/u/.openclaw/agents/main/agent/openclaw-agent.sqlite",
  );
});

Deno.test("createTranscriptParser gives each agent its parser", () => {
  for (const agent of AGENT_NAMES) {
    const parser = createTranscriptParser(agent);
    assert.equal(parser.agent, agent);
    assert.equal(parser.saveState().agent, agent);
    assert.doesNotThrow(() => JSON.stringify(parser.saveState()));
    assert.equal(parser.parseLine("").malformed, true);
  }
});

Deno.test("parsers never throw on hostile lines", () => {
  const lines = [
    "",
    "null",
    "{}",
    '{"type":null}',
    '{"type":"assistant","message":{"content":[null,1,"x",{"type":"tool_use","input":{"a":{}}}],"usage":7}}',
    '{"type":"assistant","message":{"id":"m","model":"claude-x","content":"plain","usage":{"input_tokens":"9"}}}',
    '{"type":"user","message":{"content":{"not":"an array"}}}',
    '{"type":"response_item","payload":{"type":"message","content":5,"role":7}}',
    '{"type":"response_item","payload":{"type":"function_call","arguments":{"cmd":["x"]}}}',
    '{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":"x"}}}',
    '{"type":"session_meta","payload":{"source":{"subagent":"review"},"git":null}}',
    '{"type":"tool.execution_complete","data":{"result":{"contents":[{"type":"terminal"}]}}}',
    '{"type":"session.shutdown","data":{"modelMetrics":{"m":{"usage":null},"n":5}}}',
    '{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","arguments":"{"}]}}',
    '{"type":"session","parentSession":{"id":7}}',
    JSON.stringify({ type: "user", message: { content: "x".repeat(100_000) } }),
  ];
  for (const agent of AGENT_NAMES) {
    const parser = createTranscriptParser(agent, { path: "/h/x/y.jsonl", maxTextChars: 100 });
    for (const line of lines) {
      const records = parser.parseLine(line);
      for (const m of records.messages) assert.ok(m.text.length < 200, agent);
    }
    assert.doesNotThrow(() => JSON.stringify(parser.saveState()));
  }
});
