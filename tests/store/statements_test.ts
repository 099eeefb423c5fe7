/**
 * One statement cache per connection, used by every area: a statement is prepared once per
 * connection, so the hook path, a transcript batch and the dashboard's reads prepare nothing
 * once they have run; the cache is bounded.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createLogger } from "../../src/core/log.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { DATABASE, vantageServices } from "../../src/ops/runtime.ts";
import { resolvePaths } from "../../src/core/config.ts";
import { PerceptionEngine } from "../../src/perception/engine.ts";
import { openDatabase, writing } from "../../src/store/database.ts";
import {
  cachedStatementCount,
  MAX_CACHED_STATEMENTS,
  prepared,
} from "../../src/store/statements.ts";
import { sqliteStore } from "../../src/store/store.ts";

/** Counts the statements `db` prepares from now on. */
function countPrepares(db: DatabaseSync): { count: () => number; sql: string[] } {
  const original = db.prepare.bind(db);
  const sql: string[] = [];
  db.prepare = (text: string) => {
    sql.push(text);
    return original(text);
  };
  return { count: () => sql.length, sql };
}

Deno.test("a statement is prepared once per connection; the cache keeps a bound", () => {
  const one = new DatabaseSync(":memory:");
  const two = new DatabaseSync(":memory:");
  const seen = countPrepares(one);
  assert.equal(prepared(one, "SELECT 1 AS x"), prepared(one, "SELECT 1 AS x"));
  assert.notEqual(prepared(one, "SELECT 1 AS x"), prepared(two, "SELECT 1 AS x"));
  assert.equal(seen.count(), 1);
  for (let i = 0; i < MAX_CACHED_STATEMENTS + 10; i++) {
    assert.equal(prepared(one, `SELECT ${i} AS x`).get()?.x, i);
  }
  assert.equal(cachedStatementCount(one), MAX_CACHED_STATEMENTS);
  // The statement cached first was dropped to make room; asked for again, it is prepared again.
  const before = seen.count();
  assert.equal(prepared(one, "SELECT 1 AS x").get()?.x, 1);
  assert.equal(seen.count(), before + 1);
  one.close();
  two.close();
});

Deno.test("the hook path prepares nothing once it has run: intake, perception, context", () => {
  const db = openDatabase(":memory:");
  const perception = new PerceptionEngine({
    store: sqliteStore(db),
    log: createLogger("test", { sink: () => {} }),
    sensors: false,
  });
  const round = (session: string) => {
    const events: Array<Record<string, unknown>> = [
      { hook_event_name: "SessionStart", source: "startup" },
      { hook_event_name: "UserPromptSubmit", prompt: "fix the build" },
      { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "npm test" } },
      {
        hook_event_name: "PostToolUse",
        tool_name: "Bash",
        tool_input: { command: "npm test" },
        tool_response: { stdout: "", stderr: "1 failing", exitCode: 1 },
      },
      { hook_event_name: "Stop" },
    ];
    for (const payload of events) {
      writing(db, () => {
        const taken = takeHookDelivery(db, {
          agent: "claude_code",
          delivery_id: crypto.randomUUID(),
          received_at: Date.now(),
          payload: { ...payload, session_id: session, cwd: "/work/app" },
        });
        assert.ok(taken.stored);
        perception.onHookEvent(taken.event);
      });
    }
  };
  try {
    round("first");
    const seen = countPrepares(db);
    round("second");
    round("first");
    assert.deepEqual(seen.sql, []);
  } finally {
    perception.close();
    db.close();
  }
});

Deno.test("the dashboard's reads prepare nothing the second time they run", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-statements-" });
  const services = vantageServices(resolvePaths(home));
  try {
    const db = services.get(DATABASE);
    writing(db, () =>
      takeHookDelivery(db, {
        agent: "codex",
        delivery_id: "d1",
        received_at: Date.now(),
        payload: { session_id: "session-1", cwd: "/work/app", hook_event_name: "SessionStart" },
      }));
    const catalog = builtinCatalog();
    const caller = { scopes: ["agent:read"], cwd: "/work/app" };
    const pages = async () => {
      for (
        const [id, args] of [
          ["agent.overview", { since_min: 60 }],
          ["agent.list_sessions", { since_min: 60 }],
          ["agent.usage_timeseries", { since_min: 60 }],
          ["agent.session_timeline", { session_id: "session-1" }],
          ["agent.list_anomalies", { since_min: 60 }],
        ] as const
      ) {
        const response = await executeOperation(catalog, id, args, caller, { services });
        assert.ok("result" in response, `${id}: ${JSON.stringify(response)}`);
      }
    };
    await pages();
    const seen = countPrepares(db);
    await pages();
    assert.deepEqual(seen.sql, []);
  } finally {
    services.close();
    await Deno.remove(home, { recursive: true });
  }
});
