/**
 * A team server's telemetry intake over a real PostgreSQL store, on the
 * calling thread and on its mapping workers: an export is stored in one
 * write and counted, a body that is none is refused (`OtlpBadData`) with
 * nothing stored and nothing counted, a person's export is theirs, a stopped
 * intake refuses exports as unavailable; an export that stored calls or
 * errors has its sessions' telemetry rules (answering promises) run a moment
 * later, one session after another.
 */
import assert from "node:assert/strict";
import { OtlpBadData } from "../../src/agent/otlp/otlp_errors.ts";
import { VantageError } from "../../src/core/errors.ts";
import { createLogger } from "../../src/core/log.ts";
import { EventBus } from "../../src/server/event_bus.ts";
import {
  createPostgresTelemetryIntake,
  type PostgresTelemetryIntakeOptions,
} from "../../src/server/postgres_telemetry_intake.ts";
import { openPgPool, type PgPool } from "../../src/store/postgres/connection.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import { pgTelemetryStore } from "../../src/store/postgres/telemetry/telemetry_store.ts";
import { logRecord, logsRequest } from "../helpers/otlp_bodies.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";

const ignore = skipWithoutPostgres("the team server's telemetry intake tests");
const EXAMPLES = new URL("../fixtures/otlp/", import.meta.url);

function example(name: string): Uint8Array {
  return Deno.readFileSync(new URL(name, EXAMPLES));
}

async function openPool(): Promise<PgPool> {
  const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
  if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
  const pool = openPgPool(location, { max: 4, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
  await migratePostgres(pool);
  return pool;
}

async function count(pool: PgPool, table: string): Promise<number> {
  return Number((await pool.query(`SELECT count(*) AS n FROM ${table}`))[0].n);
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
  return new TextEncoder().encode(
    JSON.stringify(logsRequest(records, { "service.name": "claude-code" })),
  );
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

for (const workers of [false, true]) {
  const where = workers ? "on workers" : "on the calling thread";

  Deno.test({
    name: `PostgreSQL intake: an export is stored and counted, a person's is theirs, and a body ` +
      `that is none is refused (${where})`,
    ignore,
    async fn() {
      const pool = await openPool();
      const home = await Deno.makeTempDir({ prefix: "vantage-pg-telemetry-" });
      const telemetry = createPostgresTelemetryIntake({
        telemetry: pgTelemetryStore(pool),
        home,
        workers,
      });
      try {
        assert.equal(telemetry.exports, 0);
        const trace = await telemetry.take("traces", example("trace.json"), "json");
        assert.deepEqual([trace.items, trace.rejected, trace.stored.spans], [1, 0, 1]);
        const logs = await telemetry.take("logs", apiErrors(["s-ada"]), "json", {
          person: "ada",
          host: "ada-laptop",
        });
        assert.equal(logs.stored.api_errors, 1);
        assert.equal(telemetry.exports, 2);
        const [session] = await pool.query(
          "SELECT person, host FROM sessions WHERE session_id = 's-ada'",
        );
        assert.deepEqual({ ...session }, { person: "ada", host: "ada-laptop" });

        await assert.rejects(
          () => telemetry.take("traces", new TextEncoder().encode("{not json"), "json"),
          OtlpBadData,
        );
        assert.equal(telemetry.exports, 2, "a refused body is not an export");
        assert.equal(await count(pool, "telemetry_spans"), 1);
        assert.equal(await count(pool, "telemetry_logs"), 1);
      } finally {
        await telemetry.stop();
        await pool.close();
        await Deno.remove(home, { recursive: true });
      }
      await assert.rejects(
        () => telemetry.take("traces", example("trace.json"), "json"),
        (error: unknown) => error instanceof VantageError && error.kind === "unavailable",
      );
    },
  });

  Deno.test({
    name: `PostgreSQL intake: an export that stored calls or errors has its sessions checked ` +
      `once, after it, and a failing check is logged (${where})`,
    ignore,
    async fn() {
      const pool = await openPool();
      const home = await Deno.makeTempDir({ prefix: "vantage-pg-telemetry-" });
      const checked: string[] = [];
      const logged: string[] = [];
      let running = 0;
      let overlapped = false;
      const events = new EventBus();
      const published: unknown[] = [];
      events.subscribe((event) => published.push([event.type, event.data]));
      const checks: PostgresTelemetryIntakeOptions["checks"] = {
        perception: {
          // A server backend's rules answer later.
          async onTelemetry(sessionId) {
            if (running++ > 0) overlapped = true;
            await new Promise((r) => setTimeout(r, 20));
            running--;
            checked.push(sessionId);
            if (sessionId === "s-broken") throw new Error("rule failed");
            return sessionId === "s-burst" ? 1 : 0;
          },
        },
        events,
        log: createLogger("test", { sink: (line) => logged.push(line) }),
        delayMs: 500,
      };
      const telemetry = createPostgresTelemetryIntake({
        telemetry: pgTelemetryStore(pool),
        home,
        workers,
        checks,
      });
      try {
        await telemetry.take("logs", apiErrors(["s-burst", "s-broken", "s-other"]), "json");
        await telemetry.take("logs", apiErrors(["s-burst"]), "json");
        assert.equal(checked.length, 0, "not on the export's own request");
        await until(() => checked.length >= 3);
        await new Promise((r) => setTimeout(r, 700));
        assert.deepEqual(checked.toSorted(), ["s-broken", "s-burst", "s-other"]);
        assert.equal(overlapped, false, "one session's rules after another's");
        assert.deepEqual(published, [["anomaly", { session_id: "s-burst", emitted: 1 }]]);
        assert.equal(
          logged.filter((line) => line.includes("perception failed on telemetry")).length,
          1,
        );
        // Spans alone check nothing.
        await telemetry.take("traces", example("trace.json"), "json");
        await new Promise((r) => setTimeout(r, 700));
        assert.equal(checked.length, 3);
      } finally {
        await telemetry.stop();
        await pool.close();
        await Deno.remove(home, { recursive: true });
      }
    },
  });
}
