/**
 * The daemon's telemetry intake over a real store: an export is stored and
 * counted for the health facts, a body that is no export is refused
 * (`OtlpBadData`) with nothing stored and nothing counted, and the prices in
 * force price the calls telemetry counts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { OtlpBadData } from "../../src/agent/otlp/otlp_errors.ts";
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

Deno.test("an export is stored and counted; a body that is none is refused and not counted", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-telemetry-" });
  const db = openDatabase(join(home, "vantage.db"));
  try {
    const telemetry = createTelemetryIntake({ db, home });
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
    db.close();
    await Deno.remove(home, { recursive: true });
  }
});
