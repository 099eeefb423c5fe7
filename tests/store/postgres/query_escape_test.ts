/**
 * Read-only SQL on PostgreSQL cannot climb out of its role: over a real migrated database
 * with a person's token hash in `team_people`, every way back to the connecting user (SET
 * ROLE, RESET ROLE, set_config, a COMMIT inside), every write (a CTE that deletes, COPY TO
 * PROGRAM, SELECT INTO), every file or server function, and the server's own secrets
 * (pg_authid, pg_shadow) are refused, and nothing is written; a query past the limit is
 * cancelled and the one connection it used answers the next query with nothing left over
 * (settings, advisory locks). The roles hold SELECT on exactly the classified tables; a
 * connecting user without CREATEROLE gets read-only SQL off, with the reason, never
 * unconfined.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { VantageError } from "../../../src/core/errors.ts";
import {
  openPostgresStore,
  type PostgresStore,
} from "../../../src/store/postgres/postgres_store.ts";
import { PgQueryRunner } from "../../../src/store/postgres/query/pg_query_runner.ts";
import { queryRoles } from "../../../src/store/postgres/query/query_roles.ts";
import { parseStoreLocation } from "../../../src/store/postgres/store_url.ts";
import { queryTableScopes, readableTables } from "../../../src/store/query/query_tables.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../../helpers/postgres_cluster.ts";

const HIDDEN_HASH = "token-hash-quokka-3391";
const LIMIT_MS = 1200;
const ignore = skipWithoutPostgres("read-only SQL escapes on PostgreSQL");

async function open(url: string, queryTimeoutMs = LIMIT_MS): Promise<PostgresStore> {
  const location = parseStoreLocation(url);
  if (location.kind !== "postgres") throw new Error("no postgres URL");
  return await openPostgresStore(location, {
    max: 2,
    connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
    queryTimeoutMs,
  });
}

async function refused(run: Promise<unknown>, sql: string): Promise<VantageError> {
  try {
    await run;
  } catch (error) {
    assert.ok(error instanceof VantageError, `${sql}: ${String(error)}`);
    assert.ok(!error.message.includes(HIDDEN_HASH), `${sql}: the refusal carries the secret`);
    return error;
  }
  assert.fail(`${sql} was answered`);
}

Deno.test({
  name: "PostgreSQL read-only SQL: no way back to the connecting user, no write, no file",
  ignore,
  async fn(t) {
    const url = await sharedPostgresCluster().createDatabase();
    const store = await open(url);
    assert.equal(store.queriesOff, undefined);
    await store.pool.exec(`
      INSERT INTO team_people (name, role, token_hash, created_at)
        VALUES ('ada', 'member', '${HIDDEN_HASH}', 0);
      INSERT INTO store_meta (key, value) VALUES ('k', 'v');
      CREATE EXTENSION IF NOT EXISTS dblink;`);
    // One connection, so every query below runs on the one the escapes ran on.
    const location = parseStoreLocation(url);
    if (location.kind !== "postgres") throw new Error("no postgres URL");
    const roles = queryRoles(
      (await store.pool.query("SELECT current_database() AS d"))[0].d as string,
    );
    const runner = new PgQueryRunner({
      location,
      roles,
      timeoutMs: LIMIT_MS,
      maxConnections: 1,
      connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
    });
    const sqlOnly = { tables: readableTables(() => false), rowLimit: 10, cellChars: 500 };
    const agent = { ...sqlOnly, tables: readableTables((scope) => scope === "agent:read") };
    const ask = (sql: string, limits = agent) => runner.run(sql, limits);
    try {
      await t.step("the role it runs as is the scopes' own", async () => {
        const who = await ask("SELECT current_user, session_user");
        assert.equal(
          who.rows[0][0],
          roles.find((role) => role.scopes.join() === "agent:read")!.name,
        );
        assert.equal(who.rows[0][1], "postgres");
      });

      await t.step("every way back to the connecting user is refused", async () => {
        const ways: Array<[string, RegExp]> = [
          [
            "SET ROLE postgres",
            /only one SELECT statement is accepted; this one starts with 'SET'/,
          ],
          ["RESET ROLE", /starts with 'RESET'/],
          ["COMMIT", /starts with 'COMMIT'/],
          ["SELECT 1; COMMIT; SET ROLE postgres; SELECT * FROM team_people", /only one statement/],
          ["SELECT set_config('role', 'postgres', false)", /may not change role/],
          ["SELECT set_config('role', 'none', true)", /may not change role/],
          [
            "SELECT set_config('session_authorization', 'postgres', false)",
            /may not change session_authorization/,
          ],
          [
            "SELECT set_config('role', 'none', true), query_to_xml('SELECT token_hash FROM team_people', true, false, '')",
            /may not change role/,
          ],
          ["SELECT * FROM vantage_query.run_as_admin('SELECT 1', 1, 10, '{}')", /run_as_admin/],
        ];
        for (const [sql, message] of ways) {
          const error = await refused(ask(sql), sql);
          assert.equal(error.kind, "invalid_arguments", `${sql}: ${error.message}`);
          assert.match(error.message, message, sql);
        }
        // Dynamic SQL runs as the role too: the table is refused, by name.
        const xml = await refused(
          ask("SELECT query_to_xml('SELECT token_hash FROM team_people', true, false, '')"),
          "query_to_xml",
        );
        assert.equal(xml.kind, "forbidden");
        assert.deepEqual(xml.details, { table: "team_people" });
      });

      await t.step("writes, files and the server's secrets are refused", async () => {
        const ways: Array<[string, string, RegExp]> = [
          [
            "WITH x AS (DELETE FROM store_meta RETURNING *) SELECT * FROM x",
            "invalid_arguments",
            /DELETE is not allowed in a query; it may only read/,
          ],
          [
            "WITH x AS (UPDATE team_people SET role = 'admin' RETURNING 1) SELECT * FROM x",
            "invalid_arguments",
            /UPDATE is not allowed in a query/,
          ],
          [
            "SELECT * INTO copied FROM store_meta",
            "invalid_arguments",
            /SELECT INTO is not allowed/,
          ],
          [
            "COPY (SELECT token_hash FROM team_people) TO PROGRAM 'cat > /tmp/leak'",
            "invalid_arguments",
            /starts with 'COPY'/,
          ],
          ["SELECT * FROM store_meta FOR UPDATE", "invalid_arguments", /FOR UPDATE is not allowed/],
          [
            "SELECT pg_read_file('/etc/passwd')",
            "invalid_arguments",
            /pg_read_file\(\) is not available/,
          ],
          ["SELECT pg_ls_dir('.')", "invalid_arguments", /pg_ls_dir\(\) is not available/],
          [
            "SELECT lo_import('/etc/passwd')",
            "invalid_arguments",
            /lo_import\(\) is not available/,
          ],
          [
            "SELECT lo_export(1, '/tmp/leak')",
            "invalid_arguments",
            /lo_export\(\) is not available/,
          ],
          [
            "SELECT * FROM dblink('dbname=postgres user=postgres', 'SELECT token_hash FROM team_people') AS t(x text)",
            "invalid_arguments",
            /password is required|non-superuser/i,
          ],
          ["SELECT rolpassword FROM pg_authid", "forbidden", /it reads pg_authid/],
          ["SELECT passwd FROM pg_shadow", "forbidden", /it reads pg_shadow/],
          ["SELECT token_hash FROM team_people", "forbidden", /it reads team_people/],
          // A sequence is no table of the list: as SQLite's counters, it is refused by name.
          ["SELECT nextval('events_id_seq')", "forbidden", /it reads events_id_seq/],
        ];
        for (const [sql, kind, message] of ways) {
          const error = await refused(ask(sql), sql);
          assert.equal(error.kind, kind, `${sql}: ${error.message}`);
          assert.match(error.message, message, sql);
        }
        const check = postgres(url, { max: 1, onnotice: () => {} });
        try {
          assert.deepEqual(
            [
              ...await check`SELECT (SELECT count(*) FROM store_meta)::int AS meta,
              (SELECT role FROM team_people WHERE name = 'ada') AS role,
              to_regclass('copied') IS NULL AS no_copy`,
            ],
            [{ meta: 1, role: "member", no_copy: true }],
          );
        } finally {
          await check.end();
        }
      });

      await t.step("past the limit: cancelled, and the same connection answers clean", async () => {
        const started = performance.now();
        const error = await refused(ask("SELECT pg_sleep(30)"), "pg_sleep");
        const ms = performance.now() - started;
        assert.equal(error.kind, "timeout");
        assert.deepEqual(error.details, { timeout_ms: LIMIT_MS });
        assert.ok(ms >= LIMIT_MS - 50 && ms < LIMIT_MS + 5000, `answered after ${ms} ms`);
        // Turning the timeout off from inside does not stop the one already running.
        const unlimited = performance.now();
        const late = await refused(
          ask("SELECT set_config('statement_timeout', '0', true), pg_sleep(30)"),
          "timeout off",
        );
        assert.equal(late.kind, "timeout");
        const took = performance.now() - unlimited;
        assert.ok(took < LIMIT_MS + 5000, `answered after ${took} ms`);
        // Session state a query sets does not outlive it on its connection.
        await ask(
          "SELECT set_config('search_path', 'pg_catalog', false), set_config('statement_timeout', '0', false), pg_advisory_lock(4242)",
        );
        const after = await ask(
          "SELECT current_setting('search_path'), current_setting('statement_timeout'), (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'), current_user = session_user",
        );
        assert.deepEqual(after.rows, [[`"$user", public`, `${LIMIT_MS}ms`, 0, false]]);
        const next = await ask("SELECT count(*) FROM sessions");
        assert.deepEqual(next.rows, [[0]]);
      });

      await t.step("a full pool makes a query wait; a stopped wait ends at once", async () => {
        const runaway = refused(ask("SELECT pg_sleep(30)"), "runaway");
        await new Promise((resolve) => setTimeout(resolve, 200));
        // Its own deadline is longer than the runaway's, so it outlives the wait.
        const waiting = runner.run("SELECT 7", { ...agent, timeoutMs: 20_000 });
        const controller = new AbortController();
        const cancelled = runner.run("SELECT 8", agent, controller.signal);
        const started = performance.now();
        controller.abort(new VantageError("timeout", "the caller gave up"));
        await assert.rejects(cancelled, /the caller gave up/);
        assert.ok(performance.now() - started < 500, "a stopped wait ends at once");
        assert.equal((await runaway).kind, "timeout");
        assert.deepEqual((await waiting).rows, [[7]]);
      });

      await t.step("the roles hold SELECT on exactly their tables", async () => {
        const grants = await store.pool.query(
          `SELECT g.rolname AS role, c.relname AS table, a.privilege_type AS privilege
           FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
           JOIN pg_roles g ON g.oid = a.grantee WHERE g.rolname LIKE 'vantage\\_sql\\_%'`,
        );
        const existing = new Set(
          (await store.pool.query(
            "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'",
          )).map((row) => row.relname as string),
        );
        for (const role of roles) {
          const held = grants.filter((row) => row.role === role.name);
          assert.ok(held.every((row) => row.privilege === "SELECT"), role.name);
          assert.deepEqual(
            held.map((row) => row.table).sort(),
            role.tables.filter((table) => existing.has(table)).sort(),
            role.name,
          );
        }
        const attributes = await store.pool.query(
          `SELECT count(*) AS n FROM pg_roles WHERE rolname = ANY($1::text[]) AND NOT rolcanlogin
             AND NOT rolsuper AND NOT rolcreaterole AND NOT rolcreatedb AND NOT rolbypassrls`,
          [roles.map((role) => role.name)],
        );
        assert.equal(attributes[0].n, roles.length);
        // A table nobody classified stays unreadable, after a reopen too.
        await store.pool.exec(
          "CREATE TABLE scratch_notes (body text); INSERT INTO scratch_notes VALUES ('x')",
        );
        assert.equal(queryTableScopes("scratch_notes"), undefined);
        const again = await open(url);
        await again.close();
        const everything = { ...sqlOnly, tables: readableTables(() => true) };
        const unclassified = await refused(
          ask("SELECT body FROM scratch_notes", everything),
          "scratch",
        );
        assert.equal(unclassified.kind, "forbidden");
        // A hand-made grant is taken back at the next open.
        const admin = roles.find((role) =>
          role.scopes.includes("admin") && role.scopes.length === 3
        )!;
        await store.pool.exec(`GRANT SELECT, INSERT ON scratch_notes TO "${admin.name}"`);
        const reopened = await open(url);
        await reopened.close();
        const taken = await refused(ask("SELECT body FROM scratch_notes", everything), "regrant");
        assert.equal(taken.kind, "forbidden");
      });
    } finally {
      await runner.close();
      await store.close();
    }
  },
});

Deno.test({
  name: "PostgreSQL read-only SQL: a user who may not create roles gets it off, with the reason",
  ignore,
  async fn() {
    const cluster = sharedPostgresCluster();
    const owner = `plain_${Deno.pid}`;
    const admin = postgres(cluster.url("postgres"), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE ROLE ${owner} LOGIN`);
      await admin.unsafe(`CREATE DATABASE ${owner} OWNER ${owner}`);
    } finally {
      await admin.end();
    }
    const url = cluster.url(owner).replace("postgres@", `${owner}@`);
    const store = await open(url);
    try {
      assert.match(
        store.queriesOff ?? "",
        new RegExp(
          `^read-only SQL is off: the PostgreSQL user ${owner} may not create roles \\(it lacks CREATEROLE\\)`,
        ),
      );
      assert.ok(!(store.queriesOff ?? "").includes("\n"), "one line");
      const error = await refused(
        store.queries.run("SELECT 1", {
          tables: readableTables(() => true),
          rowLimit: 1,
          cellChars: 100,
        }),
        "SELECT 1",
      );
      assert.equal(error.kind, "unavailable");
      assert.equal(error.message, store.queriesOff);
      // The rest of the store serves.
      assert.equal(await store.store.agent.getSession("none"), undefined);
    } finally {
      await store.close();
    }
  },
});

Deno.test({
  name:
    "PostgreSQL read-only SQL: a CREATEROLE user (no superuser) makes the roles and is confined",
  ignore,
  async fn() {
    const cluster = sharedPostgresCluster();
    const owner = `creator_${Deno.pid}`;
    const admin = postgres(cluster.url("postgres"), { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE ROLE ${owner} LOGIN CREATEROLE`);
      await admin.unsafe(`CREATE DATABASE ${owner} OWNER ${owner}`);
    } finally {
      await admin.end();
    }
    const url = cluster.url(owner).replace("postgres@", `${owner}@`);
    const store = await open(url);
    try {
      assert.equal(store.queriesOff, undefined);
      await store.pool.exec(
        `INSERT INTO team_people (name, role, token_hash, created_at) VALUES ('ada', 'member', '${HIDDEN_HASH}', 0)`,
      );
      const agent = {
        tables: readableTables((scope) => scope === "agent:read"),
        rowLimit: 10,
        cellChars: 100,
      };
      const who = await store.queries.run("SELECT current_user, session_user", agent);
      assert.match(String(who.rows[0][0]), /^vantage_sql_creator_\d+_[0-9a-f]{6}_agent$/);
      assert.equal(who.rows[0][1], owner);
      const people = await refused(
        store.queries.run("SELECT token_hash FROM team_people", agent),
        "people",
      );
      assert.equal(people.kind, "forbidden");
      const climb = await refused(
        store.queries.run(`SELECT set_config('role', '${owner}', false)`, agent),
        "climb",
      );
      assert.match(climb.message, /may not change role/);
      // Opened again, everything is in place: nothing to make.
      const again = await open(url);
      assert.equal(again.queriesOff, undefined);
      await again.close();
    } finally {
      await store.close();
    }
  },
});
