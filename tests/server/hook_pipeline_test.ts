/**
 * The daemon's hook pipeline over a real store: a delivery is stored once,
 * perception answers it inside the same write, the live events go out, a
 * perception failure never costs the agent its hook, and a tool result
 * whose outcome only its transcript tells waits for the tailer (bounded).
 */
import assert from "node:assert/strict";
import { createLogger } from "../../src/core/log.ts";
import type { HookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import type { HookEvent } from "../../src/model/agent_records.ts";
import { EventBus, type LiveEvent } from "../../src/server/event_bus.ts";
import {
  createHookPipeline,
  type HookPerception,
  type TranscriptAccess,
} from "../../src/server/hook_pipeline.ts";
import { type DatabaseSync, openDatabase } from "../../src/store/database.ts";
import { recordToolOutcomes } from "../../src/store/agent/tool_outcomes.ts";
import type { Eventually } from "../../src/core/eventually.ts";
import { sqliteStore } from "../../src/store/store.ts";

/** A SQLite pipeline answers a spooled delivery synchronously, inside its one write. */
function atOnce<T>(value: Eventually<T>): T {
  assert.ok(!(value instanceof Promise), "on SQLite the answer comes at once");
  return value;
}

const ROLLOUT = "/h/.codex/sessions/2026/12/01/rollout-x.jsonl";

function delivery(
  id: string,
  payload: Record<string, unknown>,
  agent = "claude_code",
): HookDelivery {
  return { agent, delivery_id: id, received_at: Date.now(), payload: JSON.stringify(payload) };
}

function bash(session: string, event: string, extra: Record<string, unknown> = {}) {
  return {
    session_id: session,
    cwd: "/work/app",
    hook_event_name: event,
    tool_name: "Bash",
    tool_input: { command: "npm test" },
    ...extra,
  };
}

interface Rig {
  db: DatabaseSync;
  events: LiveEvent[];
  seen: HookEvent[];
  errors: string[];
  pipeline: ReturnType<typeof createHookPipeline>;
  close(): void;
}

function rig(perception?: (event: HookEvent) => { output?: unknown; emitted: number }): Rig {
  const db = openDatabase(":memory:");
  const bus = new EventBus();
  const events: LiveEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const seen: HookEvent[] = [];
  const errors: string[] = [];
  const engine: HookPerception = {
    onHookEvent(event) {
      seen.push(event);
      return perception?.(event) ?? { emitted: 0 };
    },
  };
  const pipeline = createHookPipeline({
    store: sqliteStore(db),
    db,
    perception: engine,
    events: bus,
    log: createLogger("test", { sink: (line) => errors.push(line), minimum: "error" }),
    home: "/nonexistent-home",
  });
  return {
    db,
    events,
    seen,
    errors,
    pipeline,
    close() {
      bus.close();
      db.close();
    },
  };
}

Deno.test("a delivery is stored once, answered by perception, and announced", async () => {
  const r = rig((event) => ({
    emitted: event.event_type === "PostToolUse" ? 2 : 0,
    output: { said: event.event_type },
  }));
  try {
    const taken = await r.pipeline.take(
      delivery("d1", bash("s1", "PostToolUse", { tool_response: { exit_code: 0 } })),
    );
    assert.ok(taken.stored);
    assert.deepEqual(taken.output, { said: "PostToolUse" });
    assert.equal(r.pipeline.stored, 1);
    assert.deepEqual(r.events.map((e) => [e.type, e.data]), [
      ["anomaly", { session_id: "s1", emitted: 2 }],
      ["hook", {
        agent: "claude_code",
        session_id: "s1",
        event_type: "PostToolUse",
        ts: taken.event.ts,
        project: "/work/app",
        tool_name: "Bash",
        success: true,
      }],
    ]);
    // The same delivery again: a duplicate, not perceived, not announced, not counted.
    const again = atOnce(r.pipeline.takeNow(
      delivery("d1", bash("s1", "PostToolUse", { tool_response: { exit_code: 0 } })),
    ));
    assert.equal(again.stored, false);
    assert.ok(!again.stored && again.duplicate);
    assert.equal(r.seen.length, 1);
    assert.equal(r.events.length, 2);
    assert.equal(r.pipeline.stored, 1);
    const rows = r.db.prepare("SELECT count(*) AS n FROM events").get() as { n: number };
    assert.equal(rows.n, 1);
  } finally {
    r.close();
  }
});

Deno.test("a delivery that is not a hook is refused with its reason and stores nothing", async () => {
  const r = rig();
  try {
    const taken = await r.pipeline.take({ ...delivery("d1", {}), payload: "{not json" });
    assert.ok(!taken.stored && !taken.duplicate);
    assert.match(taken.reason, /payload is not JSON/);
    assert.equal(r.seen.length, 0);
    assert.equal(r.events.length, 0);
  } finally {
    r.close();
  }
});

Deno.test("perception failing keeps the event stored and the hook answered", async () => {
  const r = rig(() => {
    throw new Error("rules exploded");
  });
  try {
    const taken = await r.pipeline.take(delivery("d1", bash("s1", "PreToolUse")));
    assert.ok(taken.stored);
    assert.equal(taken.output, undefined);
    assert.equal(r.events.map((e) => e.type).join(), "hook");
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0], /perception failed on a hook event.*rules exploded/);
    const rows = r.db.prepare("SELECT count(*) AS n FROM events").get() as { n: number };
    assert.equal(rows.n, 1);
  } finally {
    r.close();
  }
});

Deno.test("transcripts are pointed out once attached, and an unknown outcome waits for its transcript", async () => {
  const r = rig();
  const noticed: string[] = [];
  const reads: string[] = [];
  // What the tailer would do: read the rollout, which records the call's exit code.
  const access: TranscriptAccess = {
    notice: (path) => noticed.push(path),
    readNow: (path, waitMs) => {
      reads.push(`${path} ${waitMs}`);
      recordToolOutcomes(r.db, [{
        agent: "codex",
        session_id: "c1",
        tool_use_id: "call_1",
        ts: Date.now(),
        success: false,
        exit_code: 2,
        error: "Exit code 2",
      }]);
      return Promise.resolve();
    },
  };
  const codex = (id: string, call: string) =>
    delivery(id, {
      ...bash("c1", "PostToolUse"),
      transcript_path: ROLLOUT,
      tool_use_id: call,
      tool_response: "make: *** No rule to make target\n",
    }, "codex");
  try {
    // Before the tailer exists (spool replay at start), nothing is read or noticed.
    assert.ok((await r.pipeline.take(codex("d0", "call_0"))).stored);
    assert.deepEqual([noticed, reads], [[], []]);
    r.pipeline.attachTranscripts(access);
    const taken = await r.pipeline.take(codex("d1", "call_1"));
    assert.ok(taken.stored);
    assert.deepEqual(reads, [`${ROLLOUT} 120`]);
    assert.equal(taken.event.success, false, "the outcome the transcript told");
    assert.deepEqual(noticed, [ROLLOUT]);
    // A spooled delivery does not wait: the tailer completes it later.
    assert.ok(atOnce(r.pipeline.takeNow(codex("d2", "call_2"))).stored);
    assert.equal(reads.length, 1);
    assert.deepEqual(noticed, [ROLLOUT, ROLLOUT]);
  } finally {
    r.close();
  }
});
