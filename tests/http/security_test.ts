/**
 * The HTTP security rules, on the pure handler: foreign Host and Origin are
 * refused on every route; a server bound beyond loopback wants the bearer
 * token on /api/* and /mcp (tested with a guard configured for such a bind,
 * without binding anything); a statement that writes gets nowhere through
 * /api/query and the data stays as it was.
 */
import assert from "node:assert/strict";
import { get, handlerFixture, postJson } from "../helpers/http_handler.ts";

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
const MCP_HEADERS = { accept: "application/json, text/event-stream" };

Deno.test("HTTP security: Host, Origin, token, read-only SQL", async (t) => {
  const fixture = await handlerFixture();
  const { handler } = fixture;
  try {
    await t.step("a foreign Host is refused on the API, /mcp and the dashboard", async () => {
      for (const path of ["/api/health", "/api/ops", "/", "/assets/js/app.js"]) {
        const response = await handler(get(path, { host: "evil.example.com" }));
        assert.equal(response.status, 403, path);
        assert.equal((await response.json()).error.kind, "forbidden");
      }
      const mcp = await handler(
        postJson("/mcp", INITIALIZE, { ...MCP_HEADERS, host: "evil.example.com:14300" }),
      );
      assert.equal(mcp.status, 403);
      for (const host of ["localhost:14300", "127.0.0.1", "[::1]:14300"]) {
        assert.equal((await handler(get("/api/health", { host }))).status, 200, host);
      }
    });

    await t.step("a foreign Origin is refused, the server's own is accepted", async () => {
      const foreign = await handler(
        postJson("/api/ops/agent.overview", {}, { origin: "https://evil.example.com" }),
      );
      assert.equal(foreign.status, 403);
      const own = await handler(
        postJson("/api/ops/agent.overview", {}, { origin: "http://127.0.0.1:14300" }),
      );
      assert.equal(own.status, 200);
    });

    await t.step("beyond loopback, /api/* and /mcp need the bearer token", async () => {
      const exposed = fixture.with({
        guard: { bindHost: "192.0.2.10", port: 14300, token: "s3cret" },
      });
      const host = { host: "192.0.2.10:14300" };
      const missing = await exposed(get("/api/ops", host));
      assert.equal(missing.status, 401);
      assert.match(missing.headers.get("www-authenticate") ?? "", /Bearer/);
      const mcp = await exposed(postJson("/mcp", INITIALIZE, { ...MCP_HEADERS, ...host }));
      assert.equal(mcp.status, 401);
      const query = await exposed(postJson("/api/query", { sql: "SELECT 1" }, host));
      assert.equal(query.status, 401);
      const wrong = await exposed(get("/api/ops", { ...host, authorization: "Bearer nope" }));
      assert.equal(wrong.status, 401);
      const right = await exposed(get("/api/ops", { ...host, authorization: "Bearer s3cret" }));
      assert.equal(right.status, 200);
      // The page itself holds no data; everything it shows comes through the token-guarded API.
      assert.equal((await exposed(get("/", host))).status, 200);
      // On loopback the token is accepted but not required.
      assert.equal((await handler(get("/api/ops"))).status, 200);
      assert.equal(
        (await handler(get("/api/ops", { authorization: "Bearer secret-token" }))).status,
        200,
      );
    });

    await t.step("a writing statement through /api/query changes nothing", async () => {
      const count = async () => {
        const response = await handler(
          postJson("/api/query", { sql: "SELECT count(*) FROM sessions" }),
        );
        return (await response.json()).rows[0][0] as number;
      };
      const before = await count();
      assert.ok(before > 0);
      const statements = [
        "DELETE FROM sessions",
        "UPDATE sessions SET cost_usd = 0",
        "WITH doomed AS (SELECT session_id FROM sessions) DELETE FROM sessions WHERE session_id IN (SELECT session_id FROM doomed)",
        "WITH doomed AS (SELECT 1) DELETE FROM sessions RETURNING session_id",
        "SELECT 1; DELETE FROM sessions",
      ];
      for (const sql of statements) {
        const response = await handler(postJson("/api/query", { sql }));
        const body = await response.json();
        // Refused outright, or (DELETE … RETURNING) run and refused by the read-only connection.
        if (response.status === 200) assert.equal(body.row_count, 0, sql);
        else assert.equal(body.error.kind, "invalid_arguments", sql);
      }
      const direct = await handler(postJson("/api/query", { sql: "DELETE FROM sessions" }));
      assert.equal(direct.status, 400);
      assert.equal(await count(), before);
    });
  } finally {
    await fixture.close();
  }
});
