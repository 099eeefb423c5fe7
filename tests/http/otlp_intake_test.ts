/**
 * OTLP/HTTP on the pure handler, over a real store of each backend (SQLite's
 * intake on the main thread, PostgreSQL's team-server intake): the official
 * OTLP examples as JSON and as protobuf, gzip, malformed and truncated bodies
 * (400, nothing stored), partial success, size limits, content types and
 * methods, an intake that cannot take exports now (503), the Host/Origin/token
 * rules of /api/* off loopback, and a person's export attributed to them.
 * Every error body is a google.rpc.Status in the request's encoding.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VantageError } from "../../src/core/errors.ts";
import { takeOtlpExport } from "../../src/agent/otlp/otlp_intake.ts";
import { type OtlpSignal, signalTypes, statusType } from "../../src/agent/otlp/otlp_schema.ts";
import { decodeExport } from "../../src/agent/otlp/otlp_decode.ts";
import type { GuardOptions, PeopleDirectory } from "../../src/http/guard.ts";
import { createHandler, type Handler } from "../../src/http/handler.ts";
import type { OtlpDependencies } from "../../src/http/otlp_routes.ts";
import { createPostgresTelemetryIntake } from "../../src/server/postgres_telemetry_intake.ts";
import { openDatabase } from "../../src/store/database.ts";
import { openPgPool } from "../../src/store/postgres/connection.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import { pgTelemetryStore } from "../../src/store/postgres/telemetry/telemetry_store.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";

const EXAMPLES = new URL("../fixtures/otlp/", import.meta.url);
const LOOPBACK: GuardOptions = { bindHost: "127.0.0.1", port: 14300 };
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

type Row = Record<string, unknown>;

interface Store {
  handler(guard?: GuardOptions, bodyLimit?: number): Handler;
  /** Rows per table. */
  rows(): Promise<Record<string, number>>;
  /** Every row `sql` reads. */
  all(sql: string): Promise<Row[]>;
  close(): Promise<void>;
}

/** A backend the cases run on: how its intake takes an export, and how its rows are read. */
interface Backend {
  name: string;
  ignore: boolean;
  open(): Promise<{
    take: OtlpDependencies["take"];
    all(sql: string): Promise<Row[]>;
    close(): Promise<void>;
  }>;
}

