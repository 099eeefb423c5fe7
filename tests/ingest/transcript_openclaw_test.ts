import assert from "node:assert/strict";
import { costOf } from "../../src/ingest/pricing.ts";
import {
  createOpenClawParser,
  openclawSessionIdFromPath,
} from "../../src/ingest/transcript_openclaw.ts";
import { findFiles, FIXTURES, parseFixture } from "../helpers/transcript_fixtures.ts";

const SESSION = "c0ffee00-1234-4abc-8def-0123456789ab";

Deno.test("openclaw fixture: messages, tool calls and per-message usage", async () => {
  const [path] = await findFiles(`${FIXTURES}openclaw`, (n) => n.endsWith(".jsonl"));
  const totals = await parseFixture("openclaw", path);

  assert.equal(totals.lines, 13);
  assert.deepEqual(totals.sessionIds, [SESSION]);
  assert.deepEqual(totals.sessions.get(SESSION), {
    agent: "openclaw",
    session_id: SESSION,
    started_at: Date.parse("2026-11-29T10:00:00.000Z"),
    cwd: "/home/fixture/notes-app",
    model: "claude-sonnet-4-5",
  });
  assert.deepEqual(totals.byType, {
    user: 1,
    thinking: 1,
    assistant: 2,
    tool_use: 4,
    tool_result: 4,
  });
  assert.equal(totals.toolCalls, 4);
  const uses = totals.messages.filter((m) => m.message_type === "tool_use");
  assert.deepEqual(uses.map((m) => m.tool_name), ["read", "edit", "exec", "bash"]);
  assert.deepEqual(uses.map((m) => m.file_path ?? m.command_prefix), [
    "TODO.md",
    "TODO.md",
    "git diff",
    "ls",
  ]);

  assert.equal(totals.usage.length, 4);
  assert.deepEqual(totals.tokens, {
    input: 2670,
    output: 137,
    cacheRead: 13100,
    cacheWrite: 1800,
    reasoning: 0,
  });
  assert.equal(totals.usage[0].usage_key, `${SESSION}:a1000004`);
  // The fixture's embedded costs were computed at Sonnet 4.5 list prices: the pricing table
  // must agree with them entry by entry.
  for (const usage of totals.usage) {
    const computed = costOf(usage, usage.model);
    assert.ok(computed !== undefined && usage.reported_cost_usd !== undefined);
    assert.ok(Math.abs(computed - usage.reported_cost_usd) < 1e-9);
  }
  const reported = totals.usage.reduce((sum, u) => sum + (u.reported_cost_usd ?? 0), 0);
  assert.ok(Math.abs(reported - 0.020745) < 1e-9);
  assert.deepEqual(totals.unknownTypes, []);
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
  const parser = createOpenClawParser({ path: "/h/.openclaw/agents/main/sessions/abc.jsonl" });
  assert.equal(parser.parseLine('{"type":"new_kind","id":"x"}').unknown_type, "new_kind");
  const compaction = parser.parseLine(
    '{"type":"compaction","id":"c1","summary":"Earlier: fixed tests","tokensBefore":90000}',
  );
  assert.equal(compaction.messages[0].message_type, "system");
  assert.equal(compaction.messages[0].session_id, "abc");
});
