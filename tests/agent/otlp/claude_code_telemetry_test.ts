/**
 * What Claude Code 2.1.197 really exported during one session (fixture:
 * `tests/fixtures/otlp/claude_code_2.1.197/`) becomes one session, three
 * model calls with latency and time to first token, two tool calls (one
 * failed with ShellError) and the user and host it ran as; the session's
 * totals equal its transcript's, whichever arrives first, each call counted
 * once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { takeOtlpExport } from "../../../src/agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../../../src/agent/otlp/otlp_schema.ts";
import { ingestTranscriptFile } from "../../../src/agent/transcripts/transcript_ingester.ts";
import { type DatabaseSync, openDatabase } from "../../../src/store/database.ts";

const FIXTURES = new URL("../../fixtures/otlp/claude_code_2.1.197/", import.meta.url);
const SESSION = "f8236733-d176-41ab-9124-ccc8cb813fb6";
const exports = JSON.parse(
  await Deno.readTextFile(new URL("exports.json", FIXTURES)),
) as Array<{ path: string; body: unknown }>;

function sendAll(db: DatabaseSync): void {
  for (const item of exports) {
    const signal = item.path.slice("/v1/".length) as OtlpSignal;
    const body = new TextEncoder().encode(JSON.stringify(item.body));
    const result = takeOtlpExport(db, signal, body, "json");
    assert.equal(result.rejected, 0, item.path);
  }
}

/** The transcript's figures, read with the transcript parser alone (a store of its own). */
async function transcriptTruth(dir: string): Promise<Totals> {
  const db = openDatabase(join(dir, "truth.db"));
  try {
    await ingestTranscriptFile(db, await transcriptCopy(dir), "claude_code");
    return totals(db);
  } finally {
    db.close();
  }
}

async function transcriptCopy(dir: string): Promise<string> {
  const path = join(dir, `${SESSION}.jsonl`);
  await Deno.copyFile(new URL(`${SESSION}.jsonl`, FIXTURES), path);
  return path;
}

interface Totals {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  tool_calls: number;
  cost_usd: number;
  model_calls: number;
}

function totals(db: DatabaseSync): Totals {
  const session = db.prepare(
    `SELECT input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, tool_calls,
       round(cost_usd, 9) AS cost_usd
     FROM sessions WHERE session_id = ?`,
  ).get(SESSION) as unknown as Omit<Totals, "model_calls">;
  const calls = db.prepare("SELECT coalesce(sum(calls), 0) AS n FROM usage WHERE session_id = ?")
    .get(SESSION) as { n: number };
  return { ...session, model_calls: calls.n };
}

