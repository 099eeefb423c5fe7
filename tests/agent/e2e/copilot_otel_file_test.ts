/**
 * `serve` tails Copilot CLI's OpenTelemetry file export
 * (`~/.copilot/otel/*.jsonl`) like a transcript: killed with SIGKILL in the
 * middle of a large file and started again it stores every record exactly
 * once; it reads a file as Copilot appends to it, a half-written line only
 * once it is whole; `vantage ingest` backfills what was written while it was
 * down. Then the real Copilot CLI (when installed) writes the file itself and
 * its calls land beside its transcript, counted once.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { copilotBinary, missingClientReason } from "../../helpers/agent_clients.ts";
import { type AgentHome, denoDir, makeAgentHome } from "../../helpers/agent_home.ts";
import { runVantage } from "../../helpers/cli.ts";
import { startScriptedOpenAIServer } from "../../helpers/scripted_openai_server.ts";
import { startServe } from "../../helpers/serve_process.ts";

const FIXTURE = new URL("../../fixtures/otlp/copilot_cli_1.0.102/otel.jsonl", import.meta.url);
const LINES = (await Deno.readTextFile(FIXTURE)).split("\n").filter((line) => line !== "");
const COPILOT = copilotBinary();
if (COPILOT === undefined) {
  console.log(`skipping the real Copilot CLI telemetry test: ${missingClientReason("copilot")}`);
}

/**
 * The fixture's two sessions as copy `k`: its own trace and span ids and
 * conversation ids, so every copy is new telemetry.
 */
