/**
 * Read-only SQL on a team server, end to end: the real `vantage serve` on a PostgreSQL store
 * (shipped permissions, real port), people's tokens from the real `vantage team add-user`,
 * and `/api/query`, `/api/ops/agent.exec_query` and `/mcp` over HTTP. A member reads the
 * sessions but not the people (that needs `admin`, which an admin holds); a token narrowed
 * to `sql:read` reads neither; a query past the limit answers 504 and the next one 200; a
 * query that tries to become the connecting user is refused. A server whose PostgreSQL user
 * may not create roles says so in one line at start, and answers queries 503 with the reason.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { startServe } from "../helpers/serve_process.ts";

const LIMIT_MS = 2000;
const ignore = skipWithoutPostgres("read-only SQL on a team server");

interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  ms: number;
}

async function post(
  url: string,
  token: string,
  body: unknown,
  scopes?: string,
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      ...(scopes === undefined ? {} : { "x-vantage-scopes": scopes }),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), ms: performance.now() - started };
}

async function addUser(env: Record<string, string>, name: string, admin = false) {
  const run = await runVantage(["team", "add-user", name, ...(admin ? ["--admin"] : [])], { env });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout.trim();
}

Deno.test({
  name: "serve on PostgreSQL: /api/query and /mcp run SQL as the token's read-only role",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const home = await makeAgentHome({ fixtures: false });
    const store = `${await sharedPostgresCluster()
      .createDatabase()}?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`;
    home.env.VANTAGE_STORE = store;
    home.env.VANTAGE_QUERY_TIMEOUT_MS = String(LIMIT_MS);
    const ada = await addUser(home.env, "ada");
    const cy = await addUser(home.env, "cy", true);
    const db = postgres(store, { max: 1, onnotice: () => {} });
    await db.unsafe(
      "INSERT INTO sessions (session_id, agent, started_at, last_activity_at, title, person) VALUES ('s1', 'codex', 0, 0, 'wombat', 'ada')",
    );
    await db.end();
    const server = await startServe(home, ["--no-tail"]);
    const query = (token: string, sql: string, scopes?: string) =>
      post(`${server.url}/api/query`, token, { sql }, scopes);
    try {
      await t.step("a member reads the sessions; the people need admin", async () => {
        const sessions = await query(ada, "SELECT session_id, title, person FROM sessions");
        assert.equal(sessions.status, 200, JSON.stringify(sessions.body));
        assert.deepEqual(sessions.body.columns, ["session_id", "title", "person"]);
        assert.deepEqual(sessions.body.rows, [["s1", "wombat", "ada"]]);
        const people = await query(ada, "SELECT name, token_hash FROM team_people");
        assert.equal(people.status, 403, JSON.stringify(people.body));
        assert.equal(people.body.error.kind, "forbidden");
        assert.match(
          people.body.error.message,
          /it reads team_people.*needs scope admin besides sql:read, which the caller lacks; ask for admin/,
        );
        const admin = await query(cy, "SELECT name, role FROM team_people ORDER BY name");
        assert.equal(admin.status, 200, JSON.stringify(admin.body));
        assert.deepEqual(admin.body.rows, [["ada", "member"], ["cy", "admin"]]);
      });

      await t.step("a token narrowed to sql:read reads the schema, not the sessions", async () => {
        const narrow = await query(ada, "SELECT title FROM sessions", "sql:read");
        assert.equal(narrow.status, 403, JSON.stringify(narrow.body));
        assert.match(narrow.body.error.message, /needs scope agent:read besides sql:read/);
        const schema = await query(
          ada,
          "SELECT column_name FROM information_schema.columns WHERE table_name = 'store_meta' ORDER BY ordinal_position",
          "sql:read",
        );
        assert.equal(schema.status, 200, JSON.stringify(schema.body));
        assert.deepEqual(schema.body.rows, [["key"], ["value"]]);
        const op = await post(
          `${server.url}/api/ops/agent.exec_query`,
          ada,
          { sql: "SELECT count(*) FROM sessions" },
          "sql:read,agent:read",
        );
        assert.equal(op.status, 200, JSON.stringify(op.body));
        assert.deepEqual(op.body.result.rows, [[1]]);
      });

      await t.step("past the limit: 504, and the next query answers", async () => {
        const slow = await query(ada, "SELECT pg_sleep(30)");
        assert.equal(slow.status, 504, JSON.stringify(slow.body));
        assert.equal(slow.body.error.kind, "timeout");
        assert.match(slow.body.error.message, /within 2000 ms and was stopped/);
        assert.ok(slow.ms >= LIMIT_MS - 50 && slow.ms < LIMIT_MS + 8000, `${slow.ms} ms`);
        const next = await query(ada, "SELECT 1 + 1 AS two");
        assert.equal(next.status, 200, JSON.stringify(next.body));
        assert.deepEqual(next.body.rows, [[2]]);
      });

      await t.step("becoming the connecting user, or writing, is refused", async () => {
        const climb = await query(
          ada,
          "SELECT set_config('role', 'none', true), query_to_xml('SELECT token_hash FROM team_people', true, false, '')",
        );
        assert.equal(climb.status, 400, JSON.stringify(climb.body));
        assert.match(climb.body.error.message, /may not change role/);
        const write = await query(
          ada,
          "WITH gone AS (DELETE FROM sessions RETURNING 1) SELECT count(*) FROM gone",
        );
        assert.equal(write.status, 400, JSON.stringify(write.body));
        assert.match(write.body.error.message, /DELETE is not allowed in a query/);
      });

      await t.step("MCP at /mcp: exec_query with the member's token", async () => {
        const client = new Client({ name: "pg-query-test", version: "1.0.0" });
        const transport = new StreamableHTTPClientTransport(
          new URL(`${server.url}/mcp?surface=full`),
          { requestInit: { headers: { authorization: `Bearer ${ada}` } } },
        );
        await client.connect(transport);
        try {
          const read = await client.callTool({
            name: "exec_query",
            arguments: { sql: "SELECT title FROM sessions" },
          });
          assert.notEqual(read.isError, true, JSON.stringify(read));
          assert.deepEqual((read.structuredContent as { rows: unknown[][] }).rows, [["wombat"]]);
          const refused = await client.callTool({
            name: "exec_query",
            arguments: { sql: "SELECT token_hash FROM team_people" },
          });
          assert.equal(refused.isError, true);
          assert.match(JSON.stringify(refused), /needs scope admin besides sql:read/);
        } finally {
          await client.close();
        }
      });
    } finally {
      await server.stop();
      await home.cleanup();
    }
  },
});

Deno.test({
  name: "serve on PostgreSQL as a user who may not create roles: one line at start, 503",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const cluster = sharedPostgresCluster();
    const owner = `teamowner_${Deno.pid}`;
    const admin = postgres(cluster.url("postgres"), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE ROLE ${owner} LOGIN`);
      await admin.unsafe(`CREATE DATABASE ${owner} OWNER ${owner}`);
    } finally {
      await admin.end();
    }
    const home = await makeAgentHome({ fixtures: false });
    home.env.VANTAGE_STORE = `${
      cluster.url(owner).replace("postgres@", `${owner}@`)
    }?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`;
    home.env.VANTAGE_TOKEN = "owner-token-for-the-test";
    const server = await startServe(home, ["--no-tail"]);
    try {
      const said = server.stderr().split("\n").filter((line) => line.includes("read-only SQL"));
      assert.equal(said.length, 1, server.stderr());
      assert.match(
        said[0],
        /read-only SQL is off: the PostgreSQL user teamowner_\d+ may not create roles \(it lacks CREATEROLE\)/,
      );
      const answer = await post(`${server.url}/api/query`, "owner-token-for-the-test", {
        sql: "SELECT 1",
      });
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.error.kind, "unavailable");
      assert.match(answer.body.error.message, /may not create roles \(it lacks CREATEROLE\)/);
      // The rest of the server works.
      const sessions = await post(
        `${server.url}/api/ops/agent.list_sessions`,
        "owner-token-for-the-test",
        {},
      );
      assert.equal(sessions.status, 200, JSON.stringify(sessions.body));
    } finally {
      await server.stop();
      await home.cleanup();
    }
  },
});
