/**
 * Which browser pages may change state, on the pure handler: every route
 * that acts refuses `Origin: null`, a foreign site and another port or name
 * of this machine, and accepts the server's own origin and clients that send
 * no Origin (curl, the hook). A refused request leaves nothing behind. Reads
 * stay open to pages that can ask but, without CORS headers, never read.
 */
import assert from "node:assert/strict";
import { DATABASE } from "../../src/ops/runtime.ts";
import { get, type HandlerFixture, handlerFixture, postJson } from "../helpers/http_handler.ts";

/** The origin of the dashboard the fixture's handler serves. */
const OWN = "http://127.0.0.1:14300";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

const NOT_OURS =
  /origin '.*' may not change state here: only pages served by this server \('http:\/\/127\.0\.0\.1:14300'\) may, or clients that send no Origin \(curl, the hook\); another port is another web application/;

/** Origins a state-changing request is refused from, and what the refusal says. */
const REFUSED: [string, RegExp][] = [
  [
    "null",
    /^Origin: null \(a sandboxed frame, a file:\/\/ page or a cross-site redirect\) may not change state/,
  ],
  ["https://evil.example.com", /^origin 'https:\/\/evil\.example\.com' is not allowed$/],
  // Another local web application: same machine, other port.
  ["http://127.0.0.1:3000", NOT_OURS],
  ["http://localhost:8080", NOT_OURS],
  // Same port, another name or scheme: still another origin to the browser.
  ["http://localhost:14300", NOT_OURS],
  ["https://127.0.0.1:14300", NOT_OURS],
  ["http://127.0.0.1", NOT_OURS],
];

/** One state-changing request per acting route; `mark` makes what it would store unique. */
interface ActingRoute {
  name: string;
  request(headers: Record<string, string>, mark: string): Request;
  /** Whether what a request with `mark` would store is there. */
  stored?(fixture: HandlerFixture, mark: string): boolean;
}

const ROUTES: ActingRoute[] = [
  {
    name: "POST /api/ops/docs.add",
    request: (headers, mark) =>
      postJson("/api/ops/docs.add", { content: `kept ${mark}`, name: `${mark}.md` }, headers),
    stored: (fixture, mark) =>
      count(fixture, "SELECT count(*) AS n FROM docs_documents WHERE path LIKE ?", `%${mark}.md`) >
        0,
  },
  {
    name: "POST /api/ops/agent.overview (a read, asked with POST)",
    request: (headers) => postJson("/api/ops/agent.overview", {}, headers),
  },
  {
    name: "POST /api/query",
    request: (headers) => postJson("/api/query", { sql: "SELECT 1" }, headers),
  },
  {
    name: "POST /mcp",
    request: (headers) =>
      postJson("/mcp", INITIALIZE, { accept: "application/json, text/event-stream", ...headers }),
  },
  {
    name: "POST /api/hooks",
    request: (headers, mark) =>
      postJson("/api/hooks", {
        session_id: `origin-${mark}`,
        hook_event_name: "PreToolUse",
        cwd: "/work/app",
        tool_name: "Read",
        tool_input: { file_path: "/work/app/README.md" },
      }, { "x-vantage-agent": "claude_code", ...headers }),
    stored: (fixture, mark) =>
      count(fixture, "SELECT count(*) AS n FROM events WHERE session_id = ?", `origin-${mark}`) > 0,
  },
];

function count(fixture: HandlerFixture, sql: string, value: string): number {
  return (fixture.services.get(DATABASE).prepare(sql).get(value) as { n: number }).n;
}

async function errorOf(response: Response): Promise<{ kind: string; message: string }> {
  const body = await response.json();
  assert.ok(body.error !== undefined, JSON.stringify(body));
  return body.error;
}

