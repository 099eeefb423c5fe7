/**
 * What the operations say about cost and time, on a store filled by the real ingester: calls of
 * a model no price fits are counted as unpriced (never $0), 1-hour cache writes cost what they
 * cost, the daily per-model series adds up, and a session whose records have no time says its
 * start is unknown instead of 1970.
 */
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { ingestTranscriptFile } from "../../src/agent/transcripts/transcript_ingester.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { CLOCK, DATABASE, vantageServices } from "../../src/ops/runtime.ts";

const DAY = 86_400_000;

/** An operation's JSON answer, read field by field by the assertions. */
// deno-lint-ignore no-explicit-any
type Operand = Record<string, any>;
const NOW = Date.parse("2026-11-30T12:00:00.000Z");

function answer(session: string, id: string, model: string, at: number, usage: object): string {
  return JSON.stringify({
    type: "assistant",
    uuid: `u-${id}`,
    sessionId: session,
    requestId: `req_${id}`,
    cwd: "/p",
    timestamp: new Date(at).toISOString(),
    message: { id: `msg_${id}`, model, role: "assistant", content: [], usage },
  });
}

Deno.test("operations: unpriced calls are counted apart, unknown starts are null, days add up", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vantage-usage-ops-" });
  const paths = resolvePaths(join(dir, ".vantage"));
  const services = vantageServices(paths);
  services.provide(CLOCK, () => () => NOW);
  try {
    const db = services.get(DATABASE);
    const projects = join(dir, ".claude", "projects", "-p");
    mkdirSync(projects, { recursive: true });
    const oneHour = {
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 1_000_000,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1_000_000 },
    };
    const output = { input_tokens: 0, output_tokens: 100_000 };
    writeFileSync(
      join(projects, "priced.jsonl"),
      [
        answer("priced", "a", "claude-sonnet-4-6", NOW - 2 * DAY, oneHour),
        answer("priced", "b", "mystery-model-9", NOW - DAY, output),
        answer("priced", "c", "mystery-model-9", NOW - DAY + 60_000, output),
      ].join("\n") + "\n",
    );
    // A resumed transcript whose only lines carry no time.
    writeFileSync(
      join(projects, "timeless.jsonl"),
      '{"type":"summary","summary":"Old work","leafUuid":"x"}\n' +
        '{"type":"user","uuid":"t1","sessionId":"timeless","message":{"role":"user","content":"hi"}}\n',
    );
    for (const name of ["priced", "timeless"]) {
      await ingestTranscriptFile(db, join(projects, `${name}.jsonl`), "claude_code");
    }
    const catalog = builtinCatalog();
    const run = async (id: string, args: Record<string, unknown>) => {
      const response = await executeOperation(catalog, id, args, {
        scopes: ["agent:read"],
        cwd: "/p",
      }, { services });
      assert.ok("result" in response, JSON.stringify(response));
      return response.result as Operand;
    };

    const overview = await run("agent.overview", { since_min: 7 * 1440 });
    // 1M 1-hour writes on Sonnet 4.6: $6 (5-minute writes would be $3.75).
    assert.equal(overview.window.cost_usd, 6);
    assert.equal(overview.window.model_calls, 3);
    assert.equal(overview.window.unpriced_calls, 2);
    assert.deepEqual(overview.window.unpriced_models, [{ model: "mystery-model-9", calls: 2 }]);

    const daily = await run("agent.usage_timeseries", {
      since_min: 7 * 1440,
      bucket_min: 1440,
      group_by: "model",
    });
    assert.equal(daily.bucket_min, 1440);
    const series = daily.series as Array<Record<string, number[]> & { key: string }>;
    const byModel = new Map(series.map((s) => [s.key, s]));
    const sonnet = byModel.get("claude-sonnet-4-6")!;
    const mystery = byModel.get("mystery-model-9")!;
    const dayOf = (t: number) => daily.buckets.indexOf(Math.floor(t / DAY) * DAY);
    assert.equal(sonnet.cost_usd[dayOf(NOW - 2 * DAY)], 6);
    assert.equal(sonnet.cache_write_tokens[dayOf(NOW - 2 * DAY)], 1_000_000);
    assert.equal(mystery.unpriced_calls[dayOf(NOW - DAY)], 2);
    assert.equal(mystery.output_tokens[dayOf(NOW - DAY)], 200_000);
    assert.equal(mystery.cost_usd.reduce((a, b) => a + b, 0), 0);
    assert.deepEqual(
      [daily.totals.calls, daily.totals.unpriced_calls, daily.totals.cost_usd],
      [3, 2, 6],
    );

    const list = await run("agent.list_sessions", { since_min: 7 * 1440, project: "*" });
    const priced = list.sessions.find((s: Record<string, unknown>) => s.session_id === "priced");
    assert.equal(priced.unpriced_calls, 2);
    assert.equal(priced.cost_usd, 6);
    assert.equal(priced.started_at, new Date(NOW - 2 * DAY).toISOString());
    assert.equal(priced.duration_min, (DAY + 60_000) / 60_000);

    const timeless = db.prepare("SELECT started_at FROM sessions WHERE session_id = 'timeless'")
      .get() as { started_at: number };
    assert.equal(timeless.started_at, 0, "stored as 0: not known");
    const state = await run("agent.get_session_state", { session_id: "timeless" });
    assert.equal(state.started_at, null);
    assert.equal(state.duration_min, null);
    assert.equal(state.last_activity_at, null);
    assert.equal(state.last_activity_ago, "unknown");
    const timeline = await run("agent.session_timeline", { session_id: "timeless" });
    assert.equal(timeline.started_at, null);
    assert.equal(timeline.session.started_at, null);
    assert.equal(timeline.session.duration_min, null);
  } finally {
    services.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
