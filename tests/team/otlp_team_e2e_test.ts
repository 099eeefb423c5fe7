/**
 * OTLP on a team server, end to end with real processes: a real
 * `serve --store postgres://…`, two people whose tokens come from the real
 * `vantage team add-user`, each sending what Claude Code 2.1.197 really
 * exported during one session (fixture `tests/fixtures/otlp/claude_code_2.1.197/`,
 * under a session and call ids of their own) as binary protobuf, with their
 * token. The stored model calls, tool calls, sessions and token totals equal
 * what SQLite's intake stores from the same exports, attributed to the same
 * person and host. Then each person's transcript of that session reaches the
 * server by the real `vantage sync` — ada's after her telemetry, bob's before
 * his — and every call is counted once: the session's totals equal the
 * transcript's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import postgres from "postgres";
import { takeOtlpExport } from "../../src/agent/otlp/otlp_intake.ts";
import type { OtlpSignal } from "../../src/agent/otlp/otlp_schema.ts";
import { ingestTranscriptFile } from "../../src/agent/transcripts/transcript_ingester.ts";
import { type DatabaseSync, openDatabase } from "../../src/store/database.ts";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { protobufOf } from "../helpers/otlp_bodies.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";

const FIXTURES = new URL("../fixtures/otlp/claude_code_2.1.197/", import.meta.url);
const SESSION = "f8236733-d176-41ab-9124-ccc8cb813fb6";
const EXPORTS = await Deno.readTextFile(new URL("exports.json", FIXTURES));
const TRANSCRIPT = await Deno.readTextFile(new URL(`${SESSION}.jsonl`, FIXTURES));

interface Person {
  name: string;
  /** The host their exports name (`X-Vantage-Host`); none: the export's own host.name. */
  host?: string;
  session: string;
  token: string;
  home?: AgentHome;
}

/** The fixture's text as `person`'s: their session id, their message, request and tool ids. */
function theirs(text: string, person: Person): string {
  return text.replaceAll(SESSION, person.session).replaceAll("_script_", `_${person.name}_`);
}

function exportsOf(person: Person): Array<{ signal: OtlpSignal; body: Uint8Array }> {
  const items = JSON.parse(theirs(EXPORTS, person)) as Array<{ path: string; body: unknown }>;
  return items.map((item) => {
    const signal = item.path.slice("/v1/".length) as OtlpSignal;
    return { signal, body: protobufOf(signal, item.body) };
  });
}

/** PostgreSQL's bigint and numeric as numbers, as SQLite answers them. */
const AS_NUMBERS = { bigint: { to: 20, from: [20, 1700], serialize: String, parse: Number } };

/** What a store holds of one session's telemetry and totals. */
const READS = {
  session: `SELECT person, host, input_tokens, output_tokens, cache_read_tokens,
      cache_write_tokens, tool_calls, round(cost_usd::numeric, 9) AS cost_usd
    FROM sessions WHERE session_id = $1`,
  modelCalls: `SELECT call_key, request_id, model, input_tokens, output_tokens, cache_read_tokens,
      cache_write_tokens, duration_ms, ttft_ms, finish_reason, success, counted
    FROM telemetry_model_calls WHERE session_id = $1 ORDER BY call_key`,
  toolCalls: `SELECT call_key, tool_name, tool_use_id, duration_ms, success, error_type, counted
    FROM telemetry_tool_calls WHERE session_id = $1 ORDER BY call_key`,
  usage: `SELECT count(*) AS rows, coalesce(sum(calls), 0) AS calls,
      count(*) FILTER (WHERE usage_key LIKE 'otel:%') AS from_telemetry
    FROM usage WHERE session_id = $1`,
};

type Reads = Record<keyof typeof READS, Array<Record<string, unknown>>>;

