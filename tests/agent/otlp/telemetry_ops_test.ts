/**
 * The telemetry operations on a store fed through the real intake: Claude
 * Code 2.1.197's recorded exports plus GenAI spans with known durations, a
 * rate-limited call and failing tools. Percentiles are nearest-rank, so each
 * expected figure below is a value that was sent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { resolvePaths } from "../../../src/core/config.ts";
import { takeOtlpExport } from "../../../src/agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../../../src/agent/otlp/otlp_schema.ts";
import { builtinCatalog } from "../../../src/ops/builtin.ts";
import { executeOperation } from "../../../src/ops/executor.ts";
import { CLOCK, DATABASE, vantageServices } from "../../../src/ops/runtime.ts";

// deno-lint-ignore no-explicit-any
type Operand = Record<string, any>;

const FIXTURES = new URL("../../fixtures/otlp/claude_code_2.1.197/", import.meta.url);
/** Shortly after the recorded Claude Code session ended. */
const NOW = 1_796_147_800_000;
const MIN = 60_000;

function nanos(ms: number): string {
  return `${BigInt(Math.round(ms)) * 1_000_000n}`;
}

let spanCounter = 0;
function span(
  name: string,
  endMs: number,
  durationMs: number,
  attributes: Record<string, string | number>,
  error?: string,
) {
  spanCounter++;
  return {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: spanCounter.toString(16).padStart(16, "0"),
    name,
    kind: 3,
    startTimeUnixNano: nanos(endMs - durationMs),
    endTimeUnixNano: nanos(endMs),
    attributes: Object.entries(attributes).map(([key, value]) => ({
      key,
      value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value },
    })),
    ...(error !== undefined ? { status: { code: 2, message: error } } : {}),
  };
}

function genAiSpans() {
  const spans = [];
  for (let i = 0; i < 20; i++) {
    const duration = (i + 1) * 100;
    spans.push(
      span("chat claude-sonnet-4-5", NOW - ((i + 1) * 10 - 1) * MIN, duration, {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": "conv-1",
        "gen_ai.request.model": "claude-sonnet-4-5",
        "gen_ai.usage.input_tokens": 1000,
        "gen_ai.usage.output_tokens": 100,
      }),
    );
    // TTFT in seconds, as the convention writes it: a tenth of the duration.
    spans[spans.length - 1].attributes.push({
      key: "gen_ai.response.time_to_first_chunk",
      value: { doubleValue: duration / 10 / 1000 } as never,
    });
  }
  spans.push(
    span("chat claude-sonnet-4-5", NOW - 5 * MIN, 50, {
      "gen_ai.operation.name": "chat",
      "gen_ai.conversation.id": "conv-1",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "error.type": "rate_limit_error",
      "http.response.status_code": 429,
    }, "rate limited"),
  );
  for (let j = 0; j < 10; j++) {
    const fails = j === 3 || j === 7;
    spans.push(
      span(
        "execute_tool Bash",
        NOW - (j + 1) * 5 * MIN,
        (j + 1) * 10,
        {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.conversation.id": "conv-1",
          "gen_ai.tool.name": "Bash",
          "gen_ai.tool.call.id": `call-${j}`,
          ...(fails ? { "error.type": "ShellError" } : {}),
        },
        fails ? "exit 1" : undefined,
      ),
    );
  }
  // The day before: Bash was slower.
  for (let k = 0; k < 4; k++) {
    spans.push(
      span("execute_tool Bash", NOW - 30 * 60 * MIN - k * MIN, 200, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.conversation.id": "conv-0",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": `old-${k}`,
      }),
    );
  }
  return {
    resourceSpans: [{
      resource: { attributes: [{ key: "service.name", value: { stringValue: "my-agent-app" } }] },
      scopeSpans: [{ scope: { name: "genai-instrumentation" }, spans }],
    }],
  };
}

