/**
 * `agent.traces` on a store fed through the real OTLP intake: a GenAI app's
 * chat spans in conversations whose context grows turn by turn, a one-call
 * conversation, an unpriced model and a failed call, and Claude Code
 * `api_request` events grouped into questions by prompt id (with a side
 * request that is a call but not a turn). Every expected figure follows
 * from the tokens sent and Vantage's price of claude-sonnet-4-5 ($3 in,
 * $15 out per million).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { takeOtlpExport } from "../../../src/agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../../../src/agent/otlp/otlp_schema.ts";
import { resolvePaths } from "../../../src/core/config.ts";
import { builtinCatalog } from "../../../src/ops/builtin.ts";
import { executeOperation } from "../../../src/ops/executor.ts";
import { CLOCK, DATABASE, vantageServices } from "../../../src/ops/runtime.ts";
import {
  hexId,
  logRecord,
  logsRequest,
  span,
  type SpanSpec,
  tracesRequest,
} from "../../helpers/otlp_bodies.ts";

// deno-lint-ignore no-explicit-any
type Operand = Record<string, any>;

const NOW = Date.parse("2026-12-02T12:00:00Z");
const MIN = 60_000;

function chat(
  conversation: string,
  traceId: string,
  minutesAgo: number,
  input: number,
  output: number,
  finish: string,
  model = "claude-sonnet-4-5",
): SpanSpec {
  return {
    traceId,
    name: `chat ${model}`,
    endMs: NOW - minutesAgo * MIN,
    durationMs: 900,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.conversation.id": conversation,
      "gen_ai.request.model": model,
      "gen_ai.usage.input_tokens": input,
      "gen_ai.usage.output_tokens": output,
      "gen_ai.response.finish_reasons": [finish],
    },
  };
}

function apiRequest(sequence: number, minutesAgo: number, prompt: string, extra = {}) {
  return logRecord(NOW - minutesAgo * MIN, "claude_code.api_request", {
    "event.name": "api_request",
    "event.sequence": sequence,
    "session.id": "cc-sess",
    "prompt.id": prompt,
    request_id: `req_${sequence}`,
    model: "claude-sonnet-4-5",
    input_tokens: 100,
    output_tokens: 10,
    cost_usd: 0.01,
    duration_ms: 800,
    ...extra,
  });
}

Deno.test("agent.traces: snowball, cost per question and finish reasons per conversation", async () => {
  const dir = await Deno.makeTempDir();
  const services = vantageServices(resolvePaths(join(dir, ".vantage")));
  services.provide(CLOCK, () => () => NOW);
  try {
    const db = services.get(DATABASE);
    const send = (signal: OtlpSignal, request: unknown) => {
      const result = takeOtlpExport(
        db,
        signal,
        new TextEncoder().encode(JSON.stringify(request)),
        "json",
        { now: NOW },
      );
      assert.equal(result.rejected, 0);
    };
    const t1 = hexId(16);
    const t2 = hexId(16);
    send(
      "traces",
      tracesRequest([
        // Two questions: each turn resends the conversation, so the input climbs.
        span(chat("conv-snow", t1, 50, 1000, 100, "tool_use")),
        span(chat("conv-snow", t1, 49, 2000, 100, "tool_use")),
        span(chat("conv-snow", t1, 48, 3000, 200, "end_turn")),
        span(chat("conv-snow", t2, 40, 4000, 100, "tool_use")),
        span(chat("conv-snow", t2, 39, 5000, 300, "end_turn")),
        // A failed call: a call, not a turn, no finish reason.
        span({
          traceId: t2,
          name: "chat claude-sonnet-4-5",
          endMs: NOW - 38 * MIN,
          durationMs: 50,
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": "conv-snow",
            "gen_ai.request.model": "claude-sonnet-4-5",
            "http.response.status_code": 529,
          },
          error: "overloaded",
        }),
        span(chat("conv-one", hexId(16), 30, 20_000, 1000, "length")),
        span(chat("conv-acme", hexId(16), 20, 500, 50, "stop", "acme-llm-7")),
      ], { "service.name": "support-bot" }),
    );
    send(
      "logs",
      logsRequest([
        apiRequest(1, 15, "p1"),
        apiRequest(2, 14, "p1"),
        // A title request: in no transcript, priced at what Claude Code reported.
        apiRequest(3, 14, "p1", { query_source: "generate_session_title", cost_usd: 0.002 }),
        apiRequest(4, 10, "p2"),
      ], { "service.name": "claude-code" }),
    );

    const response = await executeOperation(
      builtinCatalog(),
      "agent.traces",
      {},
      { scopes: ["agent:read"], cwd: "/" },
      { services },
    );
    assert.ok("result" in response, JSON.stringify(response));
    const r = response.result as Operand;

    assert.equal(r.conversations, 4);
    assert.equal(r.questions, 6, "conv-snow 2, conv-one 1, conv-acme 1, cc-sess 2 (p1, p2)");
    assert.equal(r.calls, 12);
    assert.equal(r.unpriced_calls, 1, "the acme model has no price");
    assert.equal(r.cost_usd, 0.13535);
    // Questions with a price: 0.00045 (p2), 0.0029 (p1 with its title call), 0.024, 0.033, 0.075.
    assert.deepEqual(r.cost_per_question, {
      questions: 5,
      avg_usd: 0.02707,
      p50_usd: 0.024,
      p95_usd: 0.075,
      max_usd: 0.075,
    });
    assert.deepEqual(r.finish_reasons, [
      { reason: "unknown", calls: 5 },
      { reason: "tool_use", calls: 3 },
      { reason: "end_turn", calls: 2 },
      { reason: "length", calls: 1 },
      { reason: "stop", calls: 1 },
    ]);

    assert.deepEqual(r.top.map((c: Operand) => [c.session_id, c.cost_usd]), [
      ["conv-one", 0.075],
      ["conv-snow", 0.057],
      ["cc-sess", 0.00335],
      ["conv-acme", 0],
    ]);
    const snow = r.top[1];
    assert.equal(snow.agent, "gen_ai");
    assert.equal(snow.model, "claude-sonnet-4-5");
    assert.equal(snow.calls, 6);
    assert.equal(snow.questions, 2);
    assert.equal(snow.cost_per_question_usd, 0.0285);
    assert.equal(snow.output_tokens, 800);
    assert.deepEqual(snow.snowball, {
      turns: 5,
      first: 1000,
      last: 5000,
      max: 5000,
      growth_per_turn: 1000,
      every: 1,
      context: [1000, 2000, 3000, 4000, 5000],
    });
    assert.equal(snow.first_at, new Date(NOW - 50 * MIN).toISOString());
    assert.deepEqual(snow.finish_reasons, [
      { reason: "tool_use", calls: 3 },
      { reason: "end_turn", calls: 2 },
      { reason: "unknown", calls: 1 },
    ]);
    const cc = r.top[2];
    assert.equal(cc.agent, "claude_code");
    assert.equal(cc.calls, 4);
    assert.equal(cc.questions, 2);
    assert.deepEqual(cc.snowball.context, [100, 100, 100], "the title call is not a turn");
    const acme = r.top[3];
    assert.equal(acme.unpriced_calls, 1);
    assert.equal(acme.cost_per_question_usd, null);

    const narrow = await executeOperation(
      builtinCatalog(),
      "agent.traces",
      {
        since_min: 5,
        limit: 1,
      },
      { scopes: ["agent:read"], cwd: "/" },
      { services },
    );
    assert.ok("result" in narrow);
    const none = narrow.result as Operand;
    assert.equal(none.calls, 0);
    assert.deepEqual(none.top, []);
    assert.match(none.note, /OTEL_EXPORTER_OTLP_ENDPOINT/);
  } finally {
    services.close();
    await Deno.remove(dir, { recursive: true });
  }
});
