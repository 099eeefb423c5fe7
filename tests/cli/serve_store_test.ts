/**
 * `vantage serve --store` / `VANTAGE_STORE`, end to end: the real CLI under serve's shipped
 * permissions. A wrong URL, a closed port, a server that never answers and a database that
 * does not exist each give one line on stderr naming the store (password redacted) and what
 * failed, and a non-zero exit; a reachable PostgreSQL is migrated and serve says in one line
 * that it cannot run there yet, and which areas are ready. `--store sqlite` is the default.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { startServe } from "../helpers/serve_process.ts";
import postgres from "postgres";

/** A password the URLs below carry, which no message may show. */
const HIDDEN = "hunter2";

interface Run {
  code: number;
  stderr: string;
  ms: number;
}

/** Runs `serve --port 0` with a store, as `deno task start` would run it (scoped permissions). */
async function serveWithStore(
  home: AgentHome,
  store: { flag?: string; env?: string },
): Promise<Run> {
  const value = store.flag ?? store.env;
  const flags = permissionFlags(
    "serve",
    { ...resolvePaths(home.dataHome), userHome: home.home },
    [],
    value,
  );
  const env = { ...home.env };
  if (store.env !== undefined) env.VANTAGE_STORE = store.env;
  const args = ["run", "--no-prompt", ...flags, MAIN, "serve", "--port", "0"];
  if (store.flag !== undefined) args.push("--store", store.flag);
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stderr: new TextDecoder().decode(output.stderr),
    ms: performance.now() - started,
  };
}

/** The one line serve printed (failing when it printed more, or nothing). */
function oneLine(run: Run): string {
  const lines = run.stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, `one line on stderr, got: ${run.stderr}`);
  return lines[0];
}

/** Runs `work` in a fresh home without fixtures, removed afterwards. */
async function inHome(work: (home: AgentHome) => Promise<void>): Promise<void> {
  const home = await makeAgentHome({ fixtures: false });
  try {
    await work(home);
  } finally {
    await home.cleanup();
  }
}

/** A TCP port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("serve --store: a URL of another scheme is refused before serve writes anything", () =>
  inHome(async (home) => {
    const run = await serveWithStore(home, { flag: `mysql://me:${HIDDEN}@db/team` });
    assert.equal(run.code, 2);
    assert.match(
      oneLine(run),
      /^vantage serve: --store mysql:\/\/me:\*\*\*@db\/team: unsupported scheme 'mysql'; use 'sqlite' or postgres:\/\//,
    );
    assert.ok(!run.stderr.includes(HIDDEN));
    // Nothing was made in the data home: no token, no lock, no store.
    assert.equal(existsSync(`${home.dataHome}/vantage.db`), false);
    assert.equal(existsSync(`${home.dataHome}/serve.lock`), false);
    const noDatabase = await serveWithStore(home, { env: "postgres://me@127.0.0.1:5432" });
    assert.equal(noDatabase.code, 2);
    assert.match(
      oneLine(noDatabase),
      /^vantage serve: VANTAGE_STORE .*: the URL names no database/,
    );
  }));

Deno.test("serve --store: a closed port gives one line naming the store, password hidden", () =>
  inHome(async (home) => {
    const port = closedPort();
    const run = await serveWithStore(home, {
      env: `postgres://me:${HIDDEN}@127.0.0.1:${port}/team`,
    });
    assert.equal(run.code, 5);
    assert.equal(
      oneLine(run),
      `vantage serve: PostgreSQL at postgres://me:***@127.0.0.1:${port}/team cannot be used: ` +
        "connection refused (is the server running, on that host and port?)",
    );
    assert.ok(!run.stderr.includes(HIDDEN));
  }));

Deno.test("serve --store: a server that accepts and never answers fails within the connect timeout", async () => {
  // Holds every connection open without a word: what a stuck server or a swallowing
  // firewall looks like to the client.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) held.push(conn);
    } catch {
      // Closed at the end of the test.
    }
  })();
  try {
    await inHome(async (home) => {
      const run = await serveWithStore(home, {
        flag: `postgres://me@127.0.0.1:${port}/team?connect_timeout=1`,
      });
      assert.equal(run.code, 5);
      assert.equal(
        oneLine(run),
        `vantage serve: PostgreSQL at postgres://me@127.0.0.1:${port}/team?connect_timeout=1 ` +
          "cannot be used: no answer within 1 s",
      );
      // The bound the command promises ("within a few seconds"), measured generously: process
      // start included, on a loaded two-core machine. Without the deadline it waits forever.
      assert.ok(run.ms < 30_000, `serve took ${Math.round(run.ms)} ms`);
    });
  } finally {
    listener.close();
    await accepting;
    for (const conn of held) conn.close();
  }
});

const ignore = skipWithoutPostgres("the serve --store tests against PostgreSQL");

/** The connect timeout of a reachable test server's URL, s (a loaded machine is slow to fork). */
const LOADED = TEST_CONNECT_TIMEOUT_S;

Deno.test({
  name: "serve --store: a database that does not exist is named in one line",
  ignore,
  async fn() {
    const url = await sharedPostgresCluster().createDatabase();
    const missing = `${url.replace(/\/[^/]+$/, "/no_such_db")}?connect_timeout=${LOADED}`;
    await inHome(async (home) => {
      const run = await serveWithStore(home, { flag: missing });
      assert.equal(run.code, 5);
      assert.equal(
        oneLine(run),
        `vantage serve: PostgreSQL at ${missing} cannot be used: database "no_such_db" does not ` +
          "exist (create it, or name an existing database)",
      );
    });
  },
});

Deno.test({
  name: "serve --store: a reachable PostgreSQL is migrated, and serve says what is ready there",
  ignore,
  async fn() {
    const url = `${await sharedPostgresCluster().createDatabase()}?connect_timeout=${LOADED}`;
    await inHome(async (home) => {
      const first = await serveWithStore(home, { env: url });
      assert.equal(first.code, 5);
      const line = oneLine(first);
      assert.ok(line.startsWith(`vantage serve: the PostgreSQL store at ${url} answers`), line);
      assert.match(line, /\(PostgreSQL \d+[^,]*, schema migrated now\)/);
      assert.match(
        line,
        /serve cannot run on PostgreSQL yet: ready there: agent activity, perception, telemetry; not yet: document memory, team people, the server and its operations/,
      );
      const db = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const tables = await db`SELECT count(*)::int AS n FROM schema_migrations`;
        assert.ok(tables[0].n >= 4);
        const sessions = await db`SELECT to_regclass('sessions') IS NOT NULL AS made`;
        assert.equal(sessions[0].made, true);
      } finally {
        await db.end();
      }
      // The flag wins over the environment; the second start finds the schema up to date.
      const again = await serveWithStore(home, { flag: url, env: "mysql://ignored" });
      assert.equal(again.code, 5);
      assert.match(oneLine(again), /schema up to date/);
    });
  },
});

Deno.test("serve --store sqlite is the embedded default", () =>
  inHome(async (home) => {
    home.env.VANTAGE_STORE = "sqlite";
    const server = await startServe(home, ["--no-tail", "--store", "sqlite"]);
    try {
      const health = await fetch(`${server.url}/api/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      assert.equal(existsSync(`${home.dataHome}/vantage.db`), true);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  }));
