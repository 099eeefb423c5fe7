/**
 * Bad input over HTTP is the client's fault and answers 4xx naming what was
 * wrong, never 500: malformed percent-escapes, implausible receive times,
 * over-long identifiers in hook payloads, oversized or control-character
 * headers and query parameters, bad Last-Event-IDs, unknown surfaces and
 * cassettes. A seeded fuzz loop throws a few hundred random mutations of
 * valid requests at the pure handler and checks that none is a 500 and the
 * server keeps answering /api/health. A real fault still answers 500, and
 * is logged.
 */
import assert from "node:assert/strict";
import type { Logger } from "../../src/core/log.ts";
import { DATABASE } from "../../src/ops/runtime.ts";
import { get, type HandlerFixture, handlerFixture, postJson } from "../helpers/http_handler.ts";

const HOOK = {
  session_id: "limits-session-0001",
  hook_event_name: "PreToolUse",
  cwd: "/work/app",
  tool_name: "Read",
  tool_input: { file_path: "/work/app/README.md" },
};

function hookRequest(payload: unknown, headers: Record<string, string> = {}): Request {
  return postJson("/api/hooks", payload, { "x-vantage-agent": "claude_code", ...headers });
}

async function errorOf(response: Response): Promise<{ kind: string; message: string }> {
  const body = await response.json();
  assert.ok(body.error !== undefined, JSON.stringify(body));
  return body.error;
}

async function expectRefusal(
  response: Response,
  status: number,
  message: RegExp,
): Promise<void> {
  const error = await errorOf(response);
  assert.equal(response.status, status, error.message);
  assert.match(error.message, message);
}

function storedEvents(fixture: HandlerFixture, sessionPrefix: string): number {
  const row = fixture.services.get(DATABASE).prepare(
    "SELECT count(*) AS n FROM events WHERE substr(session_id, 1, ?) = ?",
  ).get(sessionPrefix.length, sessionPrefix) as { n: number };
  return row.n;
}