const BACKENDS: Backend[] = [
  {
    name: "sqlite",
    ignore: false,
    async open() {
      const dir = await Deno.makeTempDir();
      const db = openDatabase(join(dir, "vantage.db"));
      return {
        take: (signal, body, encoding, sender) =>
          takeOtlpExport(db, signal, body, encoding, { sender }),
        all: (sql) => Promise.resolve(db.prepare(sql).all() as Row[]),
        close: async () => {
          db.close();
          await Deno.remove(dir, { recursive: true });
        },
      };
    },
  },
  {
    name: "postgres",
    ignore: skipWithoutPostgres("the OTLP protocol tests on PostgreSQL"),
    async open() {
      const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
      if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
      const pool = openPgPool(location, { max: 4, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
      await migratePostgres(pool);
      const home = await Deno.makeTempDir();
      // The team server's intake, decoding on the calling thread (its workers have their own
      // tests): the same mapping, stored in one PostgreSQL write per export.
      const intake = createPostgresTelemetryIntake({
        telemetry: pgTelemetryStore(pool),
        home,
        workers: false,
      });
      return {
        take: (signal, body, encoding, sender) => intake.take(signal, body, encoding, sender),
        all: (sql) => pool.query(sql),
        close: async () => {
          await intake.stop();
          await pool.close();
          await Deno.remove(home, { recursive: true });
        },
      };
    },
  },
];

/** Registers `fn` once per backend. */
function eachBackend(name: string, fn: (open: () => Promise<Store>) => Promise<void>): void {
  for (const backend of BACKENDS) {
    Deno.test({
      name: `${name} (${backend.name})`,
      ignore: backend.ignore,
      fn: () => fn(() => store(backend)),
    });
  }
}

async function store(backend: Backend): Promise<Store> {
  const opened = await backend.open();
  return {
    handler: (guard = LOOPBACK, bodyLimit) =>
      createHandler({
        guard,
        hooks: { take: () => ({ stored: false, duplicate: false, reason: "no hooks here" }) },
        dashboard: false,
        otlp: {
          take: opened.take,
          ...(bodyLimit !== undefined ? { bodyLimit } : {}),
        },
      }),
    all: opened.all,
    rows: async () => {
      const counts: Record<string, number> = {};
      for (const table of TABLES) {
        counts[table] = Number((await opened.all(`SELECT count(*) AS n FROM ${table}`))[0].n);
      }
      return counts;
    },
    close: opened.close,
  };
}

async function total(s: Store): Promise<number> {
  return Object.values(await s.rows()).reduce((a, b) => a + b, 0);
}

function example(name: string): string {
  return Deno.readTextFileSync(new URL(name, EXAMPLES));
}

/** The example re-encoded as binary protobuf (through the JSON decoder, hex ids included). */
function protobufOf(signal: OtlpSignal, json: string): Uint8Array {
  const type = signalTypes(signal).request;
  const message = decodeExport(signal, new TextEncoder().encode(json), "json");
  return type.encode(type.fromObject(message as Record<string, unknown>)).finish();
}

function post(
  path: string,
  body: BodyInit | Uint8Array,
  headers: Record<string, string> = {},
): Request {
  return new Request(`http://127.0.0.1:14300${path}`, {
    method: "POST",
    headers: { host: "127.0.0.1:14300", ...headers },
    body: body as BodyInit,
  });
}

const PROTOBUF = { "content-type": "application/x-protobuf" };
const JSON_TYPE = { "content-type": "application/json" };

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function statusOf(response: Response): Promise<{ code?: number; message?: string }> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  if ((response.headers.get("content-type") ?? "").includes("protobuf")) {
    return statusType().toObject(statusType().decode(bytes)) as { message?: string };
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

const SIGNAL_OF: Record<string, OtlpSignal> = {
  "trace.json": "traces",
  "metrics.json": "metrics",
  "logs.json": "logs",
  "events.json": "logs",
};
const PATH_OF: Record<OtlpSignal, string> = {
  traces: "/v1/traces",
  metrics: "/v1/metrics",
  logs: "/v1/logs",
};
/** What each example holds: spans, metric points, log records. */
const EXPECTED: Record<string, Partial<Record<string, number>>> = {
  "trace.json": { telemetry_spans: 1 },
  "metrics.json": { telemetry_metric_points: 4 },
  "logs.json": { telemetry_logs: 1 },
  "events.json": { telemetry_logs: 1 },
};

eachBackend(
  "OTLP: the official examples, as JSON and as protobuf, store the same rows",
  async (store) => {
    for (const name of Object.keys(SIGNAL_OF)) {
      const signal = SIGNAL_OF[name];
      const asJson = await store();
      const asProtobuf = await store();
      try {
        const json = await asJson.handler()(post(PATH_OF[signal], example(name), JSON_TYPE));
        assert.equal(json.status, 200, name);
        assert.equal(json.headers.get("content-type"), "application/json");
        // Full success leaves partial_success unset.
        assert.deepEqual(await json.json(), {}, name);

        const binary = await asProtobuf.handler()(
          post(PATH_OF[signal], protobufOf(signal, example(name)), PROTOBUF),
        );
        assert.equal(binary.status, 200, name);
        assert.equal(binary.headers.get("content-type"), "application/x-protobuf");
        const response = signalTypes(signal).response.decode(
          new Uint8Array(await binary.arrayBuffer()),
        ) as unknown as { partialSuccess?: unknown };
        assert.equal(response.partialSuccess ?? null, null, name);

        const rows = await asJson.rows();
        for (const [table, count] of Object.entries(EXPECTED[name])) {
          assert.equal(rows[table], count, `${name}: ${table}`);
        }
        assert.deepEqual(
          await asProtobuf.rows(),
          rows,
          `${name}: protobuf and JSON store the same`,
        );
        for (const table of ["telemetry_spans", "telemetry_logs", "telemetry_metric_points"]) {
          const read = async (s: Store) =>
            (await s.all(`SELECT * FROM ${table} ORDER BY id`)).map((row) => {
              const { id: _id, received_at: _at, ...rest } = row;
              return rest;
            });
          assert.deepEqual(await read(asProtobuf), await read(asJson), `${name}: ${table}`);
        }
      } finally {
        await asJson.close();
        await asProtobuf.close();
      }
    }
  },
);

eachBackend(
  "OTLP: the example span and log record keep their ids, times and attributes",
  async (store) => {
    const s = await store();
    try {
      await s.handler()(post("/v1/otlp/v1/traces", example("trace.json"), JSON_TYPE));
      const [span] = await s.all("SELECT * FROM telemetry_spans");
      assert.equal(span.trace_id, "5b8efff798038103d269b633813fc60c");
      assert.equal(span.span_id, "eee19b7ec3c1b174");
      assert.equal(span.parent_span_id, "eee19b7ec3c1b173");
      assert.equal(span.start_ts, 1544712660000);
      assert.equal(span.duration_ms, 1000);
      assert.equal(span.service, "my.service");
      assert.deepEqual(JSON.parse(String(span.attributes)), { "my.span.attr": "some value" });
      await s.handler()(post("/v1/logs", example("logs.json"), JSON_TYPE));
      const [log] = await s.all("SELECT * FROM telemetry_logs");
      assert.equal(log.body, "Example log record");
      assert.equal(JSON.parse(String(log.attributes))["int.attribute"], 10);
    } finally {
      await s.close();
    }
  },
);

eachBackend("OTLP: gzip bodies are accepted; corrupt gzip is a 400", async (store) => {
  const s = await store();
  try {
    const body = await gzip(protobufOf("traces", example("trace.json")));
    const ok = await s.handler()(
      post("/v1/traces", body, { ...PROTOBUF, "content-encoding": "gzip" }),
    );
    assert.equal(ok.status, 200);
    assert.equal((await s.rows()).telemetry_spans, 1);
    const corrupt = await s.handler()(
      post("/v1/metrics", body.slice(0, 12), { ...PROTOBUF, "content-encoding": "gzip" }),
    );
    assert.equal(corrupt.status, 400);
    assert.match(String((await statusOf(corrupt)).message), /gzip/);
    assert.equal((await s.rows()).telemetry_metric_points, 0);
  } finally {
    await s.close();
  }
});

eachBackend("OTLP: malformed and truncated bodies are a 400 and store nothing", async (store) => {
  const s = await store();
  try {
    const whole = protobufOf("traces", example("trace.json"));
    const cases: Array<[string, Uint8Array | string, Record<string, string>]> = [
      ["truncated protobuf", whole.slice(0, whole.length - 7), PROTOBUF],
      ["a length past the end", Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), PROTOBUF],
      ["an invalid wire type", Uint8Array.from([0x0f, 0x00, 0x00]), PROTOBUF],
      ["not JSON", '{"resourceSpans": [', JSON_TYPE],
      ["JSON of the wrong shape", '{"resourceSpans": 5}', JSON_TYPE],
      [
        "a span id that is not hex",
        example("trace.json").replace("EEE19B7EC3C1B174", "zz"),
        JSON_TYPE,
      ],
      ["a JSON array", "[]", JSON_TYPE],
    ];
    for (const [what, body, headers] of cases) {
      const response = await s.handler()(post("/v1/traces", body, headers));
      assert.equal(response.status, 400, what);
      const status = await statusOf(response);
      assert.ok((status.message ?? "").length > 0, `${what}: the Status names the problem`);
    }
    assert.equal(await total(s), 0, "nothing stored");
  } finally {
    await s.close();
  }
});

eachBackend(
  "OTLP: invalid items are rejected with a partial success, the rest stored",
  async (store) => {
    const s = await store();
    try {
      const span = (traceId: string, spanId: string) => ({
        traceId,
        spanId,
        name: "work",
        startTimeUnixNano: "1544712660000000000",
        endTimeUnixNano: "1544712661000000000",
      });
      const body = {
        resourceSpans: [{
          scopeSpans: [{
            spans: [
              span("5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"),
              span("5b8efff7", "eee19b7ec3c1b175"),
              span("5b8efff798038103d269b633813fc60c", "0000000000000000"),
            ],
          }],
        }],
      };
      const json = await s.handler()(post("/v1/traces", JSON.stringify(body), JSON_TYPE));
      assert.equal(json.status, 200);
      const answer = await json.json();
      assert.equal(answer.partialSuccess.rejectedSpans, "2");
      assert.match(answer.partialSuccess.errorMessage, /2 of 3 spans rejected/);
      assert.match(answer.partialSuccess.errorMessage, /traceId/);
      assert.equal((await s.rows()).telemetry_spans, 1);

      // The same in protobuf: rejected_spans in the binary answer.
      const binary = await s.handler()(
        post("/v1/traces", protobufOf("traces", JSON.stringify(body)), PROTOBUF),
      );
      assert.equal(binary.status, 200);
      const decoded = signalTypes("traces").response.toObject(
        signalTypes("traces").response.decode(new Uint8Array(await binary.arrayBuffer())),
        { longs: Number },
      );
      assert.equal(decoded.partialSuccess.rejectedSpans, 2);

      // A metric point with no value.
      const metrics = {
        resourceMetrics: [{
          scopeMetrics: [{
            metrics: [{
              name: "m",
              gauge: { dataPoints: [{ timeUnixNano: "1544712660300000000" }, { asInt: "3" }] },
            }],
          }],
        }],
      };
      const m = await s.handler()(post("/v1/metrics", JSON.stringify(metrics), JSON_TYPE));
      assert.equal(m.status, 200);
      assert.equal((await m.json()).partialSuccess.rejectedDataPoints, "1");
      assert.equal((await s.rows()).telemetry_metric_points, 1);
    } finally {
      await s.close();
    }
  },
);

eachBackend(
  "OTLP: bodies past the limit are a 413 before and after decompression",
  async (store) => {
    const s = await store();
    try {
      const handler = s.handler(LOOPBACK, 4096);
      const big = new Uint8Array(8192);
      const declared = await handler(post("/v1/logs", big, PROTOBUF));
      assert.equal(declared.status, 413);
      // Chunked, without a Content-Length (as Claude Code sends its exports).
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(2048));
          controller.close();
        },
      });
      const chunked = await handler(post("/v1/logs", stream, PROTOBUF));
      assert.equal(chunked.status, 413);
      // A small gzip body that inflates past the limit.
      const bomb = await gzip(new Uint8Array(1024 * 1024));
      assert.ok(bomb.length < 4096);
      const inflated = await handler(
        post("/v1/logs", bomb, { ...PROTOBUF, "content-encoding": "gzip" }),
      );
      assert.equal(inflated.status, 413);
      assert.match(String((await statusOf(inflated)).message), /decompressed body exceeds/);
      assert.equal(await total(s), 0);
    } finally {
      await s.close();
    }
  },
);