Deno.test("telemetry operations: latency, tool performance, API errors, cost burn", async () => {
  const dir = await Deno.makeTempDir();
  const services = vantageServices(resolvePaths(join(dir, ".vantage")));
  services.provide(CLOCK, () => () => NOW);
  try {
    const db = services.get(DATABASE);
    const exports = JSON.parse(await Deno.readTextFile(new URL("exports.json", FIXTURES))) as Array<
      { path: string; body: unknown }
    >;
    const send = (signal: OtlpSignal, body: unknown) => {
      const result = takeOtlpExport(
        db,
        signal,
        new TextEncoder().encode(JSON.stringify(body)),
        "json",
        {
          now: NOW,
        },
      );
      assert.equal(result.rejected, 0);
    };
    for (const item of exports) send(item.path.slice(4) as OtlpSignal, item.body);
    send("traces", genAiSpans());

    const catalog = builtinCatalog();
    const call = async (id: string, args: Record<string, unknown> = {}): Promise<Operand> => {
      const response = await executeOperation(catalog, id, args, {
        scopes: ["agent:read"],
        cwd: "/",
      }, { services });
      assert.ok("result" in response, JSON.stringify(response));
      return response.result as Operand;
    };

    const latency = await call("agent.latency");
    const byModel = Object.fromEntries(latency.models.map((m: Operand) => [m.model, m]));
    // Claude Code: the api_request events' durations 217, 125, 72; the spans' TTFT 69, 26, 59.
    assert.deepEqual(
      pick(byModel["claude-opus-4-8"], ["calls", "failed", "p50_ms", "p95_ms"]),
      { calls: 3, failed: 0, p50_ms: 125, p95_ms: 217 },
    );
    assert.equal(byModel["claude-opus-4-8"].ttft_p50_ms, 59);
    assert.equal(byModel["claude-opus-4-8"].ttft_p95_ms, 69);
    // GenAI: 100..2000 ms plus a 50 ms failed call; TTFT a tenth of each successful duration.
    assert.deepEqual(
      pick(byModel["claude-sonnet-4-5"], [
        "calls",
        "failed",
        "p50_ms",
        "p95_ms",
        "ttft_p50_ms",
        "ttft_p95_ms",
      ]),
      { calls: 21, failed: 1, p50_ms: 1000, p95_ms: 1900, ttft_p50_ms: 100, ttft_p95_ms: 190 },
    );
    const series = byModel["claude-sonnet-4-5"].series as Operand[];
    assert.equal(series.reduce((n, p) => n + p.calls, 0), 21);
    const onlyClaude = await call("agent.latency", { agent_source: "cc" });
    assert.deepEqual(onlyClaude.models.map((m: Operand) => m.model), ["claude-opus-4-8"]);

    const tools = await call("agent.tool_performance");
    const bash = tools.tools.find((t: Operand) => t.tool === "Bash");
    // 10..100 ms from the GenAI app, 641 and 57 ms from Claude Code; three failed.
    assert.deepEqual(pick(bash, ["calls", "failed", "success_rate", "p50_ms", "p95_ms"]), {
      calls: 12,
      failed: 3,
      success_rate: 0.75,
      p50_ms: 57,
      p95_ms: 641,
    });
    assert.deepEqual(bash.trend, {
      previous_calls: 4,
      previous_p95_ms: 200,
      p95_change_pct: 220.5,
    });
    assert.equal(tools.recent_failures.length, 3);
    assert.equal(tools.recent_failures[0].error_type, "ShellError");
    assert.equal(tools.recent_failures[0].agent, "claude_code", "the latest failure first");

    const errors = await call("agent.api_errors");
    assert.equal(errors.errors, 1);
    assert.equal(errors.calls, 23);
    assert.equal(errors.error_rate, Math.round((1 / 24) * 10_000) / 10_000);
    assert.deepEqual(errors.by_status, [{ status_code: 429, errors: 1 }]);
    assert.equal(errors.recent[0].error, "rate_limit_error");
    assert.equal(errors.recent[0].model, "claude-sonnet-4-5");

    const burn = await call("agent.cost_burn");
    // Claude Code: 3 × $0.00135; GenAI: 20 × (1000 × $3 + 100 × $15) / 1M = 20 × $0.0045.
    assert.equal(burn.last_24h_usd, 0.09405);
    assert.equal(burn.last_hour_usd, 0.03105, "six GenAI calls (9..59 min ago) and Claude's three");
    assert.equal(burn.hourly_rate_usd, Math.round((0.09405 / 24) * 1e6) / 1e6);
    assert.equal(burn.projected_week_usd, Math.round((0.09405 / 7) * 7 * 1e6) / 1e6);
    assert.equal(burn.most_expensive[0].cost_usd, 0.0045);
    assert.equal(burn.most_expensive[0].model, "claude-sonnet-4-5");
    assert.equal(burn.per_hour.reduce((n: number, b: Operand) => n + b.calls, 0), 23);

    // An empty window says why it is empty.
    const empty = await call("agent.latency", { since_min: 60, until_min: 10_000 });
    assert.equal(empty.models.length, 0);
    assert.match(empty.note, /OTEL_EXPORTER_OTLP_ENDPOINT/);
  } finally {
    services.close();
    await Deno.remove(dir, { recursive: true });
  }
});

function pick(object: Operand, keys: string[]): Operand {
  return Object.fromEntries(keys.map((k) => [k, object[k]]));
}