Deno.test("HTTP input limits: bad input is a 4xx naming what was wrong", async (t) => {
  const fixture = await handlerFixture();
  const { handler } = fixture;
  try {
    await t.step(
      "a malformed percent-escape in an operation id is a 400 naming the path",
      async () => {
        await expectRefusal(
          await handler(postJson("/api/ops/%E0%A4%A", {})),
          400,
          /^the path '\/api\/ops\/%E0%A4%A' holds a malformed percent-escape/,
        );
        await expectRefusal(
          await handler(postJson(`/api/ops/${"x".repeat(129)}`, {})),
          400,
          /ids are at most 128 characters/,
        );
        await expectRefusal(await handler(postJson("/api/ops/a%00b", {})), 400, /control/);
        // A well-formed escape still reaches the executor.
        const escaped = await handler(postJson("/api/ops/agent%2Elist_sessions", {}));
        assert.equal(escaped.status, 200);
        await escaped.body?.cancel();
      },
    );

    await t.step("X-Vantage-Received-At takes plausible epoch ms only", async () => {
      for (const value of ["1e300", "-1", "abc", "1767323045", "99999999999999999", "1.5e12"]) {
        await expectRefusal(
          await handler(hookRequest(HOOK, { "x-vantage-received-at": value })),
          400,
          /^X-Vantage-Received-At '.*' is not a plausible time; it takes integer epoch milliseconds from 946684800000 \(2000-01-01\) to one day from now$/,
        );
      }
      assert.equal(storedEvents(fixture, "limits-session-0001"), 0);
      const good = await handler(
        hookRequest(HOOK, { "x-vantage-received-at": String(Date.now() - 60_000) }),
      );
      assert.equal(good.status, 200);
      assert.equal((await good.json()).stored, true);
      assert.equal(storedEvents(fixture, "limits-session-0001"), 1);
    });

    await t.step("an over-long identifier, name or path in a hook is a 422 naming it", async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [
          { ...HOOK, session_id: "limits-long-" + "s".repeat(1024 * 1024) },
          /^session_id is 1048588 characters long; the limit is 256/,
        ],
        [
          { ...HOOK, agent_id: "a".repeat(129) },
          /^agent_id is 129 characters long; the limit is 128/,
        ],
        [
          { ...HOOK, hook_event_name: "E".repeat(200) },
          /^event_type is 200 characters long; the limit is 128/,
        ],
        [
          { ...HOOK, cwd: "/" + "d".repeat(5000) },
          /^cwd is 5001 characters long; the limit is 4096/,
        ],
        [
          { ...HOOK, tool_input: { file_path: "/" + "f".repeat(4096) } },
          /^file_path is 4097 characters long; the limit is 4096/,
        ],
        [
          { ...HOOK, transcript_path: "/" + "t".repeat(4096) },
          /^transcript_path is 4097 characters long/,
        ],
      ];
      for (const [payload, message] of cases) {
        const session = String(payload.session_id).startsWith("limits-long-")
          ? payload
          : { ...payload, session_id: "limits-long-0001" };
        await expectRefusal(await handler(hookRequest(session)), 422, message);
      }
      assert.equal(storedEvents(fixture, "limits-long-"), 0);
      // At the limit, a session id is stored whole.
      const exact = "limits-exact-" + "e".repeat(256 - 13);
      const stored = await handler(hookRequest({ ...HOOK, session_id: exact }));
      assert.equal(stored.status, 200);
      await stored.body?.cancel();
      const row = fixture.services.get(DATABASE).prepare(
        "SELECT session_id FROM sessions WHERE session_id = ?",
      ).get(exact);
      assert.equal(row?.session_id, exact);
    });

    await t.step("oversized or malformed header values are a 400 naming the header", async () => {
      const hookCases: [Record<string, string>, RegExp][] = [
        [{ "x-vantage-agent": "a".repeat(5000) }, /^X-Vantage-Agent is 5000 characters long/],
        [
          { "x-vantage-agent": "vim" },
          /^X-Vantage-Agent: unknown agent 'vim'; agents: claude_code/,
        ],
        [{ "x-vantage-delivery": "d".repeat(257) }, /^X-Vantage-Delivery is 257 characters long/],
        [{ "x-vantage-event": "e".repeat(129) }, /^X-Vantage-Event is 129 characters long/],
      ];
      for (const [headers, message] of hookCases) {
        await expectRefusal(await handler(hookRequest(HOOK, headers)), 400, message);
      }
      await expectRefusal(
        await handler(postJson("/api/hooks?agent=codex&event=" + "e".repeat(300), HOOK)),
        400,
        /^\?event is 300 characters long; it takes a hook event name of at most 128 characters$/,
      );
      const apiCases: [Record<string, string>, RegExp][] = [
        [
          { "x-vantage-cwd": "/" + "c".repeat(5000) },
          /^X-Vantage-Cwd is 5001 characters long; it takes a folder path of at most 4096 characters$/,
        ],
        [{ "x-vantage-cwd": "/work\tapp" }, /^X-Vantage-Cwd .* holds a control character/],
        [{ "x-vantage-agent": "c".repeat(129) }, /^X-Vantage-Agent is 129 characters long/],
        [{ "x-vantage-scopes": "agent:read,".repeat(200) }, /^X-Vantage-Scopes is 2200 characters/],
      ];
      for (const [headers, message] of apiCases) {
        await expectRefusal(await handler(get("/api/ops", headers)), 400, message);
      }
      await expectRefusal(
        await handler(get(`/api/ops?cwd=${"%2Fc".repeat(3000)}`)),
        400,
        /^\?cwd is 6000 characters long/,
      );
      await expectRefusal(await handler(get("/api/ops?cwd=%2Fa%00b")), 400, /^\?cwd .* control/);
      // A refusal repeats at most an excerpt of a huge value, not the value.
      const long = "z".repeat(20_000);
      const echoes: [Request, number, RegExp][] = [
        [
          hookRequest(HOOK, { "content-type": `application/${long}` }),
          415,
          /got 'application\/z{52}…' \(20012 characters\)$/,
        ],
        [
          get("/api/ops", { origin: `http://${long}` }),
          403,
          /^origin 'http:\/\/z{57}…' \(20007 characters\) is not allowed$/,
        ],
        [
          get("/api/ops", { host: long }),
          403,
          /^host 'z{64}…' \(20000 characters\) is not allowed$/,
        ],
        [
          hookRequest(HOOK, { "x-vantage-agent": `a${long}`.slice(0, 128) }),
          400,
          /unknown agent 'a{1}z{63}…' \(128 characters\)/,
        ],
      ];
      for (const [request, status, message] of echoes) {
        const response = await handler(request);
        const error = await errorOf(response);
        assert.equal(response.status, status, error.message);
        assert.match(error.message, message);
        assert.ok(error.message.length < 300, String(error.message.length));
      }
    });

    await t.step("a bad Last-Event-ID is a 400, a good one resumes", async () => {
      for (const id of ["abc", "-1", "1.5", "1e3", "9".repeat(40)]) {
        await expectRefusal(
          await handler(get("/api/events", { "last-event-id": id })),
          400,
          /^Last-Event-ID '.*' is not an event id; ids are non-negative integers$/,
        );
      }
      await expectRefusal(
        await handler(get("/api/events?last_event_id=x")),
        400,
        /^\?last_event_id 'x' is not an event id/,
      );
      fixture.events.publish("build", { tag: "before" });
      const controller = new AbortController();
      const resumed = await handler(
        new Request("http://127.0.0.1:14300/api/events", {
          headers: { "last-event-id": "0" },
          signal: controller.signal,
        }),
      );
      assert.equal(resumed.status, 200);
      const reader = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("event: build")) text += (await reader.read()).value ?? "";
      assert.match(text, /"tag":"before"/);
      controller.abort();
      await reader.cancel().catch(() => {});
    });

    await t.step(
      "unknown ?surface, ?cassette and ?types, and an over-long ?q, are 400s",
      async () => {
        await expectRefusal(
          await handler(postJson("/mcp?surface=wide", { jsonrpc: "2.0", id: 1, method: "ping" })),
          400,
          /^\?surface='wide' is not a surface; choose one of: dex, composite, full$/,
        );
        await expectRefusal(
          await handler(postJson(`/mcp?surface=${"w".repeat(10_000)}`, {})),
          400,
          /^\?surface='w{64}…' \(10000 characters\) is not a surface/,
        );
        await expectRefusal(
          await handler(get("/api/ops?cassette=nope")),
          400,
          /^\?cassette='nope' is not a cassette of this catalog; cassettes: dex, agent, docs, doc_session, team, sync$/,
        );
        await expectRefusal(
          await handler(get(`/api/ops?q=${"q".repeat(1025)}`)),
          400,
          /^\?q is 1025 characters long; it takes search text of at most 1024 characters$/,
        );
        await expectRefusal(
          await handler(get(`/api/events?types=${"x,".repeat(50)}`)),
          400,
          /^\?types names unknown event types 'x', 'x', 'x', 'x', 'x' and 45 more; types: hook/,
        );
        const listed = await handler(get("/api/ops?cassette=docs&q=add"));
        assert.equal(listed.status, 200);
        const ids = (await listed.json()).operations.map((o: { operation_id: string }) =>
          o.operation_id
        );
        assert.ok(ids.length > 0 && ids.every((id: string) => id.startsWith("docs.")));
      },
    );

    await t.step("stored names are bounded by the operations' schemas", async () => {
      await expectRefusal(
        await handler(
          postJson("/api/ops/docs.add", {
            content: "x",
            name: "n.md",
            collection: "c".repeat(129),
          }),
        ),
        400,
        /collection/,
      );
      await expectRefusal(
        await handler(
          postJson("/api/ops/docs.add", {
            content: "x",
            name: "n.md",
            tags: `a,${"b".repeat(129)}`,
          }),
        ),
        400,
        /each tag is at most 128 characters/,
      );
      await expectRefusal(
        await handler(postJson("/api/ops/doc_session.start", { name: "s".repeat(129) })),
        400,
        /name/,
      );
      // Each of these was a 500 before: a NUL in a path or name, a huge glob or LIKE pattern.
      const plain = "must be plain text: no control characters or unpaired surrogates";
      const tooBig = "Too big: expected string to have <=4096 characters";
      const refused: [string, Record<string, unknown>, string][] = [
        ["doc_session.start", { name: "a\u0000b" }, `name: ${plain}`],
        ["doc_session.start", { name: "lonely \ud800" }, `name: ${plain}`],
        ["docs.add", { path: "a\u0000b" }, `path: ${plain}`],
        ["doc_session.watch", { path: "a\u0000b", once: true }, `path: ${plain}`],
        ["docs.list", { pattern: "x".repeat(70_000) }, `pattern: ${tooBig}`],
        ["agent.list_sessions", { project: "x".repeat(70_000) }, `project: ${tooBig}`],
      ];
      for (const [id, args, message] of refused) {
        const response = await handler(postJson(`/api/ops/${id}`, args));
        const error = await errorOf(response);
        assert.equal(response.status, 400, `${id}: ${error.message}`);
        assert.equal(error.kind, "invalid_arguments");
        assert.equal(error.message, `invalid arguments for '${id}': ${message}`);
      }
    });

    await t.step("a real fault is still a 500, and it is logged", async () => {
      const lines: string[] = [];
      const log: Logger = {
        debug: () => {},
        info: () => {},
        warn: () => {},
        error: (message, fields) => lines.push(`${message} ${JSON.stringify(fields)}`),
      };
      const broken = fixture.with({
        hooks: {
          take: () => {
            throw new Error("the disk is on fire");
          },
        },
        log,
      });
      const response = await broken(hookRequest(HOOK));
      const error = await errorOf(response);
      assert.equal(response.status, 500);
      assert.equal(error.kind, "internal_error");
      assert.equal(lines.length, 1);
      assert.match(
        lines[0],
        /^request failed .*"method":"POST".*"path":"'\/api\/hooks'".*the disk is on fire/,
      );
    });
  } finally {
    await fixture.close();
  }
});

