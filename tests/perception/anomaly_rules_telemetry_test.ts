/**
 * The telemetry anomaly rules as pure functions: each fires on the pattern
 * it names, with the numbers in its evidence and advice that fits, and stays
 * quiet just under its bars (too few errors, or too spread out; a cheap or
 * ordinary call, too little history for an average; one slow call, a tool
 * with no baseline, a slow but sub-second median).
 */
import assert from "node:assert/strict";
import { detectAnomalies } from "../../src/perception/anomaly_rules.ts";
import { p95 } from "../../src/perception/anomaly_rules_telemetry.ts";
import type {
  AnomalyKind,
  ObservedModelCall,
  SessionActivity,
  TelemetryActivity,
} from "../../src/perception/anomaly_types.ts";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const MIN = 60_000;

function activity(telemetry: Partial<TelemetryActivity>): SessionActivity {
  return {
    session_id: "s-tel",
    now: NOW,
    events: [],
    telemetry: {
      api_errors: [],
      model_calls: [],
      session_cost: { calls: 0, cost_usd: 0 },
      tool_calls: [],
      tool_baselines: {},
      ...telemetry,
    },
  };
}

function run(a: SessionActivity, kind: AnomalyKind) {
  return detectAnomalies(a, { kinds: [kind] });
}

function error(minutesAgo: number, status: number, text: string) {
  return { ts: NOW - minutesAgo * MIN, status_code: status, error: text, model: "claude-opus-4-8" };
}

Deno.test("api_error_burst: three errors within five minutes, advice by what they are", () => {
  const [finding, ...rest] = run(
    activity({
      api_errors: [
        error(4, 429, "rate_limit_error"),
        error(3, 429, "rate_limit_error"),
        error(1, 529, "overloaded_error"),
        error(0.5, 429, "rate_limit_error: 50 requests per minute"),
      ],
    }),
    "api_error_burst",
  );
  assert.equal(rest.length, 0);
  assert.equal(finding.severity, "warning");
  assert.equal(finding.channel, "next_prompt");
  assert.equal(
    finding.evidence,
    '4 model API errors in 4 min (429 ×3, 529 ×1); the latest at 11:59:30 UTC from claude-opus-4-8: "rate_limit_error: 50 requests per minute".',
  );
  assert.match(finding.suggestion, /rate limited/);
  assert.equal(finding.observed_at, NOW - 30_000);

  const overloaded = run(
    activity({ api_errors: [error(2, 529, "x"), error(1, 529, "x"), error(0, 503, "x")] }),
    "api_error_burst",
  );
  assert.match(overloaded[0].suggestion, /overloaded/);
  assert.notEqual(overloaded[0].fingerprint, finding.fingerprint, "another kind of burst");

  const many = run(
    activity({
      api_errors: Array.from({ length: 10 }, (_, i) => error(i * 0.4, 500, "api_error")),
    }),
    "api_error_burst",
  );
  assert.equal(many[0].severity, "critical");
});

Deno.test("api_error_burst stays quiet for two errors, or three spread over more than five minutes", () => {
  assert.deepEqual(
    run(activity({ api_errors: [error(2, 429, "x"), error(1, 429, "x")] }), "api_error_burst"),
    [],
  );
  assert.deepEqual(
    run(
      activity({ api_errors: [error(12, 429, "x"), error(6, 429, "x"), error(1, 429, "x")] }),
      "api_error_burst",
    ),
    [],
  );
});

function call(minutesAgo: number, cost: number, extra: Partial<ObservedModelCall> = {}) {
  return {
    ts: NOW - minutesAgo * MIN,
    key: `call-${minutesAgo}`,
    model: "claude-opus-4-8",
    cost_usd: cost,
    in_totals: true,
    context_tokens: 180_000,
    output_tokens: 2_000,
    ...extra,
  };
}