Deno.test("Claude Code telemetry: calls, latency, tools, user and host", async () => {
  const dir = await Deno.makeTempDir();
  const db = openDatabase(join(dir, "store.db"));
  try {
    sendAll(db);
    const calls = db.prepare(
      `SELECT request_id, model, input_tokens, output_tokens, duration_ms, ttft_ms, finish_reason,
         prompt_id, cost_usd FROM telemetry_model_calls ORDER BY request_id`,
    ).all();
    assert.deepEqual(calls.map((c) => c.request_id), [
      "req_script_001",
      "req_script_002",
      "req_script_003",
    ]);
    // The api_request event's duration wins over the span's (217 vs 255 ms); the span adds TTFT.
    assert.equal(calls[0].duration_ms, 217);
    assert.equal(calls[0].ttft_ms, 69);
    assert.equal(calls[0].finish_reason, "tool_use");
    assert.equal(calls[2].finish_reason, "end_turn");
    assert.equal(calls[0].model, "claude-opus-4-8");
    assert.equal(calls[0].prompt_id, "1bba9f5a-f403-409a-a026-7aaa07ad40f9");
    assert.equal(calls[0].cost_usd, 0.00135);

    const tools = db.prepare(
      `SELECT tool_use_id, tool_name, duration_ms, success, error_type, decision, decision_source
       FROM telemetry_tool_calls ORDER BY tool_use_id`,
    ).all();
    assert.deepEqual(tools.map((t) => ({ ...t })), [
      {
        tool_use_id: "toolu_script_001",
        tool_name: "Bash",
        duration_ms: 641,
        success: 1,
        error_type: null,
        decision: "accept",
        decision_source: "config",
      },
      {
        tool_use_id: "toolu_script_002",
        tool_name: "Bash",
        duration_ms: 57,
        success: 0,
        error_type: "ShellError",
        decision: "accept",
        decision_source: "config",
      },
    ]);
    const who = db.prepare(
      "SELECT agent, user_id, service_version, os_type, terminal_type FROM telemetry_sessions",
    ).all();
    assert.equal(who.length, 1);
    assert.equal(who[0].agent, "claude_code");
    assert.match(String(who[0].user_id), /^[0-9a-f]{64}$/);
    assert.equal(who[0].service_version, "2.1.197");
    assert.equal(who[0].terminal_type, "non-interactive");
    const points = db.prepare(
      "SELECT count(*) AS n FROM telemetry_metric_points WHERE name = 'claude_code.token.usage'",
    ).get() as { n: number };
    assert.ok(points.n > 0);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Claude Code telemetry and transcript count each call once, in either order", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const truth = await transcriptTruth(dir);
    assert.equal(truth.model_calls, 3);
    assert.equal(truth.tool_calls, 2);
    assert.ok(truth.input_tokens > 0 && truth.output_tokens > 0);

    // Telemetry first: counted from telemetry while no transcript was read, then the transcript
    // takes over and nothing is counted twice.
    const first = openDatabase(join(dir, "telemetry-first.db"));
    try {
      sendAll(first);
      assert.deepEqual(totals(first), truth, "telemetry alone gives the transcript's figures");
      await ingestTranscriptFile(first, await transcriptCopy(dir), "claude_code");
      assert.deepEqual(totals(first), truth);
      const keys = first.prepare("SELECT usage_key FROM usage ORDER BY usage_key").all();
      assert.ok(keys.every((k) => !String(k.usage_key).startsWith("otel:")), "telemetry withdrew");
      const linked = first.prepare(
        "SELECT count(*) AS n FROM telemetry_model_calls WHERE usage_key LIKE 'msg_%'",
      ).get() as { n: number };
      assert.equal(linked.n, 3, "each telemetry call names the transcript's usage row");
      // The same exports again (an exporter retrying) change nothing.
      sendAll(first);
      assert.deepEqual(totals(first), truth);
    } finally {
      first.close();
    }

    // Transcript first: telemetry adds latency and counts nothing.
    const second = openDatabase(join(dir, "transcript-first.db"));
    try {
      await ingestTranscriptFile(second, await transcriptCopy(dir), "claude_code");
      sendAll(second);
      assert.deepEqual(totals(second), truth);
      const ttft = second.prepare(
        "SELECT count(*) AS n FROM telemetry_model_calls WHERE ttft_ms > 0 AND counted = 0",
      ).get() as { n: number };
      assert.equal(ttft.n, 3);
    } finally {
      second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a Claude Code side request (a title) is kept but never counted in the session", async () => {
  const dir = await Deno.makeTempDir();
  const db = openDatabase(join(dir, "store.db"));
  try {
    const attr = (key: string, value: string | number) => ({
      key,
      value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value },
    });
    const event = (sequence: number, requestId: string, querySource: string) => ({
      timeUnixNano: `${1_796_147_764_000 + sequence}000000`,
      body: { stringValue: "claude_code.api_request" },
      attributes: [
        attr("session.id", "side-session"),
        attr("event.name", "api_request"),
        attr("event.sequence", sequence),
        attr("model", "claude-haiku-4-5"),
        attr("input_tokens", 50),
        attr("output_tokens", 5),
        attr("cost_usd", 0.000075),
        attr("duration_ms", "40"),
        attr("request_id", requestId),
        attr("query_source", querySource),
      ],
    });
    const body = {
      resourceLogs: [{
        resource: { attributes: [attr("service.name", "claude-code")] },
        scopeLogs: [{
          scope: { name: "com.anthropic.claude_code.events" },
          logRecords: [
            event(0, "req_main", "sdk"),
            event(1, "req_title", "generate_session_title"),
          ],
        }],
      }],
    };
    takeOtlpExport(db, "logs", new TextEncoder().encode(JSON.stringify(body)), "json");
    const session = db.prepare(
      "SELECT input_tokens, output_tokens FROM sessions WHERE session_id = 'side-session'",
    ).get();
    assert.deepEqual({ ...session }, { input_tokens: 50, output_tokens: 5 }, "the main call only");
    const rows = db.prepare(
      "SELECT request_id, outside_transcript, counted FROM telemetry_model_calls ORDER BY request_id",
    ).all().map((r) => ({ ...r }));
    assert.deepEqual(rows, [
      { request_id: "req_main", outside_transcript: null, counted: 1 },
      { request_id: "req_title", outside_transcript: 1, counted: 0 },
    ]);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