eachBackend(
  "OTLP: content types, encodings and methods OTLP does not define are refused",
  async (store) => {
    const s = await store();
    try {
      const handler = s.handler();
      const text = await handler(
        post("/v1/traces", example("trace.json"), { "content-type": "text/plain" }),
      );
      assert.equal(text.status, 415);
      const brotli = await handler(
        post("/v1/traces", example("trace.json"), { ...JSON_TYPE, "content-encoding": "br" }),
      );
      assert.equal(brotli.status, 415);
      const get = await handler(
        new Request("http://127.0.0.1:14300/v1/traces", { headers: { host: "127.0.0.1:14300" } }),
      );
      assert.equal(get.status, 405);
      assert.equal(get.headers.get("allow"), "POST");
      const none = createHandler({
        guard: LOOPBACK,
        hooks: { take: () => ({ stored: false, duplicate: false, reason: "" }) },
      });
      assert.equal((await none(post("/v1/traces", example("trace.json"), JSON_TYPE))).status, 503);
      assert.equal(await total(s), 0);
    } finally {
      await s.close();
    }
  },
);

Deno.test("OTLP: an intake that cannot take exports now answers 503 UNAVAILABLE, which exporters retry", async () => {
  const refusing = createHandler({
    guard: LOOPBACK,
    hooks: { take: () => ({ stored: false, duplicate: false, reason: "" }) },
    dashboard: false,
    otlp: {
      take: () => {
        throw new VantageError("unavailable", "no OTLP intake worker could be started again");
      },
    },
  });
  const requests: Array<[BodyInit, Record<string, string>]> = [
    [example("trace.json"), JSON_TYPE],
    [new Uint8Array(), PROTOBUF],
  ];
  for (const [body, type] of requests) {
    const response = await refusing(post("/v1/traces", body, type));
    assert.equal(response.status, 503);
    const status = await statusOf(response);
    assert.equal(status.code, 14);
    assert.match(status.message ?? "", /no OTLP intake worker/);
  }
});