function copy(k: number): string[] {
  const tag = k.toString(16).padStart(6, "0");
  return LINES.map((line) =>
    line.replace(/"(traceId|spanId|parentSpanId)":"[0-9a-f]{6}/g, `"$1":"${tag}`)
      .replace(/-4[0-9a-f]{3}-/g, `-${tag.slice(2)}-`)
  );
}

function pointsIn(lines: readonly string[]): number {
  let points = 0;
  for (const line of lines) {
    const record = JSON.parse(line);
    if (record.type === "metric") points += record.dataPoints.length;
  }
  return points;
}

interface Stored {
  spans: number;
  points: number;
  calls: number;
  tools: number;
}

function stored(home: AgentHome): Stored {
  try {
    const db = new DatabaseSync(join(home.dataHome, "vantage.db"), { readOnly: true });
    try {
      const n = (table: string) =>
        Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
      return {
        spans: n("telemetry_spans"),
        points: n("telemetry_metric_points"),
        calls: n("telemetry_model_calls"),
        tools: n("telemetry_tool_calls"),
      };
    } finally {
      db.close();
    }
  } catch {
    return { spans: 0, points: 0, calls: 0, tools: 0 };
  }
}

/** What `copies` copies of the fixture hold (12 spans, 6 chat calls and 4 tools per copy). */
function expected(copies: number): Stored {
  return {
    spans: 12 * copies,
    points: pointsIn(LINES) * copies,
    calls: 6 * copies,
    tools: 4 * copies,
  };
}

async function waitFor(home: AgentHome, want: Stored, what: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  let now = stored(home);
  while (Date.now() < deadline) {
    now = stored(home);
    if (JSON.stringify(now) === JSON.stringify(want)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(now, want, `timed out waiting for ${what}`);
}

Deno.test({
  name: "serve tails Copilot's telemetry file: SIGKILL mid-file, a half-written line, ingest",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const folder = join(home.home, ".copilot", "otel");
    await Deno.mkdir(folder, { recursive: true });
    const copies = 150;
    const big: string[] = [];
    for (let k = 1; k <= copies; k++) big.push(...copy(k));
    await Deno.writeTextFile(join(folder, "big.jsonl"), big.join("\n") + "\n");
    let server = await startServe(home);
    try {
      const deadline = Date.now() + 60_000;
      while (stored(home).points === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await server.stop("SIGKILL");
      const partial = stored(home);
      assert.ok(
        partial.points > 0 && partial.points < expected(copies).points,
        `killed in the middle: ${JSON.stringify(partial)}`,
      );
      server = await startServe(home);
      await waitFor(home, expected(copies), "the rest of big.jsonl");

      // Copilot appending to its file while serve runs: a line arrives in two writes.
      const live = join(folder, "copilot-otel.jsonl");
      const session = copy(copies + 1);
      await Deno.writeTextFile(live, session.slice(0, 5).join("\n") + "\n");
      const half = session[5].length >> 1;
      await Deno.writeTextFile(live, session[5].slice(0, half), { append: true });
      await waitFor(
        home,
        {
          ...expected(copies),
          spans: expected(copies).spans + 5,
          calls: expected(copies).calls + 3,
          tools: expected(copies).tools + 2,
        },
        "the whole lines of copilot-otel.jsonl",
      );
      await Deno.writeTextFile(live, session[5].slice(half) + "\n", { append: true });
      await Deno.writeTextFile(live, session.slice(6).join("\n") + "\n", { append: true });
      await waitFor(home, expected(copies + 1), "the finished line and the rest");
      assert.equal(await server.stop(), 0);

      // Written while serve was down: `vantage ingest` reads only that.
      await Deno.writeTextFile(live, copy(copies + 2).join("\n") + "\n", { append: true });
      const ingest = await runVantage(["ingest", "--agent", "copilot", "--json"], {
        env: home.env,
      });
      assert.equal(ingest.code, 0, ingest.stderr);
      const report = JSON.parse(ingest.stdout);
      assert.equal(report.lines, LINES.length);
      assert.equal(report.skipped_lines, 0);
      assert.deepEqual(stored(home), expected(copies + 2));
    } finally {
      await server.stop();
      await home.cleanup();
    }
  },
});

Deno.test({
  name: "the real Copilot CLI's file export reaches the store beside its transcript, once",
  ignore: COPILOT === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "otel");
    await Deno.mkdir(project, { recursive: true });
    const server = await startServe(home, [], [project]);
    const model = startScriptedOpenAIServer([
      {
        items: [{
          type: "function_call",
          name: "bash",
          arguments: { command: "echo hi", description: "Say hi" },
        }],
        usage: { input_tokens: 4000, cached_input_tokens: 0, output_tokens: 30 },
      },
      {
        items: [{ type: "function_call", name: "bash", arguments: { command: "false" } }],
        usage: { input_tokens: 4100, cached_input_tokens: 3900, output_tokens: 15 },
      },
      {
        items: [{ type: "message", text: "Said hi; false failed." }],
        usage: { input_tokens: 4200, cached_input_tokens: 4000, output_tokens: 8 },
      },
    ]);
    try {
      const run = await new Deno.Command(COPILOT!, {
        args: ["-p", "Say hi, then run false", "--allow-all-tools"],
        cwd: project,
        env: {
          ...home.env,
          COPILOT_OFFLINE: "true",
          COPILOT_PROVIDER_BASE_URL: model.url,
          COPILOT_PROVIDER_API_KEY: "test-key",
          COPILOT_PROVIDER_WIRE_API: "responses",
          COPILOT_MODEL: "gpt-5",
          COPILOT_AUTO_UPDATE: "false",
          // What `vantage install --adapter copilot-cli --otel` tells the user to set.
          COPILOT_OTEL_FILE_EXPORTER_PATH: join(
            home.home,
            ".copilot",
            "otel",
            "copilot-otel.jsonl",
          ),
          DENO_DIR: denoDir(),
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      const decoder = new TextDecoder();
      assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
      assert.equal(model.remaining(), 0);
      const deadline = Date.now() + 30_000;
      let rows: Array<Record<string, number | string>> = [];
      while (Date.now() < deadline) {
        const db = new DatabaseSync(join(home.dataHome, "vantage.db"), { readOnly: true });
        try {
          rows = db.prepare(
            `SELECT s.session_id, s.input_tokens, s.output_tokens, s.cache_read_tokens, s.tool_calls,
               (SELECT count(*) FROM telemetry_model_calls t WHERE t.session_id = s.session_id)
                 AS calls,
               (SELECT sum(input_tokens) FROM telemetry_model_calls t
                 WHERE t.session_id = s.session_id) AS telemetry_input,
               (SELECT sum(output_tokens) FROM telemetry_model_calls t
                 WHERE t.session_id = s.session_id) AS telemetry_output,
               (SELECT count(*) FROM telemetry_model_calls t
                 WHERE t.session_id = s.session_id AND t.counted = 1) AS counted,
               (SELECT group_concat(success, ',') FROM (SELECT success FROM telemetry_tool_calls t
                 WHERE t.session_id = s.session_id ORDER BY tool_use_id)) AS outcomes,
               (SELECT count(*) FROM messages m WHERE m.session_id = s.session_id) AS messages
             FROM sessions s WHERE s.agent = 'copilot_cli'`,
          ).all().map((row) => ({ ...row })) as Array<Record<string, number | string>>;
        } finally {
          db.close();
        }
        if (rows.length === 1 && rows[0].calls === 3 && Number(rows[0].messages) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(rows.length, 1, JSON.stringify(rows));
      const [session] = rows;
      // The transcript's totals (fresh input apart from cached), and telemetry's own agree.
      assert.deepEqual(
        [
          session.input_tokens,
          session.output_tokens,
          session.cache_read_tokens,
          session.tool_calls,
        ],
        [4000 + 200 + 200, 53, 3900 + 4000, 2],
      );
      assert.equal(session.telemetry_input, session.input_tokens);
      assert.equal(session.telemetry_output, session.output_tokens);
      assert.equal(session.counted, 0, "the transcript counts the calls; telemetry adds latency");
      assert.equal(session.outcomes, "1,0", "`false` exited 1: a failure");
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
