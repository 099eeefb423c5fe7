/**
 * A team server whose PostgreSQL goes away while it serves, end to end with real processes:
 * hooks sent meanwhile are held by the server (202; the agent is never blocked, and the
 * person its token named is kept), reads and writes answer 503 `unavailable` naming the
 * store, and when the database is back every held hook is stored exactly once, attributed to
 * its sender, without a restart.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { runHook, startServe } from "../helpers/serve_process.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";

Deno.test({
  name: "the database goes away: hooks are held, requests get 503, and all lands once it is back",
  ignore: skipWithoutPostgres("the team server's database outage test"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = sharedPostgresCluster();
    // A short connect timeout: while the database is away, a request fails fast.
    const url = `${await cluster.createDatabase()}?connect_timeout=5`;
    const serverHome = await makeAgentHome({ fixtures: false });
    const laptop = await makeAgentHome({ fixtures: false });
    serverHome.env.VANTAGE_STORE = url;
    const lines = (await Deno.readTextFile(`${FIXTURES}claude_code/hooks.jsonl`)).trim().split(
      "\n",
    );
    assert.ok(lines.length >= 7, "enough recorded hooks");
    const readUrl = url.replace("connect_timeout=5", `connect_timeout=${TEST_CONNECT_TIMEOUT_S}`);
    /** Events stored, distinct deliveries, and ada's — read by a client of its own each time. */
    const stored = async () => {
      const db = postgres(readUrl, { max: 1, onnotice: () => {} });
      try {
        const [row] = await db`SELECT count(*)::int AS n, count(DISTINCT delivery_id)::int AS d,
          count(*) FILTER (WHERE person = 'ada')::int AS ada FROM events`;
        return { n: row.n, d: row.d, ada: row.ada };
      } finally {
        await db.end();
      }
    };
    const add = await runVantage(["team", "add-user", "ada"], { env: serverHome.env });
    assert.equal(add.code, 0, add.stderr);
    const token = add.stdout.trim();
    const server = await startServe(serverHome, ["--no-tail"]);
    const hook = (line: string) =>
      runHook(laptop, "claude-code", line, {
        VANTAGE_URL: server.url,
        VANTAGE_TOKEN: token,
        VANTAGE_HOOK_TIMEOUT_MS: "20000",
      });
    const call = async (id: string, args: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/api/ops/${id}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(args),
      });
      return { status: response.status, body: await response.json() };
    };
    let paused = false;
    try {
      await t.step("with the database up, hooks are stored", async () => {
        for (const line of lines.slice(0, 3)) {
          const run = await hook(line);
          assert.equal(run.stderr, "");
        }
        assert.deepEqual(await stored(), { n: 3, d: 3, ada: 3 });
      });

      await t.step("the database goes away: hooks are held, requests answer 503", async () => {
        cluster.pause();
        paused = true;
        for (const line of lines.slice(3, 7)) {
          const run = await hook(line);
          assert.equal(run.code, 0);
          // Accepted by the server: nothing spooled on the laptop, nothing said to the agent.
          assert.equal(run.stderr, "");
        }
        const spooled = await Deno.stat(`${laptop.dataHome}/spool`).then(() => true, () => false);
        assert.equal(
          spooled,
          false,
          `the laptop spooled: the server did not hold the hooks.
${server.stderr()}`,
        );
        const held = await Deno.readTextFile(`${serverHome.dataHome}/held/hooks.jsonl`);
        const entries = held.trim().split("\n").map((line) => JSON.parse(line));
        assert.equal(entries.length, 4);
        assert.ok(entries.every((entry) => entry.person === "ada"), held);
        const read = await call("agent.list_sessions", { since_min: 5_000_000 });
        assert.equal(read.status, 503, JSON.stringify(read.body));
        assert.match(JSON.stringify(read.body), /PostgreSQL at .* cannot be used/);
        // A write, as the server's owner (an admin): 503 too, and nothing half-written.
        const owner = (await Deno.readTextFile(`${serverHome.dataHome}/token`)).trim();
        const write = await fetch(`${server.url}/api/ops/team.add_user`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${owner}` },
          body: JSON.stringify({ name: "bea" }),
        });
        const written = await write.json();
        assert.equal(write.status, 503, JSON.stringify(written));
        assert.match(JSON.stringify(written), /cannot be used: connection refused/);
      });

      await t.step("the database is back: every held hook lands once, as ada's", async () => {
        cluster.resume();
        paused = false;
        const deadline = Date.now() + 60_000;
        let now = { n: 0, d: 0, ada: 0 };
        while (Date.now() < deadline) {
          now = await stored();
          if (now.n >= 7) break;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        assert.deepEqual(now, { n: 7, d: 7, ada: 7 });
        const read = await call("agent.list_sessions", { since_min: 5_000_000 });
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.equal(read.body.result.sessions[0].person, "ada");
        // Replaying again stores nothing twice.
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        assert.deepEqual(await stored(), { n: 7, d: 7, ada: 7 });
      });
    } finally {
      if (paused) cluster.resume();
      assert.equal(await server.stop(), 0, server.stderr());
      await laptop.cleanup();
      await serverHome.cleanup();
    }
  },
});
