/**
 * People on a team server, end to end with real processes: a real `serve`,
 * three people whose tokens come from the real `vantage team add-user`, and
 * three HOMEs each running the real `vantage hook` (the agents' recorded
 * payloads) with their own token and host name. Then: every event is
 * stored once, attributed to its sender and host, and so is its session;
 * `list_sessions` filters by person over HTTP; a member cannot change
 * another's document but can change their own (an admin may change any);
 * a grant without `admin` cannot manage people; and after the real
 * `vantage team revoke`, the revoked person's next hook, API, MCP and OTLP
 * requests get 401 saying so while the others' keep working.
 *
 * The whole scenario runs twice: on the data home's SQLite store, and on a
 * PostgreSQL store (`VANTAGE_STORE` for both `serve` and `vantage team`). On
 * PostgreSQL, adding, updating and deleting documents run as on SQLite; reading one back
 * (`docs.get`) is not ported yet, so the store is read instead.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { runVantage } from "../helpers/cli.ts";
import { runHook, type ServeProcess, startServe } from "../helpers/serve_process.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";

/** One person of the team: how their hooks run and what they send. */
interface Person {
  name: string;
  admin: boolean;
  /** Their machine: VANTAGE_HOSTNAME, or the system's host name when undefined. */
  hostname?: string;
  /** The agent (hook flag) and fixture whose payloads they send. */
  agent: "claude_code" | "codex";
  flag: string;
  /** Their session: the fixture's, or the fixture's under another id. */
  session: string;
  fixtureSession: string;
  token: string;
  home: AgentHome;
}

const CLAUDE_SESSION = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";
const CODEX_SESSION = "01a22dbd-a9bf-7572-b5d3-c10ec2a7c6c9";

async function payloads(person: Person): Promise<string[]> {
  const text = await Deno.readTextFile(`${FIXTURES}${person.agent}/hooks.jsonl`);
  return text.trim().split("\n").map((line) =>
    line.replaceAll(person.fixtureSession, person.session)
  );
}

/** Where the team server keeps its store, and how the test reads it behind serve's back. */
interface Backend {
  name: "sqlite" | "postgres";
  ignore: boolean;
  /** The store URL serve and `vantage team` get as VANTAGE_STORE (none: the data home's file). */
  store(): Promise<string | undefined>;
}

const BACKENDS: Backend[] = [
  { name: "sqlite", ignore: false, store: () => Promise.resolve(undefined) },
  {
    name: "postgres",
    ignore: skipWithoutPostgres("the team people scenario on PostgreSQL"),
    store: async () =>
      `${await sharedPostgresCluster().createDatabase()}?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`,
  },
];

/** PostgreSQL's count and sum (bigint, numeric) as numbers, as SQLite answers them. */
const AS_NUMBERS = {
  bigint: { to: 20, from: [20, 1700], serialize: String, parse: Number },
};

/** Rows of a query on the server's store (SQLite's file, or its PostgreSQL database). */
async function rows<T>(dataHome: string, store: string | undefined, sql: string): Promise<T[]> {
  if (store !== undefined) {
    const db = postgres(store, { max: 1, onnotice: () => {}, types: AS_NUMBERS });
    try {
      return [...await db.unsafe(sql)] as T[];
    } finally {
      await db.end();
    }
  }
  const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true, timeout: 5_000 });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

/** Runs the person's hook for one payload, against `server`, as they would on their machine. */
function hookAs(person: Person, server: ServeProcess, payload: string) {
  const env: Record<string, string> = {
    VANTAGE_URL: server.url,
    VANTAGE_TOKEN: person.token,
    // A loaded machine must not turn a slow answer into a spooled (here: lost) event.
    VANTAGE_HOOK_TIMEOUT_MS: "20000",
  };
  if (person.hostname !== undefined) env.VANTAGE_HOSTNAME = person.hostname;
  return runHook(person.home, person.flag, payload, env);
}

interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

async function callOp(
  server: ServeProcess,
  token: string | undefined,
  id: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${server.url}/api/ops/${id}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: await response.json() };
}

for (const backend of BACKENDS) {
  Deno.test({
    name:
      `three people, their hooks, their sessions and documents, and a revocation (${backend.name})`,
    ignore: backend.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: (t) => scenario(t, backend),
  });
}