Deno.test("costly_request: a call over three times the session's other calls' average", () => {
  // Nine calls at $0.05 and this one at $0.45: the others average $0.05, so 9×.
  const [finding, ...rest] = run(
    activity({
      model_calls: [call(20, 0.05), call(2, 0.45, { request_id: "req_big" })],
      session_cost: { calls: 10, cost_usd: 0.9 },
    }),
    "costly_request",
  );
  assert.equal(rest.length, 0);
  assert.equal(finding.severity, "info");
  assert.equal(
    finding.evidence,
    "A claude-opus-4-8 call at 11:58:00 UTC cost $0.45 — 9.0× this session's average of $0.05 over 9 other calls (180k tokens in, 2.0k out, request req_big).",
  );
  assert.match(finding.suggestion, /180k tokens of context/);

  // Ten times and more is a warning; mostly output gets other advice.
  const output = run(
    activity({
      model_calls: [call(1, 0.6, { context_tokens: 5_000, output_tokens: 30_000 })],
      session_cost: { calls: 10, cost_usd: 1.05 },
    }),
    "costly_request",
  );
  assert.equal(output[0].severity, "warning");
  assert.match(output[0].suggestion, /Most of it was output/);

  // A call the totals do not hold yet (its transcript line is not read): the average is all of them.
  const fresh = run(
    activity({
      model_calls: [call(1, 0.3, { in_totals: false })],
      session_cost: { calls: 5, cost_usd: 0.25 },
    }),
    "costly_request",
  );
  assert.match(fresh[0].evidence, /6\.0× this session's average of \$0\.05 over 5 other calls/);
});

Deno.test("costly_request stays quiet for cheap calls, ordinary calls, short sessions and old calls", () => {
  const quiet = (calls: ObservedModelCall[], totals: { calls: number; cost_usd: number }) =>
    assert.deepEqual(
      run(activity({ model_calls: calls, session_cost: totals }), "costly_request"),
      [],
    );
  quiet([call(1, 0.009)], { calls: 10, cost_usd: 0.01 }); // under a cent
  quiet([call(1, 0.14)], { calls: 10, cost_usd: 0.59 }); // 0.14 vs 0.05: 2.8×
  quiet([call(1, 0.45)], { calls: 4, cost_usd: 0.6 }); // three others: no average yet
  quiet([call(45, 0.45)], { calls: 10, cost_usd: 0.9 }); // older than half an hour
});

function tool(minutesAgo: number, durationMs: number, name = "Bash") {
  return { ts: NOW - minutesAgo * MIN, tool_name: name, duration_ms: durationMs };
}

Deno.test("tool_slowdown: the latest three calls' median over the tool's own p95", () => {
  const [finding, ...rest] = run(
    activity({
      tool_calls: [tool(9, 400), tool(6, 3_900), tool(3, 5_100), tool(1, 4_200)],
      tool_baselines: { Bash: { p95_ms: 1_300, calls: 240 } },
    }),
    "tool_slowdown",
  );
  assert.equal(rest.length, 0);
  assert.equal(finding.severity, "warning", "over twice its p95");
  assert.equal(
    finding.evidence,
    "Bash took 4.2 s (median of its last 3 calls: 3.9 s, 5.1 s, 4.2 s), over its own p95 of 1.3 s from 240 earlier calls.",
  );
  assert.match(finding.suggestion, /Something Bash depends on got slow/);
  assert.equal(finding.observed_at, NOW - MIN);

  const mild = run(
    activity({
      tool_calls: [tool(3, 1_500), tool(2, 1_600), tool(1, 1_700)],
      tool_baselines: { Bash: { p95_ms: 1_300, calls: 40 } },
    }),
    "tool_slowdown",
  );
  assert.equal(mild[0].severity, "info");
});

Deno.test("tool_slowdown stays quiet for one slow call, little history, sub-second tools", () => {
  const quiet = (partial: Partial<TelemetryActivity>) =>
    assert.deepEqual(run(activity(partial), "tool_slowdown"), []);
  const baseline = { Bash: { p95_ms: 300, calls: 100 } };
  // One slow call among fast ones: the median is fast.
  quiet({ tool_calls: [tool(3, 200), tool(2, 9_000), tool(1, 250)], tool_baselines: baseline });
  // Only two calls.
  quiet({ tool_calls: [tool(2, 9_000), tool(1, 9_000)], tool_baselines: baseline });
  // Too little history for a p95.
  quiet({
    tool_calls: [tool(3, 9_000), tool(2, 9_000), tool(1, 9_000)],
    tool_baselines: { Bash: { p95_ms: 300, calls: 19 } },
  });
  // Slower than usual, but under a second.
  quiet({ tool_calls: [tool(3, 900), tool(2, 950), tool(1, 990)], tool_baselines: baseline });
  // Slow calls older than the window.
  quiet({
    tool_calls: [tool(30, 9_000), tool(25, 9_000), tool(20, 9_000)],
    tool_baselines: baseline,
  });
});

Deno.test("p95 is the nearest rank", () => {
  assert.equal(p95([]), undefined);
  assert.equal(p95([5]), 5);
  assert.equal(p95(Array.from({ length: 20 }, (_, i) => i + 1)), 19);
  assert.equal(p95(Array.from({ length: 100 }, (_, i) => 100 - i)), 95);
});

Deno.test("without telemetry the rules say nothing", () => {
  const bare: SessionActivity = { session_id: "s", now: NOW, events: [] };
  for (const kind of ["api_error_burst", "costly_request", "tool_slowdown"] as const) {
    assert.deepEqual(run(bare, kind), []);
  }
});