/** A small seeded generator (mulberry32), so a failing mutation can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Spec {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer> | string;
}

const HEADER_NAMES = [
  "x-vantage-scopes",
  "x-vantage-cwd",
  "x-vantage-agent",
  "x-vantage-delivery",
  "x-vantage-event",
  "x-vantage-received-at",
  "last-event-id",
  "content-type",
  "content-length",
  "accept",
  "origin",
  "host",
  "authorization",
  "if-none-match",
  "mcp-protocol-version",
];
const QUERY_NAMES = [
  "types",
  "q",
  "cassette",
  "surface",
  "cwd",
  "agent",
  "event",
  "last_event_id",
  "token",
];
const EDGE_VALUES = [
  "",
  " ",
  "1e300",
  "-1",
  "NaN",
  "Infinity",
  "0",
  "9".repeat(30),
  "1767323045000",
  "claude_code",
  "application/json",
  "text/plain",
  "*",
  "agent:*",
  "null",
  "%",
  "%E0%A4%A",
  "../../etc/passwd",
];
const NASTY_JSON: unknown[] = [
  null,
  -1,
  0,
  1e308,
  -1e308,
  2 ** 53 + 1,
  1.5,
  true,
  "",
  "x".repeat(70_000),
  "\u0000\u001f\u2028\ud800",
  [],
  [[[[[]]]]],
  {},
  { a: { b: { c: "d" } } },
  "SELECT * FROM events",
  "1e300",
  "../../../../etc/passwd",
];

function baseSpecs(): Spec[] {
  const json = { "content-type": "application/json", host: "127.0.0.1:14300" };
  return [
    { method: "GET", path: "/api/health", headers: { host: "127.0.0.1:14300" } },
    {
      method: "GET",
      path: "/api/ops?q=sessions&cassette=agent",
      headers: { host: "127.0.0.1:14300", "x-vantage-scopes": "agent:read" },
    },
    {
      method: "POST",
      path: "/api/ops/agent.list_sessions",
      headers: { ...json, "x-vantage-cwd": "/work/app", "x-vantage-agent": "claude_code" },
      body: JSON.stringify({ since_min: 525_600, limit: 5 }),
    },
    {
      method: "POST",
      path: "/api/ops/agent.search_sessions",
      headers: json,
      body: JSON.stringify({ query: "test", limit: 3 }),
    },
    {
      method: "POST",
      path: "/api/ops/docs.search",
      headers: json,
      body: JSON.stringify({ query: "readme", limit: 3 }),
    },
    {
      method: "POST",
      path: "/api/ops/agent.list_sessions",
      headers: json,
      body: JSON.stringify({ project: "/work", since_min: 525_600 }),
    },
    {
      method: "POST",
      path: "/api/ops/docs.list",
      headers: json,
      body: JSON.stringify({ pattern: "**/*.md", limit: 5 }),
    },
    {
      method: "POST",
      path: "/api/ops/docs.add",
      headers: json,
      body: JSON.stringify({
        content: "fuzz",
        name: "fuzz/note.md",
        collection: "fuzz",
        tags: "a",
      }),
    },
    {
      method: "POST",
      path: "/api/ops/doc_session.start",
      headers: json,
      body: JSON.stringify({ name: "fuzz-session", label: "fuzz" }),
    },
    {
      method: "POST",
      path: "/api/query",
      headers: json,
      body: JSON.stringify({ sql: "SELECT count(*) AS n FROM events", row_limit: 5 }),
    },
    {
      method: "POST",
      path: "/api/hooks",
      headers: {
        ...json,
        "x-vantage-agent": "claude_code",
        "x-vantage-delivery": "fuzz-delivery",
        "x-vantage-received-at": String(Date.now()),
        "x-vantage-event": "PreToolUse",
      },
      body: JSON.stringify({ ...HOOK, session_id: "fuzz-session" }),
    },
    {
      method: "GET",
      path: "/api/events?types=hook,session",
      headers: { host: "127.0.0.1:14300", "last-event-id": "0" },
    },
    {
      method: "POST",
      path: "/mcp?surface=composite",
      headers: { ...json, accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    },
    { method: "GET", path: "/", headers: { host: "127.0.0.1:14300" } },
  ];
}