Deno.test("HTTP origins: only the server's own pages and Origin-less clients change state", async (t) => {
  const fixture = await handlerFixture();
  const { handler } = fixture;
  let serial = 0;
  const nextMark = () => `mark${++serial}`;
  try {
    await t.step("the docs table the checks read exists and sees a stored document", async () => {
      // Guards the `stored` checks below against passing because they look in the wrong place.
      const mark = nextMark();
      const response = await handler(ROUTES[0].request({}, mark));
      assert.equal(response.status, 200, await response.clone().text());
      assert.ok(ROUTES[0].stored!(fixture, mark));
    });

    for (const route of ROUTES) {
      await t.step(
        `${route.name}: refused from null, foreign and other local origins`,
        async () => {
          for (const [origin, message] of REFUSED) {
            const mark = nextMark();
            const response = await handler(route.request({ origin }, mark));
            const error = await errorOf(response);
            assert.equal(response.status, 403, `${origin}: ${error.message}`);
            assert.equal(error.kind, "forbidden");
            assert.match(error.message, message, origin);
            if (route.stored !== undefined) assert.ok(!route.stored(fixture, mark), origin);
          }
        },
      );

      await t.step(
        `${route.name}: accepted from the server's own origin and without one`,
        async () => {
          for (const headers of [{ origin: OWN }, {}] as Record<string, string>[]) {
            const mark = nextMark();
            const response = await handler(route.request(headers, mark));
            assert.equal(
              response.status,
              200,
              `${JSON.stringify(headers)}: ${await response.text()}`,
            );
            if (route.stored !== undefined) {
              assert.ok(route.stored(fixture, mark), JSON.stringify(headers));
            }
          }
        },
      );
    }

    await t.step("the page's origin is compared with the Host it addressed", async () => {
      const cases: [string, string][] = [
        ["localhost:14300", "http://localhost:14300"],
        ["[::1]:14300", "http://[::1]:14300"],
        ["127.0.0.1:80", "http://127.0.0.1"],
      ];
      for (const [host, origin] of cases) {
        const response = await handler(
          postJson("/api/query", { sql: "SELECT 1" }, { host, origin }),
        );
        assert.equal(response.status, 200, `${host} ${origin}`);
      }
      const crossed = await handler(
        postJson("/api/query", { sql: "SELECT 1" }, { host: "localhost:14300", origin: OWN }),
      );
      assert.equal(crossed.status, 403);
      assert.match((await errorOf(crossed)).message, /\('http:\/\/localhost:14300'\)/);
    });

    await t.step(
      "a simple text/plain POST from another local port is refused as such",
      async () => {
        // What a page on 127.0.0.1:3000 can send without a CORS preflight.
        const mark = nextMark();
        const request = new Request(`${OWN}/api/ops/docs.add`, {
          method: "POST",
          headers: {
            host: "127.0.0.1:14300",
            origin: "http://127.0.0.1:3000",
            "content-type": "text/plain;charset=UTF-8",
          },
          body: JSON.stringify({ content: "planted", name: `${mark}.md` }),
        });
        const response = await handler(request);
        assert.equal(response.status, 403);
        assert.match((await errorOf(response)).message, NOT_OURS);
        assert.ok(!ROUTES[0].stored!(fixture, mark));
      },
    );

    await t.step("any method but GET, HEAD and OPTIONS counts as changing state", async () => {
      for (const method of ["PUT", "DELETE", "PATCH"]) {
        for (const path of ["/api/health", "/"]) {
          const refused = await handler(
            new Request(`${OWN}${path}`, {
              method,
              headers: { host: "127.0.0.1:14300", origin: "null" },
            }),
          );
          assert.equal(refused.status, 403, `${method} ${path}`);
          assert.match((await errorOf(refused)).message, /^Origin: null/);
        }
      }
      // Without an Origin the same request reaches its route, which says what it accepts.
      const put = await handler(
        new Request(`${OWN}/api/hooks`, { method: "PUT", headers: { host: "127.0.0.1:14300" } }),
      );
      assert.equal(put.status, 405);
    });

    await t.step("reads answer null and other local origins, never a foreign site", async () => {
      for (const path of ["/", "/api/health", "/api/ops"]) {
        for (const origin of ["null", "http://127.0.0.1:3000"]) {
          const response = await handler(get(path, { origin }));
          assert.equal(response.status, 200, `${path} ${origin}`);
          // Such a page may ask, but with no CORS header its browser never lets it read.
          assert.equal(response.headers.get("access-control-allow-origin"), null);
          await response.body?.cancel();
        }
        const foreign = await handler(get(path, { origin: "https://evil.example.com" }));
        assert.equal(foreign.status, 403, path);
        await foreign.body?.cancel();
      }
    });
  } finally {
    await fixture.close();
  }
});