eachBackend("OTLP: the Host, Origin and token rules of /api/* apply", async (store) => {
  const s = await store();
  try {
    const local = s.handler();
    const foreignHost = await local(
      post("/v1/traces", example("trace.json"), { ...JSON_TYPE, host: "evil.example.com" }),
    );
    assert.equal(foreignHost.status, 403);
    const foreignOrigin = await local(
      post("/v1/traces", example("trace.json"), {
        ...JSON_TYPE,
        origin: "https://evil.example.com",
      }),
    );
    assert.equal(foreignOrigin.status, 403);
    const otherPort = await local(
      post("/v1/traces", example("trace.json"), { ...JSON_TYPE, origin: "http://127.0.0.1:9999" }),
    );
    assert.equal(otherPort.status, 403, "a page on another port may not export");
    assert.equal((await s.rows()).telemetry_spans, 0);

    // Bound beyond loopback: the bearer token is required, in either encoding.
    const exposed = s.handler({ bindHost: "192.0.2.10", port: 14300, token: "s3cret" });
    const host = { host: "192.0.2.10:14300" };
    const missing = await exposed(
      post("/v1/traces", example("trace.json"), { ...JSON_TYPE, ...host }),
    );
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get("www-authenticate") ?? "", /Bearer/);
    assert.match(String((await statusOf(missing)).message), /bearer token/);
    const wrong = await exposed(
      post("/v1/traces", protobufOf("traces", example("trace.json")), {
        ...PROTOBUF,
        ...host,
        authorization: "Bearer nope",
      }),
    );
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("content-type"), "application/x-protobuf");
    assert.match(String((await statusOf(wrong)).message), /not valid/);
    assert.equal((await s.rows()).telemetry_spans, 0);
    const right = await exposed(
      post("/v1/traces", example("trace.json"), {
        ...JSON_TYPE,
        ...host,
        authorization: "Bearer s3cret",
      }),
    );
    assert.equal(right.status, 200);
    assert.equal((await s.rows()).telemetry_spans, 1);
  } finally {
    await s.close();
  }
});

