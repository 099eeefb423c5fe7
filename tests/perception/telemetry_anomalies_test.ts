/**
 * The telemetry rules in the perception engine, on a store fed through the
 * real OTLP intake with Claude Code's events: a burst of API errors, a call
 * far costlier than the session's others and a Bash suddenly slower than its
 * own p95 become anomalies with evidence; they are said once (suppression),
 * reach the agent in its next context block, are left alone by the hook
 * rules, and resolve when their telemetry ages out.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../src/core/log.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { takeOtlpExport } from "../../src/agent/otlp/otlp_intake.ts";
import { PerceptionEngine } from "../../src/perception/engine.ts";
import { openDatabase, writing } from "../../src/store/database.ts";
import { activeAnomalies } from "../../src/store/perception/anomalies.ts";
import { logRecord, logsRequest } from "../helpers/otlp_bodies.ts";
import { sqliteStore } from "../../src/store/store.ts";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const MIN = 60_000;
const SESSION = "cc-tel-0001";

let sequence = 0;
function event(
  session: string,
  minutesAgo: number,
  name: string,
  values: Record<string, string | number>,
) {
  sequence++;
  return logRecord(NOW - minutesAgo * MIN, `claude_code.${name}`, {
    "event.name": name,
    "event.sequence": sequence,
    "session.id": session,
    ...values,
  });
}

function apiRequest(session: string, minutesAgo: number, input: number, output: number) {
  return event(session, minutesAgo, "api_request", {
    request_id: `req_${sequence + 1}`,
    model: "claude-sonnet-4-5",
    input_tokens: input,
    output_tokens: output,
    cost_usd: 0,
    duration_ms: 900,
  });
}

function toolResult(session: string, minutesAgo: number, durationMs: number) {
  return event(session, minutesAgo, "tool_result", {
    tool_name: "Bash",
    tool_use_id: `toolu_${sequence + 1}`,
    success: "true",
    duration_ms: durationMs,
  });
}

function telemetry() {
  const records = [];
  // An earlier session: Bash usually takes 100–290 ms (p95 280 ms over 20 calls).
  for (let i = 0; i < 20; i++) records.push(toolResult("cc-old", 120 - i, 100 + i * 10));
  // This session: eight ordinary calls ($0.0045 each at $3/$15 per million) and one that read
  // 50,000 tokens ($0.18, 40× the others' average).
  for (let i = 0; i < 8; i++) records.push(apiRequest(SESSION, 60 - i * 5, 1000, 100));
  records.push(apiRequest(SESSION, 6, 50_000, 2_000));
  // Bash now takes seconds.
  for (const [minutesAgo, ms] of [[9, 2_500], [6, 3_500], [3, 3_000]]) {
    records.push(toolResult(SESSION, minutesAgo, ms));
  }
  // Three rate-limit errors in two minutes.
  for (const minutesAgo of [2.5, 1.5, 0.5]) {
    records.push(event(SESSION, minutesAgo, "api_error", {
      request_id: `req_err_${minutesAgo}`,
      model: "claude-sonnet-4-5",
      status_code: 429,
      error: "rate_limit_error",
      attempt: 1,
      duration_ms: 120,
    }));
  }
  return logsRequest(records, { "service.name": "claude-code" });
}

Deno.test("telemetry anomalies: found with evidence, said once, delivered, resolved by telemetry only", () => {
  const db = openDatabase(":memory:");
  let now = NOW;
  const perception = new PerceptionEngine({
    store: sqliteStore(db),
    log: createLogger("test", { sink: () => {} }),
    sensors: false,
    now: () => now,
  });
  try {
    const taken = takeOtlpExport(
      db,
      "logs",
      new TextEncoder().encode(JSON.stringify(telemetry())),
      "json",
      { now },
    );
    assert.equal(taken.rejected, 0);
    assert.ok(taken.stored.sessions.includes(SESSION));

    assert.equal(perception.onTelemetry(SESSION), 3);
    const found = Object.fromEntries(activeAnomalies(db, SESSION).map((a) => [a.kind, a]));
    assert.deepEqual(Object.keys(found).sort(), [
      "api_error_burst",
      "costly_request",
      "tool_slowdown",
    ]);
    assert.equal(found.api_error_burst.severity, "warning");
    assert.match(
      found.api_error_burst.evidence,
      /^3 model API errors in 2 min \(429 ×3\); the latest at 11:59:30 UTC from claude-sonnet-4-5: "rate_limit_error"\.$/,
    );
    assert.match(found.api_error_burst.suggestion, /rate limited/);
    assert.equal(found.costly_request.severity, "warning");
    assert.match(
      found.costly_request.evidence,
      /^A claude-sonnet-4-5 call at 11:54:00 UTC cost \$0\.18 — 40\.0× this session's average of \$0\.0045 over 8 other calls \(50k tokens in, 2\.0k out, request req_\d+\)\.$/,
    );
    assert.equal(found.tool_slowdown.severity, "warning");
    assert.equal(
      found.tool_slowdown.evidence,
      "Bash took 3.0 s (median of its last 3 calls: 2.5 s, 3.5 s, 3.0 s), over its own p95 of 280 ms from 20 earlier calls.",
    );
    // The other session is unaffected.
    assert.equal(perception.onTelemetry("cc-old"), 0);
    assert.deepEqual(activeAnomalies(db, "cc-old"), []);

    // The next export for the session says nothing new: silent for ten minutes.
    now += MIN;
    assert.equal(perception.onTelemetry(SESSION), 0);
    assert.equal(activeAnomalies(db, SESSION).length, 3);

    // The agent's next prompt carries them, and the hook rules leave them open.
    const answer = writing(db, () => {
      const hook = takeHookDelivery(db, {
        agent: "claude_code",
        delivery_id: "prompt-1",
        received_at: now,
        payload: {
          session_id: SESSION,
          cwd: "/home/dev/shop",
          hook_event_name: "UserPromptSubmit",
          prompt: "continue",
        },
      });
      assert.ok(hook.stored);
      return perception.onHookEvent(hook.event);
    });
    const context = JSON.stringify(answer.output);
    assert.match(context, /api_error_burst: 3 model API errors/);
    assert.match(context, /tool_slowdown: Bash took 3\.0 s/);
    assert.equal(activeAnomalies(db, SESSION).length, 3);

    // Forty minutes on, the errors, the call and the slow Bash are out of their windows.
    now += 40 * MIN;
    assert.equal(perception.onTelemetry(SESSION), 0);
    assert.deepEqual(activeAnomalies(db, SESSION), []);
  } finally {
    perception.close();
    db.close();
  }
});