async function readPostgres(url: string, session: string): Promise<Reads> {
  const db = postgres(url, { max: 1, onnotice: () => {}, types: AS_NUMBERS });
  try {
    const out = {} as Reads;
    for (const [name, sql] of Object.entries(READS)) {
      out[name as keyof Reads] = [...await db.unsafe(sql, [session])].map((row) => ({ ...row }));
    }
    return out;
  } finally {
    await db.end();
  }
}

function readSqlite(db: DatabaseSync, session: string): Reads {
  const out = {} as Reads;
  for (const [name, sql] of Object.entries(READS)) {
    // The same statements: SQLite takes $1 too; its FILTER and ::numeric spelled its way.
    const spelled = sql.replace("::numeric", "").replace("$1", "?");
    out[name as keyof Reads] = db.prepare(spelled).all(session).map((row) => ({ ...row }));
  }
  return out;
}

/** The totals `totals` compares: a session's figures and its calls, as the transcript has them. */
function totals(reads: Reads): Record<string, unknown> {
  const { person: _p, host: _h, ...session } = reads.session[0];
  return { ...session, model_calls: Number(reads.usage[0].calls) };
}

/** Posts one export as `person` would: protobuf, their token, their host when they name one. */
async function send(server: ServeProcess, person: Person, signal: OtlpSignal, body: Uint8Array) {
  const headers: Record<string, string> = {
    "content-type": "application/x-protobuf",
    authorization: `Bearer ${person.token}`,
  };
  if (person.host !== undefined) headers["x-vantage-host"] = person.host;
  const response = await fetch(`${server.url}/v1/${signal}`, {
    method: "POST",
    headers,
    body: body as Uint8Array<ArrayBuffer>,
  });
  const answer = new Uint8Array(await response.arrayBuffer());
  assert.equal(response.status, 200, new TextDecoder().decode(answer));
  // A full success: the response message is empty (no partial_success).
  assert.equal(answer.length, 0, `${person.name}: ${signal} answered a partial success`);
}

/** The person's laptop: their transcript of the session read into its store, then synced. */
async function syncTranscript(person: Person, server: ServeProcess): Promise<void> {
  const home = person.home!;
  const path = join(home.home, `${person.session}.jsonl`);
  await Deno.writeTextFile(path, theirs(TRANSCRIPT, person));
  const db = openDatabase(join(home.dataHome, "vantage.db"));
  try {
    await ingestTranscriptFile(db, path, "claude_code");
  } finally {
    db.close();
  }
  const run = await runVantage(["sync", "--json"], {
    env: {
      ...home.env,
      VANTAGE_TEAM_URL: server.url,
      VANTAGE_TEAM_TOKEN: person.token,
      VANTAGE_HOSTNAME: person.host ?? "laptop",
    },
  });
  assert.equal(run.code, 0, run.stderr);
  const summary = JSON.parse(run.stdout);
  assert.equal(summary.refused.records, 0, run.stdout);
  assert.equal(summary.stored.usage, 3, run.stdout);
}

/** The transcript's own figures, read by the transcript parser alone. */
async function transcriptTruth(dir: string, person: Person) {
  const path = join(dir, `truth-${person.name}.jsonl`);
  await Deno.writeTextFile(path, theirs(TRANSCRIPT, person));
  const db = openDatabase(join(dir, `truth-${person.name}.db`));
  try {
    await ingestTranscriptFile(db, path, "claude_code");
    return totals(readSqlite(db, person.session));
  } finally {
    db.close();
  }
}

