/**
 * The context answer is shaped for the agent that reads it: Claude's nested
 * `hookSpecificOutput.additionalContext` for Claude Code, Codex and Copilot's VS Code compatible
 * hooks; a top-level `additionalContext` for Copilot CLI's camelCase hooks, which ignore the
 * nested form (checked with Copilot CLI 1.0.102 in tests/agent/e2e/copilot_session_test.ts).
 */
import assert from "node:assert/strict";
import { createLogger } from "../../src/core/log.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { PerceptionEngine } from "../../src/perception/engine.ts";
import { openDatabase, writing } from "../../src/store/database.ts";
import { sqliteStore } from "../../src/store/store.ts";

Deno.test("a SessionStart answer takes the shape each agent's hooks read", () => {
  const db = openDatabase(":memory:");
  const perception = new PerceptionEngine({
    store: sqliteStore(db),
    log: createLogger("test", { sink: () => {} }),
    sensors: false,
  });
  try {
    const answer = (agent: string, payload: Record<string, unknown>, event?: string) =>
      writing(db, () => {
        const taken = takeHookDelivery(db, {
          agent,
          delivery_id: crypto.randomUUID(),
          received_at: Date.now(),
          payload,
          ...(event !== undefined ? { event } : {}),
        });
        assert.ok(taken.stored);
        return perception.onHookEvent(taken.event).output as Record<string, unknown>;
      });
    const claude = answer("claude_code", {
      session_id: "s1",
      cwd: "/w",
      hook_event_name: "SessionStart",
      source: "startup",
    });
    assert.deepEqual(Object.keys(claude), ["hookSpecificOutput"]);
    assert.match(
      (claude.hookSpecificOutput as { additionalContext: string }).additionalContext,
      /^<vantage-context>/,
    );
    const camel = answer(
      "copilot_cli",
      { sessionId: "s2", timestamp: Date.now(), cwd: "/w", source: "new" },
      "sessionStart",
    );
    assert.deepEqual(Object.keys(camel), ["additionalContext"]);
    assert.match(camel.additionalContext as string, /^<vantage-context>/);
    const pascal = answer("copilot_cli", {
      session_id: "s3",
      hook_event_name: "SessionStart",
      cwd: "/w",
      source: "new",
    });
    assert.deepEqual(Object.keys(pascal), ["hookSpecificOutput"]);
  } finally {
    perception.close();
    db.close();
  }
});
