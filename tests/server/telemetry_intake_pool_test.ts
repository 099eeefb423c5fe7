/**
 * `serve`'s OTLP intake workers, on a real store: exports taken by the pool
 * store what `takeOtlpExport` stores on the calling thread, with the same
 * answers; a body that is no export is refused as bad data with nothing
 * stored; exports sent at once are all taken; a stopped pool takes no more.
 * Without a store file (a team server's), the workers map exports into the
 * very records the calling thread maps, with the sender's attribution, and
 * refuse bad data the same way.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VantageError } from "../../src/core/errors.ts";
import { OtlpBadData } from "../../src/agent/otlp/otlp_errors.ts";
import { mapOtlpExport, takeOtlpExport } from "../../src/agent/otlp/otlp_intake.ts";
import { OtlpIntakePool } from "../../src/server/telemetry_intake_pool.ts";
import { type OtlpSignal, signalTypes } from "../../src/agent/otlp/otlp_schema.ts";
import { openDatabase } from "../../src/store/database.ts";

const FIXTURES = new URL("../fixtures/otlp/", import.meta.url);
const TABLES = [
  "telemetry_spans",
  "telemetry_logs",
  "telemetry_metric_points",
  "telemetry_model_calls",
  "telemetry_tool_calls",
  "telemetry_api_errors",
  "telemetry_sessions",
  "usage",
  "sessions",
];

function rows(path: string): Record<string, unknown[]> {
  const db = openDatabase(path);
  try {
    return Object.fromEntries(
      TABLES.map((table) => [
        table,
        // received_at is the time each side took the export.
        db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all().map((row) => {
          const { received_at: _received, ...rest } = row as Record<string, unknown>;
          return rest;
        }),
      ]),
    );
  } finally {
    db.close();
  }
}

interface Export {
  signal: OtlpSignal;
  body: Uint8Array;
}

/** The Claude Code client's real export and the official examples, as protobuf. */
async function exports(): Promise<Export[]> {
  const claude = JSON.parse(
    await Deno.readTextFile(new URL("claude_code_2.1.197/exports.json", FIXTURES)),
  ) as Array<{ path: string; body: unknown }>;
  const examples: Array<[string, OtlpSignal]> = [
    ["trace.json", "traces"],
    ["metrics.json", "metrics"],
    ["logs.json", "logs"],
  ];
  const list: Array<{ signal: OtlpSignal; json: string }> = [
    ...claude.map((item) => ({
      signal: item.path.slice("/v1/".length) as OtlpSignal,
      json: JSON.stringify(item.body),
    })),
    ...await Promise.all(
      examples.map(async ([file, signal]) => ({
        signal,
        json: await Deno.readTextFile(new URL(file, FIXTURES)),
      })),
    ),
  ];
  const { decodeExport } = await import("../../src/agent/otlp/otlp_decode.ts");
  return list.map(({ signal, json }) => {
    const type = signalTypes(signal).request;
    const message = decodeExport(signal, new TextEncoder().encode(json), "json");
    return {
      signal,
      body: type.encode(type.fromObject(message as Record<string, unknown>)).finish(),
    };
  });
}

function pool(path: string, dir: string): OtlpIntakePool {
  return new OtlpIntakePool({ database: path, home: dir, checkpoints: true });
}

Deno.test("the intake workers store what the calling thread stores, and answer the same", async () => {
  const dir = await Deno.makeTempDir();
  const here = join(dir, "here.db");
  const there = join(dir, "there.db");
  openDatabase(there).close();
  const workers = pool(there, dir);
  try {
    const db = openDatabase(here);
    try {
      for (const item of await exports()) {
        const expected = takeOtlpExport(db, item.signal, item.body, "protobuf");
        // The pool moves the body to its worker: it gets a copy.
        const taken = await workers.take(item.signal, item.body.slice(), "protobuf");
        assert.deepEqual(taken, expected, item.signal);
      }
    } finally {
      db.close();
    }
    const stored = rows(here);
    assert.ok(
      stored.telemetry_model_calls.length === 3 && stored.telemetry_metric_points.length > 0,
    );
    assert.deepEqual(rows(there), stored);
  } finally {
    await workers.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the intake workers refuse a body that is no export, storing nothing, and stop", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "vantage.db");
  openDatabase(path).close();
  const workers = pool(path, dir);
  try {
    const [spans] = (await exports()).filter((item) => item.signal === "traces");
    const truncated = spans.body.slice(0, spans.body.length - 3);
    await assert.rejects(workers.take("traces", truncated, "protobuf"), OtlpBadData);
    await assert.rejects(
      workers.take("traces", new TextEncoder().encode("{"), "json"),
      OtlpBadData,
    );
    const empty = rows(path);
    assert.deepEqual(empty.telemetry_spans, []);
    assert.deepEqual(empty.sessions, []);

    // The same export five times at once (more than there are workers): each is taken, and
    // its spans are stored once.
    const all = await Promise.all(
      Array.from({ length: 5 }, () => workers.take("traces", spans.body.slice(), "protobuf")),
    );
    const stored = rows(path).telemetry_spans.length;
    assert.ok(stored > 0);
    assert.deepEqual(all.map((result) => result.stored.spans).sort(), [0, 0, 0, 0, stored]);
    assert.ok(all.every((result) => result.items === stored && result.rejected === 0));
  } finally {
    await workers.stop();
  }
  await assert.rejects(
    workers.take("traces", new Uint8Array(), "protobuf"),
    (error: unknown) => error instanceof VantageError && error.kind === "unavailable",
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("without a store file the intake workers map exports into what the calling thread maps", async () => {
  const dir = await Deno.makeTempDir();
  const workers = new OtlpIntakePool({ home: dir });
  try {
    const sender = { person: "ada", host: "ada-laptop" };
    let sessions = 0;
    for (const item of await exports()) {
      const here = mapOtlpExport(item.signal, item.body, "protobuf", Date.now(), sender);
      // The pool moves the body to its worker: it gets a copy (protobufjs's bodies are Node
      // Buffers, whose slice() is a view).
      const mapped = await workers.map(item.signal, new Uint8Array(item.body), "protobuf", sender);
      // A log record with no time of its own takes the time it was read: none here has one.
      assert.deepEqual(mapped, here, item.signal);
      for (const session of mapped.batch.sessions.values()) {
        assert.equal(session.person, "ada");
        assert.equal(session.host, "ada-laptop");
        sessions++;
      }
    }
    assert.ok(sessions > 0, "the Claude Code export names its session");
    await assert.rejects(
      workers.map("traces", new TextEncoder().encode("{"), "json"),
      OtlpBadData,
    );
    // A mapping pool stores nothing itself.
    await assert.rejects(
      workers.take("traces", new Uint8Array(), "protobuf"),
      (error: unknown) => error instanceof VantageError && error.kind === "internal_error",
    );
  } finally {
    await workers.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
