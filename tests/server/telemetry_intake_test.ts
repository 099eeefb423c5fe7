/**
 * The daemon's telemetry intake over a real store, on the calling thread and
 * on its workers: an export is stored and counted for the health facts, a
 * body that is no export is refused (`OtlpBadData`) with nothing stored and
 * nothing counted, and a stopped intake refuses exports as unavailable.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { OtlpBadData } from "../../src/agent/otlp/otlp_errors.ts";
import { VantageError } from "../../src/core/errors.ts";
import { createTelemetryIntake } from "../../src/server/telemetry_intake.ts";
import { openDatabase } from "../../src/store/database.ts";
import { readStoreHealth, summarizeHealth } from "../../src/store/store_health.ts";

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
