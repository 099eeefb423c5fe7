/**
 * Group commit of OTLP exports: a group stores exactly the rows that storing its exports one
 * after the other stores; an export that fails while its group is stored (a span the store
 * refuses) fails alone and leaves nothing of itself, whether SQLite undid only that statement
 * or the whole transaction; and through the intake workers, exports sent at once are each
 * stored once and answered only once they are committed, a malformed or failing one among them
 * refused without touching the others.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VantageError } from "../../src/core/errors.ts";
import { OtlpBadData } from "../../src/agent/otlp/otlp_errors.ts";
import {
  type OtlpIntakeResult,
  prepareOtlpExport,
  storeOtlpExportGroup,
  storeOtlpExportTakingTurns,
} from "../../src/agent/otlp/otlp_intake.ts";
import { openDatabase } from "../../src/store/database.ts";
import { OtlpIntakePool } from "../../src/server/telemetry_intake_pool.ts";
import { protobufOf, span, tracesRequest } from "../helpers/otlp_bodies.ts";

const NOW = 1_780_000_000_000;
const TABLES = [
  "telemetry_spans",
  "telemetry_model_calls",
  "telemetry_tool_calls",
  "telemetry_sessions",
  "usage",
  "sessions",
];

/**
 * One GenAI export of `count` chat spans in conversation `conv-<tag>` (more than one part of
 * 100 spans when `count` is larger); with `poison`, its last span is named `poison`.
 */
function genaiExport(tag: string, count: number, poison = false): Uint8Array {
  const spans = [];
  for (let i = 0; i < count; i++) {
    spans.push(span({
      name: poison && i === count - 1 ? "poison" : "chat claude-sonnet-4-5",
      endMs: NOW - 60_000 + i * 10,
      durationMs: 5,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": `conv-${tag}`,
        "gen_ai.request.model": "claude-sonnet-4-5",
        "gen_ai.response.id": `resp-${tag}-${i}`,
        "gen_ai.usage.input_tokens": 100 + i,
        "gen_ai.usage.output_tokens": 10,
      },
    }));
  }
  return protobufOf("traces", tracesRequest(spans, { "service.name": "group-test" }));
}

/** Makes the store refuse any span named `poison`: `ABORT` undoes the statement, `ROLLBACK` the transaction. */
function poisonSpans(path: string, how: "ABORT" | "ROLLBACK"): void {
  const db = openDatabase(path);
  db.exec(`CREATE TRIGGER poison BEFORE INSERT ON telemetry_spans WHEN NEW.name = 'poison'
    BEGIN SELECT RAISE(${how}, 'poisoned span'); END`);
  db.close();
}

function rows(path: string): Record<string, unknown[]> {
  const db = openDatabase(path);
  try {
    return Object.fromEntries(
      TABLES.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()]),
    );
  } finally {
    db.close();
  }
}

