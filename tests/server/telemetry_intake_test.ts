/**
 * The daemon's telemetry intake over a real store, on the calling thread and
 * on its workers: an export is stored and counted for the health facts, a
 * body that is no export is refused (`OtlpBadData`) with nothing stored and
 * nothing counted, a stopped intake refuses exports as unavailable, and the
 * prices in force price the calls telemetry counts; an export that stored
 * calls or errors has its sessions' telemetry rules run a moment later.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { OtlpBadData } from "../../src/agent/otlp/otlp_errors.ts";
import { createLogger } from "../../src/core/log.ts";
import { EventBus } from "../../src/server/event_bus.ts";
import { VantageError } from "../../src/core/errors.ts";
import { createTelemetryIntake } from "../../src/server/telemetry_intake.ts";
import { openDatabase } from "../../src/store/database.ts";
import { readStoreHealth, summarizeHealth } from "../../src/store/store_health.ts";
import { logRecord, logsRequest } from "../helpers/otlp_bodies.ts";

const EXAMPLES = new URL("../fixtures/otlp/", import.meta.url);

function example(name: string): Uint8Array {
  return Deno.readFileSync(new URL(name, EXAMPLES));
}

function count(db: ReturnType<typeof openDatabase>, table: string): number {
  return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n);
}

for (const onWorkers of [false, true]) {
  Deno.test(
    `an export is stored and counted; a body that is none is refused and not counted (${
      onWorkers ? "on workers" : "on the calling thread"
    })`,
    async () => {
      const home = await Deno.makeTempDir({ prefix: "vantage-telemetry-" });
      const database = join(home, "vantage.db");
      const db = openDatabase(database);
      const telemetry = createTelemetryIntake({
        db,
        home,
        ...(onWorkers ? { database } : {}),
      });
      try {
        assert.equal(telemetry.exports, 0);
        const trace = await telemetry.take("traces", example("trace.json"), "json");
        assert.equal(trace.rejected, 0);
        assert.equal(trace.stored.spans, 1);
        const logs = await telemetry.take("logs", example("logs.json"), "json");
        assert.equal(logs.stored.logs, 1);
        assert.equal(telemetry.exports, 2);

        await assert.rejects(
          () => telemetry.take("traces", new TextEncoder().encode("{not json"), "json"),
          OtlpBadData,
        );
        assert.equal(telemetry.exports, 2, "a refused body is not an export");
        assert.equal(count(db, "telemetry_spans"), 1);
        assert.equal(count(db, "telemetry_logs"), 1);
        // A client's bad body is no damage of the store.
        assert.equal(summarizeHealth(readStoreHealth(home)).status, "ok");
      } finally {
        await telemetry.stop();
        db.close();
        await Deno.remove(home, { recursive: true });
      }
      await assert.rejects(
        () => telemetry.take("traces", example("trace.json"), "json"),
        (error: unknown) => error instanceof VantageError && error.kind === "unavailable",
      );
    },
  );
}

let sequence = 0;

/** Claude Code's api_error events, a new one per session named. */
function apiErrors(sessions: readonly string[]): Uint8Array {
  const records = sessions.map((session) =>
    logRecord(Date.now() - 1_000, "claude_code.api_error", {
      "event.name": "api_error",
      "event.sequence": ++sequence,
      "session.id": session,
      request_id: `req_${sequence}`,
      model: "claude-sonnet-4-5",
      status_code: 429,
      error: "rate_limit_error",
    })
  );
  const request = logsRequest(records, { "service.name": "claude-code" });
  return new TextEncoder().encode(JSON.stringify(request));
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

for (const onWorkers of [false, true]) {
  Deno.test(`an export that stored calls or errors has its sessions checked once, after it, and a failing check is logged (${onWorkers ? "on workers" : "on the calling thread"})`, async () => {
    const home = await Deno.makeTempDir({ prefix: "vantage-telemetry-" });
    const database = join(home, "vantage.db");
    const db = openDatabase(database);
    const checked: string[] = [];
    const logged: string[] = [];
    const events = new EventBus();
    const published: unknown[] = [];
    events.subscribe((event) => published.push([event.type, event.data]));
    const telemetry = createTelemetryIntake({
      db,
      home,
      ...(onWorkers ? { database } : {}),
      checks: {
        perception: {
          onTelemetry(sessionId) {
            checked.push(sessionId);
            if (sessionId === "s-broken") throw new Error("rule failed");
            return sessionId === "s-burst" ? 1 : 0;
          },
        },
        events,
        log: createLogger("test", { sink: (line) => logged.push(line) }),
        delayMs: 500,
      },
    });
    try {
      await telemetry.take("logs", apiErrors(["s-burst", "s-broken"]), "json");
      await telemetry.take("logs", apiErrors(["s-burst"]), "json");
      assert.equal(checked.length, 0, "not on the export's own request");
      await until(() => checked.length >= 2);
      await new Promise((r) => setTimeout(r, 700));
      // Named by two exports, checked once; the broken check did not stop the other.
      assert.deepEqual(checked.toSorted(), ["s-broken", "s-burst"]);
      assert.deepEqual(published, [["anomaly", { session_id: "s-burst", emitted: 1 }]]);
      assert.equal(
        logged.filter((line) => line.includes("perception failed on telemetry")).length,
        1,
      );

      // Spans alone (no model call, tool call or API error) check nothing.
      await telemetry.take("traces", example("trace.json"), "json");
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(checked.length, 2);

      // Stopped: what waits is dropped.
      await telemetry.take("logs", apiErrors(["s-late"]), "json");
      await telemetry.stop();
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(checked.includes("s-late"), false);
    } finally {
      await telemetry.stop();
      db.close();
      await Deno.remove(home, { recursive: true });
    }
  });
}