function mutate(spec: Spec, random: () => number): { spec: Spec; did: string[] } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const size = (): number => pick([0, 1, 2, 8, 40, 300, 5000, 70_000]);
  // Header values are bytes: tab, printable ASCII and 0x80–0xFF (no NUL, CR or LF).
  const headerText = (): string => {
    if (random() < 0.3) return pick(EDGE_VALUES);
    let text = "";
    for (let n = size(); n > 0; n--) {
      const code = Math.floor(random() * 256);
      text += code === 9 || (code >= 0x20 && code !== 0x7f) ? String.fromCharCode(code) : "%";
    }
    return text;
  };
  const anyText = (): string => {
    if (random() < 0.3) return pick(EDGE_VALUES);
    let text = "";
    for (let n = size(); n > 0; n--) text += String.fromCharCode(Math.floor(random() * 0x3000));
    return text;
  };
  const out: Spec = { ...spec, headers: { ...spec.headers } };
  const did: string[] = [];
  const rounds = 1 + Math.floor(random() * 3);
  for (let round = 0; round < rounds; round++) {
    const kind = Math.floor(random() * 7);
    if (kind === 0) {
      const name = pick(HEADER_NAMES);
      out.headers[name] = headerText();
      did.push(`header ${name}`);
    } else if (kind === 1) {
      const at = Math.floor(random() * (out.path.length + 1));
      const insert = pick([
        "%",
        "%E0%A4%A",
        "%ZZ",
        "%00",
        "%2F..%2F",
        "//",
        encodeURIComponent(anyText()).slice(0, 500),
        "x".repeat(size()),
      ]);
      out.path = out.path.slice(0, at) + insert + out.path.slice(at);
      did.push("path");
    } else if (kind === 2) {
      const name = pick(QUERY_NAMES);
      const separator = out.path.includes("?") ? "&" : "?";
      out.path += `${separator}${name}=${encodeURIComponent(anyText())}`;
      did.push(`query ${name}`);
    } else if (kind === 3) {
      const bytes = new Uint8Array(size());
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
      const base = typeof out.body === "string" ? new TextEncoder().encode(out.body) : out.body;
      if (base === undefined || random() < 0.3) {
        out.body = bytes;
      } else {
        const at = Math.floor(random() * (base.length + 1));
        const merged = new Uint8Array(at + bytes.length + Math.max(0, base.length - at - 3));
        merged.set(base.subarray(0, at));
        merged.set(bytes, at);
        merged.set(base.subarray(Math.min(base.length, at + 3)), at + bytes.length);
        out.body = merged;
      }
      did.push("body bytes");
    } else if (kind === 4 && typeof out.body === "string") {
      const value = JSON.parse(out.body);
      const keys = Object.keys(value);
      const key = random() < 0.2 ? anyText().slice(0, 50) : pick(keys);
      value[key] = pick(NASTY_JSON);
      out.body = JSON.stringify(value);
      did.push(`json ${key.slice(0, 20)}`);
    } else if (kind === 5) {
      out.method = pick(["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]);
      did.push(`method ${out.method}`);
    } else {
      out.headers["content-type"] = pick([
        "application/json",
        "application/vnd.api+json",
        "text/plain",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin1",
        headerText(),
      ]);
      did.push("content-type");
    }
  }
  return { spec: out, did };
}

function toRequest(spec: Spec): Request {
  const noBody = spec.method === "GET" || spec.method === "HEAD";
  return new Request(`http://127.0.0.1:14300${spec.path}`, {
    method: spec.method,
    headers: spec.headers,
    body: noBody ? undefined : spec.body,
  });
}

Deno.test("fuzz: random mutations of valid requests never answer 500", async () => {
  const fixture = await handlerFixture();
  const lines: string[] = [];
  const handler = fixture.with({
    log: {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (message, fields) => lines.push(`${message} ${JSON.stringify(fields)}`),
    },
  });
  const seed = Number(Deno.env.get("VANTAGE_FUZZ_SEED") ?? "20261201");
  const random = seeded(seed);
  const bases = baseSpecs();
  const statuses = new Map<number, number>();
  const health = async (): Promise<void> => {
    const response = await handler(get("/api/health"));
    assert.equal(response.status, 200);
    assert.equal((await response.json()).status, "ok");
  };
  try {
    for (let i = 0; i < 500; i++) {
      const base = bases[Math.floor(random() * bases.length)];
      const { spec, did } = mutate(base, random);
      let request: Request;
      try {
        request = toRequest(spec);
      } catch {
        continue; // A combination no client could send (e.g. a body on a bodiless method).
      }
      const response = await handler(request);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const text = response.headers.get("content-type")?.startsWith("text/event-stream")
        ? (await response.body?.cancel(), "")
        : await response.text();
      assert.ok(
        response.status < 500,
        `seed ${seed}, mutation ${i} (${
          did.join(", ")
        }) of ${base.method} ${base.path}: ${response.status} ${text.slice(0, 300)}`,
      );
      if (i % 50 === 49) await health();
    }
    await health();
    assert.deepEqual(lines, [], "nothing was logged as an internal fault");
    // The loop exercised both acceptance and refusal, not only one of them.
    const ok = [...statuses].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
    const refused = [...statuses].filter(([s]) => s >= 400).reduce((n, [, c]) => n + c, 0);
    assert.ok(ok >= 20 && refused >= 100, JSON.stringify([...statuses]));
    if (Deno.env.get("VANTAGE_FUZZ_REPORT") === "1") console.error(JSON.stringify([...statuses]));
  } finally {
    await fixture.close();
  }
});
