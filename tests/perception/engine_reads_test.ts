/**
 * One read per hook: for a context event perception reads the session row,
 * its file changes and the build runs once each (the rules and the context
 * answer share them), the stored events only when a session's cache is
 * rebuilt, and the answer is the same as before.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../src/core/log.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { PerceptionEngine } from "../../src/perception/engine.ts";
import { openDatabase, writing } from "../../src/store/database.ts";
import { insertBuildRun } from "../../src/store/perception/build_runs.ts";
import { insertFileChange } from "../../src/store/perception/file_changes.ts";
import { countingRuns as counting } from "../helpers/statement_runs.ts";
import { sqliteStore } from "../../src/store/store.ts";

function count(statements: readonly string[], pattern: RegExp): number {
  return statements.filter((sql) => pattern.test(sql)).length;
}

Deno.test("a context event reads the session, file changes and builds once, events only to rebuild", () => {
  const raw = openDatabase(":memory:");
  const { db, statements } = counting(raw);
  const perception = new PerceptionEngine({
    store: sqliteStore(db),
    log: createLogger("test", { sink: () => {} }),
    sensors: false,
  });
  const now = Date.now();
  const take = (id: string, payload: Record<string, unknown>) =>
    writing(raw, () => {
      const taken = takeHookDelivery(raw, {
        agent: "claude_code",
        delivery_id: id,
        received_at: Date.now(),
        payload: { session_id: "s1", cwd: "/work/app", ...payload },
      });
      assert.ok(taken.stored);
      statements.length = 0;
      return perception.onHookEvent(taken.event);
    });
  try {
    insertBuildRun(raw, {
      tag: "test",
      command: "npm test",
      cwd: "/work/app",
      project: "/work/app",
      started_at: now - 5 * 60_000,
      duration_ms: 900,
      exit_code: 1,
      errors: JSON.stringify([{ file: "src/a.ts", line: 3, message: "expected 1" }]),
      output_tail: "FAIL src/a.test.ts",
    });
    insertFileChange(raw, {
      project: "/work/app",
      path: "/work/app/README.md",
      kind: "modify",
      ts: now - 60_000,
      source: "unknown",
      session_id: null,
      agent: null,
    });
    const start = take("d0", { hook_event_name: "SessionStart", timestamp: now - 10 * 60_000 });
    const text = JSON.stringify(start.output);
    assert.match(text, /npm test/, "the failed build is in the answer");
    assert.match(text, /README\.md/, "the outside change is in the answer");
    const rebuild = /FROM events WHERE session_id = \? AND ts >= \?/;
    assert.equal(count(statements, rebuild), 1, "the session's cache is built from the store");

    take("d1", { hook_event_name: "UserPromptSubmit", prompt: "fix the test" });
    assert.equal(count(statements, /FROM injections\b/), 1, "a context answer, as a diff");
    const session = /FROM sessions WHERE session_id = \?/;
    assert.equal(count(statements, session), 1, "session row");
    assert.equal(count(statements, /FROM file_changes\b/), 1, "file changes");
    assert.equal(count(statements, /FROM build_runs\b/), 1, "build runs");
    assert.equal(count(statements, rebuild), 0, "the cache is kept");

    take("d2", { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
    assert.equal(count(statements, session), 1);
    assert.equal(count(statements, /FROM injections\b/), 0, "no context for a PreToolUse");
  } finally {
    perception.close();
    raw.close();
  }
});