async function scenario(t: Deno.TestContext, backend: Backend): Promise<void> {
  const serverHome = await makeAgentHome({ fixtures: false });
  const store = await backend.store();
  if (store !== undefined) serverHome.env.VANTAGE_STORE = store;
  const onPostgres = store !== undefined;
  const people: Person[] = [
    {
      name: "ada",
      admin: false,
      hostname: "ada-laptop",
      agent: "claude_code",
      flag: "claude-code",
      session: CLAUDE_SESSION,
      fixtureSession: CLAUDE_SESSION,
      token: "",
      home: await makeAgentHome({ fixtures: false }),
    },
    {
      name: "bob",
      admin: false,
      hostname: "bob-desktop",
      agent: "codex",
      flag: "codex",
      session: CODEX_SESSION,
      fixtureSession: CODEX_SESSION,
      token: "",
      home: await makeAgentHome({ fixtures: false }),
    },
    {
      name: "cy",
      admin: true,
      agent: "claude_code",
      flag: "claude-code",
      session: "c7000000-0000-4000-8000-00000000c700",
      fixtureSession: CLAUDE_SESSION,
      token: "",
      home: await makeAgentHome({ fixtures: false }),
    },
  ];
  const [ada, bob, cy] = people;
  let server: ServeProcess | undefined;
  try {
    await t.step("vantage team add-user prints each token once, on stdout", async () => {
      for (const person of people) {
        const run = await runVantage(
          ["team", "add-user", person.name, ...(person.admin ? ["--admin"] : [])],
          { env: serverHome.env },
        );
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /^vtp_[A-Za-z0-9_-]{43}\n$/);
        assert.match(run.stderr, /it is shown only now/);
        person.token = run.stdout.trim();
      }
      assert.equal(new Set(people.map((p) => p.token)).size, 3);
      const again = await runVantage(["team", "add-user", "ada"], { env: serverHome.env });
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /'ada' already has a valid token/);
      const list = await runVantage(["team", "list"], { env: serverHome.env });
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^ada +member .* valid$/m);
      assert.match(list.stdout, /^cy +admin .* valid$/m);
      for (const person of people) assert.ok(!list.stdout.includes(person.token.slice(4)));
    });

    server = await startServe(serverHome, ["--no-tail"]);
    const running = server;

    await t.step("each person's hooks are stored once, with their name and host", async () => {
      const sent = new Map<string, number>();
      await Promise.all(people.map(async (person) => {
        const lines = await payloads(person);
        sent.set(person.name, lines.length);
        for (const line of lines) {
          const run = await hookAs(person, running, line);
          assert.equal(run.code, 0, run.stderr);
          assert.equal(run.stderr, "", `${person.name}'s hook`);
        }
      }));
      const byPerson = await rows<{ person: string; host: string; session_id: string; n: number }>(
        serverHome.dataHome,
        store,
        `SELECT person, host, session_id, count(*) AS n, count(DISTINCT delivery_id) AS d
         FROM events GROUP BY person, host, session_id ORDER BY person`,
      );
      assert.deepEqual(
        byPerson.map((row) => ({ ...row })),
        people.map((person) => ({
          person: person.name,
          host: person.hostname ?? Deno.hostname(),
          session_id: person.session,
          n: sent.get(person.name),
          d: sent.get(person.name),
        })),
      );
      const sessions = await rows<{ session_id: string; person: string; host: string }>(
        serverHome.dataHome,
        store,
        "SELECT session_id, person, host FROM sessions ORDER BY person",
      );
      assert.deepEqual(
        sessions.map((row) => ({ ...row })),
        people.map((person) => ({
          session_id: person.session,
          person: person.name,
          host: person.hostname ?? Deno.hostname(),
        })),
      );
      // Nothing waited in a spool: every hook reached the server.
      for (const person of people) {
        const spooled = await Deno.stat(`${person.home.dataHome}/spool`).then(
          () => true,
          () => false,
        );
        assert.equal(spooled, false, `${person.name} spooled`);
      }
    });

    await t.step(
      "list_sessions filters by person over /api, and shows person and host",
      async () => {
        for (const person of people) {
          const answer = await callOp(running, bob.token, "agent.list_sessions", {
            person: person.name,
            since_min: 5_000_000,
          });
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          const listed = answer.body.result.sessions;
          assert.deepEqual(
            listed.map((s: Record<string, unknown>) => [s.session_id, s.person, s.host]),
            [[person.session, person.name, person.hostname ?? Deno.hostname()]],
          );
        }
        const all = await callOp(running, ada.token, "agent.list_sessions", {
          since_min: 5_000_000,
        });
        assert.equal(all.body.result.count, 3);
        const nobody = await callOp(running, ada.token, "agent.list_sessions", {
          person: "nobody",
          since_min: 5_000_000,
        });
        assert.equal(nobody.body.result.count, 0);
      },
    );

    await t.step("live events announce a person's new session, on either store", async () => {
      const stream = await fetch(`${running.url}/api/events`, {
        headers: { authorization: `Bearer ${ada.token}` },
      });
      assert.equal(stream.status, 200);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        const [first] = await payloads(ada);
        const fresh = "d1ea0000-0000-4000-8000-00000000d1ea";
        const run = await hookAs(ada, running, first.replaceAll(ada.session, fresh));
        assert.equal(run.stderr, "");
        let text = "";
        while (!text.includes(`"session_id":"${fresh}"`) || !text.includes("event: session")) {
          text += (await reader.read()).value ?? "";
        }
        assert.match(text, new RegExp(`event: session\ndata: \{[^\n]*${fresh}`));
      } finally {
        await reader.cancel();
      }
    });

    await t.step("a member changes their own documents, not another's; an admin any", async () => {
      for (const person of [ada, bob]) {
        const added = await callOp(running, person.token, "docs.add", {
          content: `${person.name}'s notes about wombats`,
          name: `team/${person.name}-notes.md`,
        });
        assert.equal(added.status, 200, JSON.stringify(added.body));
      }
      // Each document is its adder's, in the store (on PostgreSQL too, whose docs.get is not
      // ported yet).
      assert.deepEqual(
        (await rows<{ path: string; person: string }>(
          serverHome.dataHome,
          store,
          "SELECT path, person FROM docs_documents ORDER BY path",
        )).map((row) => ({ path: row.path, person: row.person })),
        [{ path: "team/ada-notes.md", person: "ada" }, {
          path: "team/bob-notes.md",
          person: "bob",
        }],
      );
      if (!onPostgres) {
        const got = await callOp(running, ada.token, "docs.get", { name: "bob-notes.md" });
        assert.equal(got.status, 200, JSON.stringify(got.body));
        assert.equal(got.body.result.person, "bob");
      }

      const update = await callOp(running, ada.token, "docs.update", {
        name: "bob-notes.md",
        tags: ["ada-was-here"],
      });
      assert.equal(update.status, 403, JSON.stringify(update.body));
      assert.equal(update.body.operation_error.kind, "forbidden");
      assert.match(
        update.body.operation_error.message,
        /document .*bob-notes\.md belongs to 'bob'; 'ada' \(a member\) may change only their own data/,
      );
      const remove = await callOp(running, ada.token, "docs.delete", { name: "bob-notes.md" });
      assert.equal(remove.status, 403, JSON.stringify(remove.body));
      assert.match(remove.body.operation_error.message, /belongs to 'bob'/);
      // Nothing of bob's changed.
      const tags = await rows<{ tag: string }>(
        serverHome.dataHome,
        store,
        `SELECT t.tag FROM docs_tags t JOIN docs_documents d ON d.id = t.document_id
         WHERE d.person = 'bob'`,
      );
      assert.deepEqual(tags, []);
      assert.equal(
        (await rows<{ n: number }>(
          serverHome.dataHome,
          store,
          "SELECT count(*) AS n FROM docs_documents WHERE person = 'bob'",
        ))[0].n,
        1,
      );

      const own = await callOp(running, ada.token, "docs.update", {
        name: "ada-notes.md",
        tags: ["mine"],
      });
      assert.equal(own.status, 200, JSON.stringify(own.body));
      const byAdmin = await callOp(running, cy.token, "docs.update", {
        name: "bob-notes.md",
        tags: ["reviewed"],
      });
      assert.equal(byAdmin.status, 200, JSON.stringify(byAdmin.body));
      const deleted = await callOp(running, bob.token, "docs.delete", { name: "bob-notes.md" });
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.result.deleted, 1);
    });

    await t.step("a grant without admin cannot manage people, anywhere it asks", async () => {
      const refused = await callOp(running, bob.token, "team.list_users", {});
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.kind, "forbidden");
      assert.deepEqual(refused.body.error.details.missing_scopes, ["admin"]);
      const add = await callOp(running, ada.token, "team.add_user", { name: "mallory" });
      assert.equal(add.status, 403);
      const listed = await fetch(`${running.url}/api/ops?cassette=team`, {
        headers: { authorization: `Bearer ${bob.token}` },
      });
      assert.equal((await listed.json()).count, 0);
      const asked = await callOp(running, bob.token, "team.list_users", {}, {
        "x-vantage-scopes": "admin",
      });
      assert.equal(asked.status, 403);
      assert.match(
        asked.body.error.message,
        /asks for admin, which this server does not grant bob/,
      );
      // The owner narrowing its own grant loses it too, and so does a CLI caller.
      const narrowed = await callOp(running, undefined, "team.list_users", {}, {
        "x-vantage-scopes": "agent:read,docs:*",
      });
      assert.equal(narrowed.status, 403);
      const cli = await runVantage(["team", "list", "--scopes", "agent:read,docs:read"], {
        env: serverHome.env,
      });
      assert.equal(cli.code, 3, cli.stderr);
      assert.match(cli.stderr, /admin/);
      // admin is asked for by name: a caller with the default grant (an agent's) lacks it.
      const call = await runVantage(["call", "team.list_users", "{}"], { env: serverHome.env });
      assert.equal(call.code, 3, call.stderr);
      assert.match(call.stderr, /admin/);
      const admin = await callOp(running, cy.token, "team.list_users", {});
      assert.equal(admin.status, 200, JSON.stringify(admin.body));
      assert.deepEqual(
        admin.body.result.people.map((p: { name: string; role: string }) => `${p.name}:${p.role}`),
        ["ada:member", "bob:member", "cy:admin"],
      );
      assert.ok(!JSON.stringify(admin.body).includes(bob.token.slice(4)));
    });

    await t.step(
      "after vantage team revoke, bob's next requests get 401; the others' work",
      async () => {
        const revoke = await runVantage(["team", "revoke", "bob"], { env: serverHome.env });
        assert.equal(revoke.code, 0, revoke.stderr);
        assert.match(revoke.stdout, /^revoked bob's token/);
        const count = async () =>
          (await rows<{ n: number }>(
            serverHome.dataHome,
            store,
            "SELECT count(*) AS n FROM events",
          ))[0]
            .n;
        const before = await count();
        const [first] = await payloads(bob);
        // Bob's very next hook: refused, not stored, not spooled (spooling could never help).
        const hook = await hookAs(bob, running, first);
        assert.equal(hook.code, 0);
        assert.match(hook.stderr, /payload refused: the token of 'bob' was revoked at \S+Z/);
        assert.equal(await count(), before);
        const api = await callOp(running, bob.token, "agent.list_sessions", {});
        assert.equal(api.status, 401);
        assert.equal(api.body.error.kind, "forbidden");
        assert.match(api.body.error.message, /the token of 'bob' was revoked/);
        const mcp = await fetch(`${running.url}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${bob.token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        assert.equal(mcp.status, 401);
        assert.match((await mcp.json()).error.message, /revoked/);
        const otlp = await fetch(`${running.url}/v1/traces`, {
          method: "POST",
          headers: { authorization: `Bearer ${bob.token}`, "content-type": "application/json" },
          body: JSON.stringify({ resourceSpans: [] }),
        });
        assert.equal(otlp.status, 401);
        assert.equal(otlp.headers.get("content-type"), "application/json");
        // A google.rpc.Status.
        const status = await otlp.json();
        assert.match(status.message, /the token of 'bob' was revoked/);
        // A token no one holds says so.
        const stranger = await callOp(running, `vtp_${"x".repeat(43)}`, "agent.list_sessions", {});
        assert.equal(stranger.status, 401);
        assert.match(stranger.body.error.message, /no person on this server holds it/);

        // Ada's hook and requests still work.
        const [adaFirst] = await payloads(ada);
        const adaHook = await hookAs(ada, running, adaFirst);
        assert.equal(adaHook.stderr, "");
        assert.equal(await count(), before + 1);
        const adaApi = await callOp(running, ada.token, "agent.list_sessions", {
          person: "bob",
          since_min: 5_000_000,
        });
        assert.equal(adaApi.status, 200);
        // What bob sent stays his.
        assert.equal(adaApi.body.result.sessions[0].person, "bob");
        const otlpAda = await fetch(`${running.url}/v1/traces`, {
          method: "POST",
          headers: { authorization: `Bearer ${ada.token}`, "content-type": "application/json" },
          body: JSON.stringify({ resourceSpans: [] }),
        });
        // The OTLP intake takes her export on either backend.
        assert.equal(otlpAda.status, 200, await otlpAda.text());
        const list = await runVantage(["team", "list"], { env: serverHome.env });
        assert.match(list.stdout, /^bob +member .* revoked \S+Z$/m);
      },
    );
  } finally {
    if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
    for (const person of people) await person.home.cleanup();
    await serverHome.cleanup();
  }
}
