/**
 * Copilot CLI's OpenTelemetry file export (`~/.copilot/otel/*.jsonl`), read
 * like a transcript. The fixture is what Copilot CLI 1.0.102 wrote with
 * `COPILOT_OTEL_FILE_EXPORTER_PATH` during two offline `copilot -p` sessions
 * against the scripted Responses server (two shell commands, the second
 * exiting 1, then an answer), both appended to one file, with the two
 * sessions' `events.jsonl`. Every record is stored once: read twice, read
 * while a line is half written, read after the file was renamed, truncated
 * or joined by a new one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { backfill } from "../../../src/agent/backfill.ts";
import { readOtelFileLine } from "../../../src/agent/otlp/otlp_file_lines.ts";
import { ingestTranscriptFile } from "../../../src/agent/transcripts/transcript_ingester.ts";
import { type DatabaseSync, openDatabase } from "../../../src/store/database.ts";

const FIXTURES = new URL("../../fixtures/otlp/copilot_cli_1.0.102/", import.meta.url);
const SESSIONS = ["38750835-502e-4f4b-b7be-99a334d8a71c", "c329469d-4e6a-4453-a9de-d57a3324bedb"];
const LINES = (await Deno.readTextFile(new URL("otel.jsonl", FIXTURES))).split("\n")
  .filter((line) => line !== "");

/** The lines of one session (its spans, then the metrics its process wrote at exit). */
function sessionLines(index: number): string[] {
  // The file holds the first session's 23 lines, then the second's.
  return LINES.slice(index * 23, (index + 1) * 23);
}

/** Data points in `lines`' metric records: what the store must hold, once each. */
function pointsIn(lines: readonly string[]): number {
  let points = 0;
  for (const line of lines) {
    const record = JSON.parse(line);
    if (record.type === "metric") points += record.dataPoints.length;
  }
  return points;
}

function spansIn(lines: readonly string[]): number {
  return lines.filter((line) => JSON.parse(line).type === "span").length;
}

function count(db: DatabaseSync, table: string, where = "1"): number {
  return Number(
    (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get() as {
      n: number;
    }).n,
  );
}

interface Stored {
  spans: number;
  points: number;
  calls: number;
  tools: number;
}

function stored(db: DatabaseSync): Stored {
  return {
    spans: count(db, "telemetry_spans"),
    points: count(db, "telemetry_metric_points"),
    calls: count(db, "telemetry_model_calls"),
    tools: count(db, "telemetry_tool_calls"),
  };
}