/** A team's people as the guard sees them: ada holds `vtp_ada…`, no one else is known. */
const ADA_TOKEN = `vtp_${"a".repeat(43)}`;
const TEAM: PeopleDirectory = {
  holderOf: (token) =>
    token === ADA_TOKEN
      ? { kind: "person", person: { name: "ada", role: "member", created_at: 0, revoked_at: null } }
      : { kind: "unknown" },
};

/** A Claude Code `api_request` event of `session`, from a machine whose host.name is `host`. */
function apiRequest(session: string, host: string, requestId: string): string {
  const attr = (key: string, value: string | number) => ({
    key,
    value: typeof value === "number" ? { intValue: value } : { stringValue: value },
  });
  return JSON.stringify({
    resourceLogs: [{
      resource: { attributes: [attr("service.name", "claude-code"), attr("host.name", host)] },
      scopeLogs: [{
        scope: { name: "com.anthropic.claude_code.events" },
        logRecords: [{
          timeUnixNano: "1764650000000000000",
          body: { stringValue: "claude_code.api_request" },
          attributes: [
            attr("session.id", session),
            attr("event.name", "api_request"),
            attr("event.sequence", 1),
            attr("model", "claude-sonnet-4-5"),
            attr("input_tokens", 120),
            attr("output_tokens", 30),
            attr("request_id", requestId),
          ],
        }],
      }],
    }],
  });
}

eachBackend(
  "OTLP: an export sent with a person's token is theirs, from the host it names",
  async (store) => {
    const s = await store();
    try {
      const team = s.handler({ ...LOOPBACK, people: TEAM });
      const send = (body: string, headers: Record<string, string>) =>
        team(post("/v1/logs", body, { ...JSON_TYPE, ...headers }));
      // Ada's export names her machine; one without the header keeps the resource's host.name.
      const named = await send(apiRequest("s-ada", "ada-box", "req_1"), {
        authorization: `Bearer ${ADA_TOKEN}`,
        "x-vantage-host": "ada-laptop",
      });
      assert.equal(named.status, 200, await named.text());
      const unnamed = await send(apiRequest("s-ada-2", "ada-box", "req_2"), {
        authorization: `Bearer ${ADA_TOKEN}`,
      });
      assert.equal(unnamed.status, 200, await unnamed.text());
      // The owner's export (no token on loopback) is nobody's, and names no host.
      const owners = await send(apiRequest("s-owner", "server-box", "req_3"), {});
      assert.equal(owners.status, 200, await owners.text());
      // A later export of ada's session from someone else leaves it hers.
      const again = await send(apiRequest("s-ada", "elsewhere", "req_4"), {
        "x-vantage-host": "elsewhere",
      });
      assert.equal(again.status, 200, await again.text());
      const sessions = await s.all(
        "SELECT session_id, person, host, input_tokens FROM sessions ORDER BY session_id",
      );
      assert.deepEqual(sessions.map((r) => ({ ...r, input_tokens: Number(r.input_tokens) })), [
        { session_id: "s-ada", person: "ada", host: "ada-laptop", input_tokens: 240 },
        { session_id: "s-ada-2", person: "ada", host: "ada-box", input_tokens: 120 },
        { session_id: "s-owner", person: null, host: null, input_tokens: 120 },
      ]);
      // A token no one holds is refused before anything is read.
      const stranger = await send(apiRequest("s-x", "x", "req_5"), {
        authorization: `Bearer vtp_${"z".repeat(43)}`,
      });
      assert.equal(stranger.status, 401);
      assert.equal((await s.all("SELECT * FROM sessions WHERE session_id = 's-x'")).length, 0);
    } finally {
      await s.close();
    }
  },
);