Deno.test({
  name: "OTLP on a team server: two people's Claude Code exports stored as on SQLite, theirs, " +
    "each call counted once beside their synced transcripts",
  ignore: skipWithoutPostgres("the OTLP team server test"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const url = `${await sharedPostgresCluster()
      .createDatabase()}?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`;
    const serverHome = await makeAgentHome({ fixtures: false });
    serverHome.env.VANTAGE_STORE = url;
    const dir = await Deno.makeTempDir();
    const people: Person[] = [
      {
        name: "ada",
        host: "ada-laptop",
        session: "a0000000-0000-4000-8000-00000000ada0",
        token: "",
      },
      { name: "bob", session: "b0000000-0000-4000-8000-00000000b0b0", token: "" },
    ];
    const [ada, bob] = people;
    let server: ServeProcess | undefined;
    try {
      for (const person of people) {
        const added = await runVantage(["team", "add-user", person.name], {
          env: serverHome.env,
        });
        assert.equal(added.code, 0, added.stderr);
        person.token = added.stdout.trim();
        person.home = await makeAgentHome({ fixtures: false });
      }
      server = await startServe(serverHome, ["--no-tail"]);
      const running = server;

      // Bob's transcript reaches the team first; ada's telemetry comes before hers.
      await syncTranscript(bob, running);
      // Both send at once, as two laptops would.
      await Promise.all(people.map(async (person) => {
        for (const { signal, body } of exportsOf(person)) {
          await send(running, person, signal, body);
        }
      }));

      // The same exports through SQLite's intake, as the same senders.
      const reference = openDatabase(join(dir, "reference.db"));
      try {
        for (const person of people) {
          for (const { signal, body } of exportsOf(person)) {
            takeOtlpExport(reference, signal, body, "protobuf", {
              sender: {
                person: person.name,
                ...(person.host !== undefined ? { host: person.host } : {}),
              },
            });
          }
        }
        const truth = await transcriptTruth(dir, ada);
        assert.equal(truth.model_calls, 3);
        assert.equal(truth.tool_calls, 2);

        const onAda = await readPostgres(url, ada.session);
        const expected = readSqlite(reference, ada.session);
        assert.equal(onAda.modelCalls.length, 3);
        assert.equal(onAda.toolCalls.length, 2);
        assert.deepEqual(onAda, expected, "ada's session: PostgreSQL stores what SQLite stores");
        assert.deepEqual(onAda.session[0].person, "ada");
        assert.deepEqual(onAda.session[0].host, "ada-laptop");
        assert.deepEqual(totals(onAda), truth, "telemetry alone gives the transcript's figures");

        // Bob's session was his transcript's before his telemetry came: telemetry counted
        // nothing in it, and it stays his.
        const onBob = await readPostgres(url, bob.session);
        assert.equal(onBob.session[0].person, "bob");
        assert.equal(onBob.modelCalls.length, 3);
        assert.ok(onBob.modelCalls.every((call) => call.counted === 0), "nothing counted twice");
        assert.deepEqual(totals(onBob), await transcriptTruth(dir, bob));
        // Beside SQLite's telemetry alone, the telemetry rows are the same but for what the
        // transcript took over (counted) .
        const bobAlone = readSqlite(reference, bob.session);
        const uncounted = (rows: Array<Record<string, unknown>>) =>
          rows.map(({ counted: _c, ...rest }) => rest);
        assert.deepEqual(uncounted(onBob.modelCalls), uncounted(bobAlone.modelCalls));
        assert.deepEqual(uncounted(onBob.toolCalls), uncounted(bobAlone.toolCalls));
        assert.equal(bobAlone.session[0].person, "bob");

        // Now ada's transcript: the transcript takes over from her telemetry, counted once.
        await syncTranscript(ada, running);
        const synced = await readPostgres(url, ada.session);
        assert.deepEqual(totals(synced), truth, "ada's totals: the transcript's, once");
        assert.equal(synced.usage[0].from_telemetry, 0, "telemetry's counts were withdrawn");
        assert.ok(synced.modelCalls.every((call) => call.counted === 0));
        assert.equal(synced.session[0].person, "ada");

        // An exporter retrying: the same exports again change nothing.
        for (const { signal, body } of exportsOf(ada)) await send(running, ada, signal, body);
        assert.deepEqual(await readPostgres(url, ada.session), synced);

        const health = await (await fetch(`${running.url}/api/health`)).json();
        assert.equal(health.store.kind, "postgres");
      } finally {
        reference.close();
      }
    } finally {
      if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
      for (const person of people) await person.home?.cleanup();
      await serverHome.cleanup();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "OTLP on a team server whose database goes away: 503 UNAVAILABLE, nothing stored, " +
    "and the exporter's retry stored once it is back",
  ignore: skipWithoutPostgres("the OTLP team server test"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = sharedPostgresCluster();
    // A short connect timeout: while the database is away, an export fails fast.
    const url = `${await cluster.createDatabase()}?connect_timeout=5`;
    const readUrl = url.replace("connect_timeout=5", `connect_timeout=${TEST_CONNECT_TIMEOUT_S}`);
    const serverHome = await makeAgentHome({ fixtures: false });
    serverHome.env.VANTAGE_STORE = url;
    const ada: Person = {
      name: "ada",
      host: "ada-laptop",
      session: "a0000000-0000-4000-8000-0000000a0a0a",
      token: "",
    };
    const added = await runVantage(["team", "add-user", "ada"], { env: serverHome.env });
    assert.equal(added.code, 0, added.stderr);
    ada.token = added.stdout.trim();
    const server = await startServe(serverHome, ["--no-tail"]);
    const exports = exportsOf(ada);
    const post = (signal: OtlpSignal, body: Uint8Array) =>
      fetch(`${server.url}/v1/${signal}`, {
        method: "POST",
        headers: {
          "content-type": "application/x-protobuf",
          authorization: `Bearer ${ada.token}`,
        },
        body: body as Uint8Array<ArrayBuffer>,
      });
    const count = async () => {
      const db = postgres(readUrl, { max: 1, onnotice: () => {}, types: AS_NUMBERS });
      try {
        const [row] = await db.unsafe(
          `SELECT (SELECT count(*) FROM telemetry_spans) + (SELECT count(*) FROM telemetry_logs)
             + (SELECT count(*) FROM telemetry_metric_points)
             + (SELECT count(*) FROM telemetry_model_calls) AS n`,
        );
        return Number(row.n);
      } finally {
        await db.end();
      }
    };
    let paused = false;
    try {
      // Up: the first export is stored (and ada's token is known to the server's cache).
      const [first, ...rest] = exports;
      assert.equal((await post(first.signal, first.body)).status, 200);
      const before = await count();
      assert.ok(before > 0);

      cluster.pause();
      paused = true;
      for (const { signal, body } of rest) {
        const response = await post(signal, body);
        assert.equal(response.status, 503, `${signal} while the database is away`);
        assert.equal(response.headers.get("content-type"), "application/x-protobuf");
      }
      const response = await post(rest[0].signal, rest[0].body);
      const { statusType } = await import("../../src/agent/otlp/otlp_schema.ts");
      const status = statusType().toObject(
        statusType().decode(new Uint8Array(await response.arrayBuffer())),
      ) as { code: number; message: string };
      assert.equal(status.code, 14, "UNAVAILABLE, which exporters retry");
      assert.match(status.message, /PostgreSQL at .* cannot be used/);

      cluster.resume();
      paused = false;
      assert.equal(await count(), before, "nothing of a refused export was stored");
      // The exporter retries: each export is stored once, and again changes nothing.
      for (let round = 0; round < 2; round++) {
        for (const { signal, body } of rest) {
          const retried = await post(signal, body);
          assert.equal(retried.status, 200, await retried.text());
        }
      }
      const onAda = await readPostgres(readUrl, ada.session);
      assert.equal(onAda.modelCalls.length, 3);
      assert.equal(onAda.toolCalls.length, 2);
      assert.equal(onAda.session[0].person, "ada");
      assert.equal(onAda.usage[0].calls, 3, "each call counted once");
    } finally {
      if (paused) cluster.resume();
      assert.equal(await server.stop(), 0, server.stderr());
      await serverHome.cleanup();
    }
  },
});