async function withHome(run: (home: string, db: DatabaseSync) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-copilot-otel-" });
  await Deno.mkdir(join(home, ".copilot", "otel"), { recursive: true });
  const db = openDatabase(join(home, "vantage.db"));
  try {
    await run(home, db);
  } finally {
    db.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** A session's totals as the store has them. */
function totals(db: DatabaseSync, session: string) {
  const row = db.prepare(
    `SELECT input_tokens, output_tokens, cache_read_tokens, tool_calls FROM sessions
     WHERE session_id = ?`,
  ).get(session);
  const calls = db.prepare("SELECT coalesce(sum(calls), 0) AS n FROM usage WHERE session_id = ?")
    .get(session) as { n: number };
  return { ...row, model_calls: calls.n };
}

/** What the session's transcript alone gives, read by the transcript parser into a store of its own. */
async function transcriptTruth(home: string, session: string) {
  const db = openDatabase(join(home, `truth-${session}.db`));
  try {
    const events = join(home, `events-${session}.jsonl`);
    await Deno.copyFile(new URL(`session-state/${session}/events.jsonl`, FIXTURES), events);
    await ingestTranscriptFile(db, events, "copilot_cli");
    return totals(db, session);
  } finally {
    db.close();
  }
}

Deno.test("each line of Copilot's file export becomes the OTLP export it stands for", () => {
  const span = readOtelFileLine(LINES[1]);
  assert.equal(span.kind, "export");
  assert.ok(span.kind === "export" && span.signal === "traces");
  const request = span.kind === "export" ? span.request : {};
  const [resourceSpans] = request.resourceSpans as Array<Record<string, never>>;
  const converted =
    (resourceSpans.scopeSpans as Array<{ spans: Array<Record<string, unknown>> }>)[0]
      .spans[0];
  assert.equal(converted.name, "chat gpt-5");
  // OpenTelemetry JS's CLIENT (2) is OTLP's SPAN_KIND_CLIENT (3).
  assert.equal(converted.kind, 3);
  assert.equal(converted.startTimeUnixNano, "1796159509711000000");
  const metric = readOtelFileLine(LINES[6 + 1]);
  assert.ok(metric.kind === "export" && metric.signal === "metrics");
  assert.deepEqual(readOtelFileLine('{"type":"log","body":"x"}'), { kind: "unknown", type: "log" });
  assert.throws(() => readOtelFileLine("[1]"), /a line must be a JSON object/);
  assert.throws(() => readOtelFileLine('{"type":"span","startTime":"soon"}'), /not a time/);
});

Deno.test("Copilot's file export: two sessions' calls, tools and metrics, once; the transcript takes over", async () => {
  await withHome(async (home, db) => {
    const file = join(home, ".copilot", "otel", "copilot-otel.jsonl");
    await Deno.copyFile(new URL("otel.jsonl", FIXTURES), file);
    const counts = await ingestTranscriptFile(db, file, "copilot_cli");
    assert.equal(counts.lines, 46);
    assert.equal(counts.malformed, 0);
    assert.deepEqual([...counts.sessions].sort(), SESSIONS);
    const once = stored(db);
    // Per session: three chat spans (the invoke_agent span sums them and is no call), two tools.
    assert.deepEqual(once, { spans: spansIn(LINES), points: pointsIn(LINES), calls: 6, tools: 4 });
    const tools = db.prepare(
      `SELECT session_id, tool_name, success, error_type FROM telemetry_tool_calls
       ORDER BY session_id, tool_use_id`,
    ).all().map((row) => ({ ...row }));
    assert.deepEqual(tools.map((t) => [t.tool_name, t.success, t.error_type]), [
      ["bash", 1, null],
      ["bash", 0, "exit code 1"],
      ["bash", 1, null],
      ["bash", 0, "exit code 1"],
    ]);
    // Read again: nothing more.
    assert.equal((await ingestTranscriptFile(db, file, "copilot_cli")).lines, 0);
    assert.deepEqual(stored(db), once);

    for (const session of SESSIONS) {
      const truth = await transcriptTruth(home, session);
      assert.equal(truth.model_calls, 3);
      // Telemetry alone counts the session as its transcript would.
      assert.deepEqual(totals(db, session), truth, "telemetry's figures");
      const events = join(home, `events-${session}.jsonl`);
      await ingestTranscriptFile(db, events, "copilot_cli");
      assert.deepEqual(totals(db, session), truth, "the transcript's, counted once");
    }
    assert.equal(count(db, "usage", "usage_key LIKE 'otel:%'"), 0, "telemetry withdrew");
    assert.equal(count(db, "telemetry_model_calls", "counted = 1"), 0);
  });
});

Deno.test("a line still being written waits for its newline; nothing is read twice", async () => {
  await withHome(async (home, db) => {
    const file = join(home, ".copilot", "otel", "copilot-otel.jsonl");
    const whole = LINES.join("\n") + "\n";
    // Cut in the middle of line 10, then of line 30: the exporter is writing.
    const cuts = [LINES.slice(0, 9).join("\n").length + 1 + 200, whole.length - 3000, whole.length];
    let written = 0;
    let seen = 0;
    for (const cut of cuts) {
      await Deno.writeTextFile(file, whole.slice(written, cut), { append: true });
      written = cut;
      const counts = await ingestTranscriptFile(db, file, "copilot_cli");
      const complete = whole.slice(0, cut).split("\n").length - 1;
      assert.equal(seen + counts.lines, complete, `at byte ${cut}`);
      seen += counts.lines;
      assert.equal(counts.malformed, 0);
      assert.equal(count(db, "telemetry_metric_points"), pointsIn(LINES.slice(0, complete)));
    }
    assert.deepEqual(stored(db), {
      spans: spansIn(LINES),
      points: pointsIn(LINES),
      calls: 6,
      tools: 4,
    });
  });
});

Deno.test("rotation: a renamed file keeps its place, a new or rewritten one is read from its start", async () => {
  await withHome(async (home, db) => {
    const folder = join(home, ".copilot", "otel");
    const [first, second] = [sessionLines(0), sessionLines(1)];
    // The first session's spans, then Copilot is still to write its metrics.
    await Deno.writeTextFile(join(folder, "copilot.jsonl"), first.slice(0, 6).join("\n") + "\n");
    await backfill(db, { home });
    assert.equal(count(db, "telemetry_spans"), 6);
    // Rotated: renamed, and the exporter goes on in the renamed file; a new file starts.
    await Deno.rename(join(folder, "copilot.jsonl"), join(folder, "copilot-1.jsonl"));
    await Deno.writeTextFile(
      join(folder, "copilot-1.jsonl"),
      first.slice(6).join("\n") + "\n",
      { append: true },
    );
    await Deno.writeTextFile(join(folder, "copilot.jsonl"), second.join("\n") + "\n");
    // The new file is read first (oldest first): the renamed one must still find its place.
    const earlier = new Date(Date.now() - 60_000);
    await Deno.utime(join(folder, "copilot.jsonl"), earlier, earlier);
    const summary = await backfill(db, { home });
    assert.equal(summary.lines, first.length - 6 + second.length, "only what was new");
    assert.deepEqual(stored(db), {
      spans: spansIn(LINES),
      points: pointsIn(LINES),
      calls: 6,
      tools: 4,
    });
    // Truncated and written again from the start (copytruncate): a new first line, read whole.
    const third = second.map((line) =>
      line.replaceAll(
        "c329469d-4e6a-4453-a9de-d57a3324bedb",
        "0d000000-0000-4000-8000-000000000003",
      )
        .replace(/"(traceId|spanId|parentSpanId)":"[0-9a-f]{4}/g, '"$1":"dddd')
    );
    await Deno.writeTextFile(join(folder, "copilot.jsonl"), third.slice(0, 3).join("\n") + "\n");
    const again = await backfill(db, { home });
    assert.equal(again.lines, 3);
    assert.equal(count(db, "telemetry_spans"), spansIn(LINES) + 3);
    // And a file name that is no Copilot telemetry stays unread.
    await Deno.writeTextFile(join(folder, "notes.txt"), "hello\n");
    assert.equal((await backfill(db, { home })).lines, 0);
  });
});

Deno.test("an OTLP/JSON export request per line (the Collector's file exporter) is read too", async () => {
  await withHome(async (home, db) => {
    const trace = JSON.parse(
      await Deno.readTextFile(new URL("../trace.json", FIXTURES)),
    );
    const metrics = JSON.parse(
      await Deno.readTextFile(new URL("../metrics.json", FIXTURES)),
    );
    const file = join(home, ".copilot", "otel", "collector.jsonl");
    await Deno.writeTextFile(
      file,
      [JSON.stringify(trace), "not json", JSON.stringify(metrics), '{"type":"log"}'].join("\n") +
        "\n",
    );
    const counts = await ingestTranscriptFile(db, file, "copilot_cli");
    assert.equal(counts.lines, 4);
    assert.equal(counts.malformed, 1);
    assert.equal(counts.unknown, 1);
    assert.equal(count(db, "telemetry_spans"), 1);
    assert.ok(count(db, "telemetry_metric_points") > 0);
  });
});