function spansOf(path: string, tag: string): number {
  const db = openDatabase(path);
  try {
    const row = db.prepare("SELECT count(*) AS n FROM telemetry_spans WHERE session_id = ?")
      .get(`conv-${tag}`) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

for (const how of ["ABORT", "ROLLBACK"] as const) {
  Deno.test(`a group stores what its exports store one by one, and one that fails (${how}) fails alone`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const good = [genaiExport("a", 150), genaiExport("b", 40), genaiExport("d", 230)];
      const bad = genaiExport("c", 160, true);
      // One after the other, without the failing export.
      const alone = join(dir, "alone.db");
      const one = openDatabase(alone);
      const expected: OtlpIntakeResult[] = [];
      for (const body of good) {
        expected.push(
          await storeOtlpExportTakingTurns(one, prepareOtlpExport("traces", body, "protobuf", NOW)),
        );
      }
      one.close();

      const grouped = join(dir, "grouped.db");
      openDatabase(grouped).close();
      poisonSpans(grouped, how);
      const db = openDatabase(grouped);
      const outcomes = await storeOtlpExportGroup(
        db,
        [good[0], good[1], bad, good[2]].map((body) =>
          prepareOtlpExport("traces", body, "protobuf", NOW)
        ),
      );
      db.close();
      assert.equal(outcomes.length, 4);
      assert.deepEqual(outcomes[0], { result: expected[0] });
      assert.deepEqual(outcomes[1], { result: expected[1] });
      assert.deepEqual(outcomes[3], { result: expected[2] });
      assert.ok("error" in outcomes[2]);
      assert.match(String((outcomes[2].error as Error).message), /poisoned span/);
      // Nothing of the failing export stays, not even its first part.
      assert.equal(spansOf(grouped, "c"), 0);
      assert.equal(spansOf(grouped, "d"), 230);
      assert.deepEqual(rows(grouped), rows(alone));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("intake workers store exports sent at once each once, answering each after its commit", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "vantage.db");
  openDatabase(path).close();
  const pool = new OtlpIntakePool({ database: path, home: dir, checkpoints: true, group: 4 });
  try {
    const tags = Array.from({ length: 12 }, (_, i) => `at-once-${i}`);
    const bodies = tags.map((tag, i) => genaiExport(tag, 120 + i));
    // The pool moves each body to a worker: it is given a copy.
    const seenAtAnswer = await Promise.all(tags.map(async (tag, i) => {
      const result = await pool.take("traces", new Uint8Array(bodies[i]), "protobuf");
      assert.equal(result.items, 120 + i);
      assert.equal(result.stored.spans, 120 + i);
      // Read on a connection of its own the moment the answer comes: already committed.
      return spansOf(path, tag);
    }));
    assert.deepEqual(seenAtAnswer, tags.map((_, i) => 120 + i));
    // Sent again at once: merged, nothing stored twice.
    await Promise.all(
      bodies.slice(0, 6).map((body) => pool.take("traces", new Uint8Array(body), "protobuf")),
    );
    const db = openDatabase(path);
    const spans = db.prepare("SELECT count(*) AS n FROM telemetry_spans").get() as { n: number };
    const calls = db.prepare("SELECT count(*) AS n FROM telemetry_model_calls").get() as {
      n: number;
    };
    db.close();
    const total = tags.reduce((sum, _, i) => sum + 120 + i, 0);
    assert.equal(spans.n, total);
    assert.equal(calls.n, total);
  } finally {
    await pool.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a malformed or failing export among exports sent at once fails alone", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "vantage.db");
  openDatabase(path).close();
  poisonSpans(path, "ABORT");
  const pool = new OtlpIntakePool({ database: path, home: dir, checkpoints: true, group: 8 });
  try {
    const good = Array.from({ length: 6 }, (_, i) => `fine-${i}`);
    const truncated = genaiExport("cut", 50).slice(0, -7);
    const answers = await Promise.allSettled([
      ...good.slice(0, 3).map((tag) => pool.take("traces", genaiExport(tag, 110), "protobuf")),
      pool.take("traces", truncated, "protobuf"),
      pool.take("traces", genaiExport("poisoned", 130, true), "protobuf"),
      ...good.slice(3).map((tag) => pool.take("traces", genaiExport(tag, 110), "protobuf")),
    ]);
    const [malformed, failing] = [answers[3], answers[4]];
    assert.equal(malformed.status, "rejected");
    assert.ok((malformed as PromiseRejectedResult).reason instanceof OtlpBadData);
    assert.equal(failing.status, "rejected");
    const reason = (failing as PromiseRejectedResult).reason;
    assert.ok(reason instanceof VantageError && /poisoned span/.test(reason.message));
    for (const answer of [...answers.slice(0, 3), ...answers.slice(5)]) {
      assert.equal(answer.status, "fulfilled");
    }
    for (const tag of good) assert.equal(spansOf(path, tag), 110, tag);
    assert.equal(spansOf(path, "poisoned"), 0);
    assert.equal(spansOf(path, "cut"), 0);
  } finally {
    await pool.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
