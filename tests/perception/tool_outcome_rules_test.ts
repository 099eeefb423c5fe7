/**
 * The failure rules for an agent whose hooks do not say how a command ended (Codex): a build
 * that fails three times is `repeated_failed_build` whether the exit codes were recorded before
 * the hooks arrived, after them, or after a restart of the engine.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../src/core/log.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { PerceptionEngine } from "../../src/perception/engine.ts";
import { type DatabaseSync, openDatabase, writing } from "../../src/store/database.ts";
import { activeAnomalies } from "../../src/store/perception/anomalies.ts";
import type { ToolOutcome as ToolOutcomeInput } from "../../src/model/agent_records.ts";
import { recordToolOutcomes } from "../../src/store/agent/tool_outcomes.ts";
import { sqliteStore } from "../../src/store/store.ts";

const SESSION = "01a2324c-0000-7000-8000-000000000001";
const START = Date.parse("2026-12-01T15:49:33.000Z");
const OUTPUT = "make: *** No rule to make target 'build-zeta'.  Stop.\n";

function engine(db: DatabaseSync, now: () => number): PerceptionEngine {
  return new PerceptionEngine({
    store: sqliteStore(db),
    log: createLogger("test", { sink: () => {} }),
    sensors: false,
    now,
  });
}

/** The Pre/Post hook payloads Codex sends for one `make build-zeta` (as recorded). */
function hooks(call: number): Array<Record<string, unknown>> {
  const base = {
    session_id: SESSION,
    turn_id: "turn-1",
    transcript_path: "/h/.codex/sessions/2026/12/01/rollout-x.jsonl",
    cwd: "/work/app",
    model: "gpt-5",
    tool_name: "Bash",
    tool_input: { command: "make build-zeta" },
    tool_use_id: `call_${call}`,
  };
  return [
    { ...base, hook_event_name: "PreToolUse" },
    { ...base, hook_event_name: "PostToolUse", tool_response: OUTPUT },
  ];
}

function failure(call: number): ToolOutcomeInput {
  return {
    agent: "codex",
    session_id: SESSION,
    tool_use_id: `call_${call}`,
    ts: START + call * 1000,
    success: false,
    exit_code: 2,
    error: `Exit code 2\n${OUTPUT.trim()}`,
  };
}

/** Stores one hook as the server does, and lets perception see it. */
function take(db: DatabaseSync, perception: PerceptionEngine, payload: unknown, id: string) {
  return writing(db, () => {
    const taken = takeHookDelivery(db, {
      agent: "codex",
      delivery_id: id,
      received_at: Date.now(),
      payload,
    });
    assert.ok(taken.stored);
    return perception.onHookEvent(taken.event);
  });
}

function kinds(db: DatabaseSync): string[] {
  return activeAnomalies(db, SESSION).map((a) => a.kind).sort();
}

Deno.test("exit codes recorded after the hooks: the rules run again and name the build", () => {
  const db = openDatabase(":memory:");
  let now = START;
  const perception = engine(db, () => now);
  try {
    for (const call of [1, 2, 3]) {
      for (const [i, payload] of hooks(call).entries()) {
        now = START + call * 1000 + i * 100;
        take(db, perception, payload, `d${call}.${i}`);
      }
    }
    // Outcomes unknown: the same command three times is a loop, not (yet) a failed build.
    assert.deepEqual(kinds(db), ["tool_loop"]);
    now += 500;
    const completed = writing(db, () => recordToolOutcomes(db, [1, 2, 3].map(failure)));
    assert.equal(completed.length, 3);
    const emitted = completed.map((c) => writing(db, () => perception.onToolOutcome(c)));
    // The third failure is the one that makes it repeated.
    assert.deepEqual(emitted, [0, 0, 1]);
    assert.deepEqual(kinds(db), ["repeated_failed_build", "tool_loop"]);
    const finding = activeAnomalies(db, SESSION).find((a) => a.kind === "repeated_failed_build");
    assert.match(finding!.evidence, /^`make build-zeta` failed 3 times/);
  } finally {
    perception.close();
    db.close();
  }
});

Deno.test("exit codes recorded before the hooks: the third failure's answer carries the finding", () => {
  const db = openDatabase(":memory:");
  let now = START;
  const perception = engine(db, () => now);
  try {
    writing(db, () => recordToolOutcomes(db, [1, 2, 3].map(failure)));
    let answer: { output?: unknown } = {};
    for (const call of [1, 2, 3]) {
      for (const [i, payload] of hooks(call).entries()) {
        now = START + call * 1000 + i * 100;
        answer = take(db, perception, payload, `d${call}.${i}`);
      }
    }
    const context = JSON.stringify(answer.output);
    assert.match(context, /<vantage-context>/);
    assert.match(context, /repeated_failed_build: `make build-zeta` failed 3 times/);
  } finally {
    perception.close();
    db.close();
  }
});

Deno.test("an engine started after the hooks rebuilds them with the outcomes the store holds", () => {
  const db = openDatabase(":memory:");
  let now = START;
  const first = engine(db, () => now);
  try {
    for (const call of [1, 2, 3]) {
      for (const [i, payload] of hooks(call).entries()) {
        now = START + call * 1000 + i * 100;
        take(db, first, payload, `d${call}.${i}`);
      }
    }
  } finally {
    first.close();
  }
  // A restart: the new engine knows the session only from the store.
  const second = engine(db, () => now);
  try {
    const completed = writing(db, () => recordToolOutcomes(db, [1, 2, 3].map(failure)));
    assert.equal(writing(db, () => second.onToolOutcome(completed[2])), 1);
    assert.deepEqual(kinds(db), ["repeated_failed_build", "tool_loop"]);
  } finally {
    second.close();
    db.close();
  }
});
