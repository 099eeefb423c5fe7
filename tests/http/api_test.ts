/**
 * The pure handler's API routes on a store filled from the real transcript
 * fixtures: the catalog over JSON with the executor's scopes and error
 * kinds mapped to HTTP statuses, the read-only query route, body limits and
 * content types, live events, and the dashboard's embedded files.
 */
import assert from "node:assert/strict";
import { get, handlerFixture, postJson } from "../helpers/http_handler.ts";

const CLAUDE = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";
const YEAR = 525_600;

Deno.test("API routes over the catalog", async (t) => {
  const fixture = await handlerFixture();
  const { handler } = fixture;
  try {
    await t.step("GET /api/ops lists what the caller may run, with schemas", async () => {
      const response = await handler(get("/api/ops"));
      assert.equal(response.status, 200);
      const body = await response.json();
      const ids = body.operations.map((o: { operation_id: string }) => o.operation_id);
      for (
        const id of [
          "agent.overview",
          "agent.list_sessions",
          "agent.usage_timeseries",
          "agent.session_timeline",
          "agent.list_anomalies",
          "agent.exec_query",
        ]
      ) assert.ok(ids.includes(id), id);
      const overview = body.operations.find((o: { operation_id: string }) =>
        o.operation_id === "agent.overview"
      );
      assert.equal(overview.input_schema.type, "object");
      assert.ok(!body.scopes.includes("net"));
    });

    await t.step("X-Vantage-Scopes narrows the catalog and the executor checks again", async () => {
      const narrow = { "x-vantage-scopes": "agent:read" };
      const listed = await (await handler(get("/api/ops", narrow))).json();
      assert.deepEqual(listed.scopes, ["agent:read"]);
      assert.ok(
        !listed.operations.some((o: { operation_id: string }) =>
          o.operation_id === "agent.exec_query"
        ),
      );
      const refused = await handler(
        postJson("/api/ops/agent.exec_query", { sql: "SELECT 1" }, narrow),
      );
      assert.equal(refused.status, 403);
      assert.equal((await refused.json()).error.kind, "forbidden");
      const more = await handler(get("/api/ops", { "x-vantage-scopes": "agent:read,net" }));
      assert.equal(more.status, 403);
      assert.match((await more.json()).error.message, /net/);
      const bad = await handler(get("/api/ops", { "x-vantage-scopes": "nonsense" }));
      assert.equal(bad.status, 400);
    });

    await t.step("POST /api/ops/:id answers the executor's Tama.Dex response", async () => {
      const response = await handler(postJson("/api/ops/agent.list_sessions", { since_min: YEAR }));
      assert.equal(response.status, 200);
      const body = await response.json();
      assert.equal(body.operation_id, "agent.list_sessions");
      assert.equal(body.cassette, "agent");
      const ids = body.result.sessions.map((s: { session_id: string }) => s.session_id);
      assert.ok(ids.includes(CLAUDE));
    });

    await t.step("error kinds map to statuses", async () => {
      const unknown = await handler(postJson("/api/ops/agent.nope", {}));
      assert.equal(unknown.status, 404);
      assert.equal((await unknown.json()).error.kind, "unknown_operation");
      const invalid = await handler(postJson("/api/ops/agent.list_sessions", { limt: 3 }));
      assert.equal(invalid.status, 400);
      assert.equal((await invalid.json()).error.kind, "invalid_arguments");
      const failed = await handler(
        postJson("/api/ops/agent.session_timeline", { session_id: "zzzzzzzz" }),
      );
      assert.equal(failed.status, 422);
      assert.match((await failed.json()).operation_error.message, /no session/);
      const method = await handler(get("/api/ops/agent.list_sessions"));
      assert.equal(method.status, 405);
      assert.equal(method.headers.get("allow"), "POST");
    });

    await t.step(
      "415 without a JSON content type, 413 past the body limit, 400 on bad JSON",
      async () => {
        const text = await handler(
          new Request("http://127.0.0.1:14300/api/ops/agent.overview", {
            method: "POST",
            headers: { "content-type": "text/plain" },
            body: "{}",
          }),
        );
        assert.equal(text.status, 415);
        const small = fixture.with({ ops: { ...fixture.ops, bodyLimit: 64 } });
        const big = await small(
          postJson("/api/ops/agent.search_sessions", { query: "x".repeat(500) }),
        );
        assert.equal(big.status, 413);
        const broken = await handler(
          new Request("http://127.0.0.1:14300/api/ops/agent.overview", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{not json",
          }),
        );
        assert.equal(broken.status, 400);
        assert.match((await broken.json()).error.message, /not valid JSON/);
        const array = await handler(postJson("/api/ops/agent.overview", [1, 2]));
        assert.equal(array.status, 400);
      },
    );

    await t.step("the dashboard's read operations answer from the fixtures", async () => {
      const call = async (id: string, args: Record<string, unknown>) => {
        const response = await handler(postJson(`/api/ops/${id}`, args));
        assert.equal(response.status, 200, id);
        return (await response.json()).result;
      };
      const overview = await call("agent.overview", { since_min: YEAR });
      assert.ok(overview.window.tool_calls >= 7);
      assert.ok(overview.window.tool_failures >= 2);
      assert.ok(overview.window.cost_usd > 0);
      const series = await call("agent.usage_timeseries", { since_min: YEAR, group_by: "model" });
      assert.ok(series.series.length >= 2);
      assert.equal(series.series[0].cost_usd.length, series.buckets.length);
      assert.ok(series.totals.calls > 0);
      const timeline = await call("agent.session_timeline", { session_id: CLAUDE });
      assert.equal(timeline.source, "transcript");
      // Its own four calls; the sub-agent's one is on the sub-agent's timeline.
      assert.equal(timeline.counts.tool_calls, 4);
      assert.equal(timeline.counts.sidechains, 1);
      assert.equal(timeline.subagents[0].tool_calls, 1);
      assert.ok(timeline.counts.tool_failures >= 1);
      assert.ok(timeline.counts.file_edits >= 1);
      assert.ok(timeline.items.some((i: { duration_ms?: number }) => (i.duration_ms ?? 0) > 0));
      assert.ok(timeline.usage.length > 0);
      const codexOnly = await call("agent.list_sessions", {
        since_min: YEAR,
        agent_source: "codex",
      });
      assert.deepEqual(
        [...new Set(codexOnly.sessions.map((s: { agent_source: string }) => s.agent_source))],
        ["codex"],
      );
      const costly = await call("agent.list_sessions", { since_min: YEAR, min_cost_usd: 0.01 });
      assert.ok(costly.sessions.every((s: { cost_usd: number }) => s.cost_usd >= 0.01));
      const anomalies = await call("agent.list_anomalies", { since_min: YEAR });
      assert.equal(anomalies.count, 0);
    });

    await t.step("POST /api/query runs one SELECT as exec_query", async () => {
      const response = await handler(
        postJson("/api/query", { sql: "SELECT count(*) AS n FROM sessions", row_limit: 5 }),
      );
      assert.equal(response.status, 200);
      const body = await response.json();
      assert.deepEqual(body.columns, ["n"]);
      assert.ok(body.rows[0][0] >= 4);
    });

    await t.step("/api/events streams what the bus publishes", async () => {
      const controller = new AbortController();
      const response = await handler(
        new Request("http://127.0.0.1:14300/api/events?types=hook", { signal: controller.signal }),
      );
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      fixture.events.publish("build", { tag: "ignored" });
      fixture.events.publish("hook", { session_id: "live-1", event_type: "PostToolUse" });
      let text = "";
      while (!text.includes("live-1")) text += (await reader.read()).value ?? "";
      assert.match(text, /event: hook/);
      assert.doesNotMatch(text, /ignored/);
      controller.abort();
      await reader.cancel().catch(() => {});
      const badType = await handler(get("/api/events?types=nope"));
      assert.equal(badType.status, 400);
    });

    await t.step("the dashboard is served from embedded files with an ETag", async () => {
      const page = await handler(get("/"));
      assert.equal(page.status, 200);
      assert.match(page.headers.get("content-type") ?? "", /text\/html/);
      assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'self'/);
      assert.match(await page.text(), /assets\/js\/app\.js/);
      const chart = await handler(get("/assets/uPlot.iife.min.js"));
      assert.equal(chart.status, 200);
      const etag = chart.headers.get("etag")!;
      assert.ok((await chart.text()).length > 10_000);
      const again = await handler(get("/assets/uPlot.iife.min.js", { "if-none-match": etag }));
      assert.equal(again.status, 304);
      assert.equal((await handler(get("/assets/missing.js"))).status, 404);
    });
  } finally {
    await fixture.close();
  }
});
