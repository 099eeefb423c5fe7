/**
 * Every parser: a session starts at the earliest real time its records give, and a session
 * whose records give none has no start (never the epoch, never a negative duration).
 */
import assert from "node:assert/strict";
import { createTranscriptParser } from "../../../src/agent/transcripts/transcript_parser.ts";
import type { AgentName, SessionInfo } from "../../../src/model/agent_records.ts";

function sessionOf(agent: AgentName, path: string, lines: unknown[]): SessionInfo | undefined {
  const parser = createTranscriptParser(agent, { path });
  let session: SessionInfo | undefined;
  for (const line of lines) session = parser.parseLine(JSON.stringify(line)).session ?? session;
  return session;
}

const T1 = "2026-11-20T10:00:00.000Z";
const T0 = "2026-11-20T09:00:00.000Z";

Deno.test("codex: start from session_meta or the earliest line; none without a time", () => {
  const path = "rollout-2026-11-20T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
  const timed = sessionOf("codex", path, [
    { timestamp: T1, type: "session_meta", payload: { id: "s", timestamp: T0, cwd: "/p" } },
    { timestamp: T1, type: "turn_context", payload: { cwd: "/p", model: "gpt-5.5" } },
  ]);
  assert.equal(timed?.started_at, Date.parse(T0));
  const timeless = sessionOf("codex", path, [
    { type: "session_meta", payload: { id: "s", cwd: "/p" } },
    { type: "turn_context", payload: { cwd: "/p", model: "gpt-5.5" } },
  ]);
  assert.equal(timeless?.session_id, "s");
  assert.equal(timeless?.started_at, undefined);
});

Deno.test("copilot_cli: start from session.start, else none", () => {
  const path = "/h/.copilot/session-state/abc/events.jsonl";
  const timed = sessionOf("copilot_cli", path, [
    { type: "session.start", id: "e1", timestamp: T1, data: { sessionId: "abc", startTime: T0 } },
  ]);
  assert.equal(timed?.started_at, Date.parse(T0));
  const timeless = sessionOf("copilot_cli", path, [
    { type: "session.start", id: "e1", data: { sessionId: "abc", context: { cwd: "/p" } } },
  ]);
  assert.equal(timeless?.session_id, "abc");
  assert.equal(timeless?.started_at, undefined);
});

Deno.test("openclaw: start from the header, a message's own time, else none", () => {
  const path = "/h/.openclaw/agents/main/sessions/oc1.jsonl";
  const timed = sessionOf("openclaw", path, [
    { type: "session", version: 3, id: "oc1", timestamp: T0, cwd: "/p" },
  ]);
  assert.equal(timed?.started_at, Date.parse(T0));
  const timeless = sessionOf("openclaw", path, [
    { type: "session", version: 3, id: "oc1", cwd: "/p" },
  ]);
  assert.equal(timeless?.session_id, "oc1");
  assert.equal(timeless?.started_at, undefined);
});

Deno.test("claude_code: an epoch or negative time is no time", () => {
  const session = sessionOf("claude_code", "/h/.claude/projects/-p/s1.jsonl", [
    { type: "user", uuid: "u0", sessionId: "s1", timestamp: 0, message: { content: "a" } },
    { type: "user", uuid: "u1", sessionId: "s1", timestamp: -5, message: { content: "b" } },
  ]);
  assert.equal(session?.session_id, "s1");
  assert.equal(session?.started_at, undefined);
});
