/**
 * The caller's scopes reach the SQL it runs, end to end: the real `vantage
 * serve` (shipped permissions, real port) answers /api/query per
 * X-Vantage-Scopes, the real `mcp-serve --scopes` answers exec_query the
 * same way, and so does `vantage call --scopes`. With `sql:read` alone no
 * document byte comes back by any route that `docs.get` refuses; each of
 * `agent:read` and `docs:read` opens its own tables and only those.
 */
import assert from "node:assert/strict";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";
import { startServe } from "../helpers/serve_process.ts";

const DOC_TEXT = "quokka-pouch-notes-5521";
const CHUNK_TEXT = "SELECT CAST(substr(data, 2, 200) AS TEXT) AS text FROM docs_chunks";
const SESSIONS = "SELECT count(*) FROM sessions";
const BOTH = "SELECT (SELECT count(*) FROM sessions), (SELECT title FROM docs_documents LIMIT 1)";

interface Answer {
  status: number;
  text: string;
  body: {
    rows?: unknown[][];
    result?: Record<string, unknown>;
    error?: { kind: string; message: string; details?: Record<string, unknown> };
    operation_error?: { message: string; details?: Record<string, unknown> };
  };
}

async function post(url: string, body: unknown, scopes?: string): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(scopes === undefined ? {} : { "x-vantage-scopes": scopes }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

/** Asserts a 403 that names `table` and the scope to ask for, and carries no document text. */
function assertForbidden(answer: Answer, table: string, scope: string | undefined, what: string) {
  assert.equal(answer.status, 403, `${what}: ${answer.text}`);
  assert.equal(answer.body.error?.kind, "forbidden", what);
  assert.match(answer.body.error?.message ?? "", new RegExp(`it reads ${table}`), what);
  if (scope !== undefined) {
    assert.match(
      answer.body.error?.message ?? "",
      new RegExp(`needs scope ${scope} besides sql:read, which the caller lacks; ask for ${scope}`),
      what,
    );
  }
  assert.ok(!answer.text.includes(DOC_TEXT), `${what} carried the document: ${answer.text}`);
}

Deno.test("serve, mcp-serve and the CLI: SQL sees only what the caller's scopes open", async (t) => {
  const home = await makeAgentHome();
  const ingest = await runVantage(["ingest"], { env: home.env });
  assert.equal(ingest.code, 0, ingest.stderr);
  const server = await startServe(home);
  const query = (sql: string, scopes?: string) => post(`${server.url}/api/query`, { sql }, scopes);
  let documentId = 0;
  try {
    await t.step("a document is stored, and sessions are there", async () => {
      const added = await post(`${server.url}/api/ops/docs.add`, {
        content: `${DOC_TEXT}: the pouch opens backwards.`,
        name: "notes/quokka.md",
        tags: ["private"],
      });
      assert.equal(added.status, 200, added.text);
      const got = await post(`${server.url}/api/ops/docs.list`, {});
      assert.equal(got.status, 200, got.text);
      documentId = ((got.body.result?.documents ?? []) as Array<{ id: number }>)[0]?.id ?? 0;
      assert.ok(documentId > 0, got.text);
      const all = await query(CHUNK_TEXT);
      assert.equal(all.status, 200, all.text);
      assert.ok(all.text.includes(DOC_TEXT), "the local caller, with every scope, reads it");
      const sessions = await query(SESSIONS);
      assert.ok(Number(sessions.body.rows?.[0][0]) >= 3, sessions.text);
    });

    await t.step(
      "sql:read alone: docs.get is 403 and so is every SQL way to its bytes",
      async () => {
        const get = await post(`${server.url}/api/ops/docs.get`, { id: documentId }, "sql:read");
        assert.equal(get.status, 403, get.text);
        assertForbidden(await query(CHUNK_TEXT, "sql:read"), "docs_chunks", "docs:read", "chunks");
        const ways: Array<[string, string]> = [
          ["SELECT title, path FROM docs_documents", "docs_documents"],
          [
            "WITH c AS (SELECT data FROM docs_chunks) SELECT CAST(data AS TEXT) FROM c",
            "docs_chunks",
          ],
          [
            "SELECT name FROM schema_migrations UNION ALL SELECT tag FROM docs_tags",
            "docs_tags",
          ],
          ["SELECT * FROM pragma_table_info('docs_chunks')", "docs_chunks"],
        ];
        for (const [sql, table] of ways) {
          assertForbidden(await query(sql, "sql:read"), table, "docs:read", sql);
        }
        assertForbidden(await query(SESSIONS, "sql:read"), "sessions", "agent:read", "sessions");
        const dbstat = await query("SELECT name, payload FROM dbstat", "sql:read");
        assertForbidden(dbstat, "dbstat", undefined, "dbstat");
        assert.match(dbstat.body.error?.message ?? "", /no scope opens dbstat to queries/);
        const attach = await query(
          `ATTACH DATABASE '${home.dataHome}/docs-index.db' AS idx`,
          "sql:read",
        );
        assert.equal(attach.status, 400, attach.text);
        // The schema stays readable, and carries definitions, not bytes.
        const schema = await query("SELECT name, sql FROM sqlite_master", "sql:read");
        assert.equal(schema.status, 200, schema.text);
        assert.ok(schema.text.includes("docs_chunks") && !schema.text.includes(DOC_TEXT));
        // Through the executor's own route the refusal is the same 403.
        const op = await post(
          `${server.url}/api/ops/agent.exec_query`,
          { sql: CHUNK_TEXT },
          "sql:read",
        );
        assert.equal(op.status, 403, op.text);
        assert.equal(op.body.operation_error?.details?.kind, "forbidden");
        assert.deepEqual(op.body.operation_error?.details?.missing_scopes, ["docs:read"]);
        assert.ok(!op.text.includes(DOC_TEXT));
      },
    );

    await t.step("agent:read opens the sessions, not the documents", async () => {
      const sessions = await query(SESSIONS, "sql:read,agent:read");
      assert.equal(sessions.status, 200, sessions.text);
      assert.ok(Number(sessions.body.rows?.[0][0]) >= 3);
      assertForbidden(
        await query(CHUNK_TEXT, "sql:read,agent:read"),
        "docs_chunks",
        "docs:read",
        "",
      );
      assertForbidden(await query(BOTH, "sql:read,agent:read"), "docs_documents", "docs:read", "");
    });

    await t.step("docs:read opens the documents, not the sessions", async () => {
      const chunks = await query(CHUNK_TEXT, "sql:read,docs:read");
      assert.equal(chunks.status, 200, chunks.text);
      assert.ok(chunks.text.includes(DOC_TEXT));
      assertForbidden(await query(SESSIONS, "sql:read,docs:read"), "sessions", "agent:read", "");
      assertForbidden(await query(BOTH, "sql:read,docs:read"), "sessions", "agent:read", "");
    });

    await t.step("both open both; docs:* counts as docs:read", async () => {
      const both = await query(BOTH, "sql:read,agent:read,docs:read");
      assert.equal(both.status, 200, both.text);
      assert.ok(Number(both.body.rows?.[0][0]) >= 3);
      assert.equal(both.body.rows?.[0][1], "quokka.md");
      const wildcard = await query(CHUNK_TEXT, "sql:read,docs:*");
      assert.equal(wildcard.status, 200, wildcard.text);
      assert.ok(wildcard.text.includes(DOC_TEXT));
    });

    await t.step("mcp-serve --scopes: exec_query refuses and opens the same tables", async () => {
      const narrow = await connectStdio(["--surface", "full", "--scopes", "sql:read"], {
        home: home.dataHome,
        env: { HOME: home.home },
      });
      try {
        const refused = await narrow.client.callTool({
          name: "exec_query",
          arguments: { sql: CHUNK_TEXT },
        });
        assert.equal(refused.isError, true);
        const text = JSON.stringify(refused);
        assert.ok(!text.includes(DOC_TEXT), text);
        const failure = textJson(refused).operation_error as {
          message: string;
          details: Record<string, unknown>;
        };
        assert.equal(failure.details.kind, "forbidden");
        assert.equal(failure.details.table, "docs_chunks");
        assert.deepEqual(failure.details.missing_scopes, ["docs:read"]);
        assert.match(failure.message, /needs scope docs:read besides sql:read/);
        const schema = await narrow.client.callTool({
          name: "exec_query",
          arguments: { sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'docs_%'" },
        });
        assert.notEqual(schema.isError, true, JSON.stringify(schema));
      } finally {
        await narrow.close();
      }
      const docs = await connectStdio(["--surface", "full", "--scopes", "sql:read,docs:read"], {
        home: home.dataHome,
        env: { HOME: home.home },
      });
      try {
        const read = await docs.client.callTool({
          name: "exec_query",
          arguments: { sql: CHUNK_TEXT },
        });
        assert.notEqual(read.isError, true, JSON.stringify(read));
        assert.ok(JSON.stringify(read).includes(DOC_TEXT));
        const sessions = await docs.client.callTool({
          name: "exec_query",
          arguments: { sql: SESSIONS },
        });
        assert.equal(sessions.isError, true);
        assert.match(JSON.stringify(sessions), /needs scope agent:read besides sql:read/);
      } finally {
        await docs.close();
      }
    });

    await t.step("vantage call --scopes: the same refusal on the CLI", async () => {
      const args = ["call", "agent.exec_query", JSON.stringify({ sql: CHUNK_TEXT })];
      const refused = await runVantage([...args, "--scopes", "sql:read"], { env: home.env });
      // The query's own refusal is kind forbidden: the same exit code as the executor's.
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(refused.stderr, /it reads docs_chunks.*needs scope docs:read/);
      assert.ok(!(refused.stdout + refused.stderr).includes(DOC_TEXT));
      const read = await runVantage([...args, "--scopes", "sql:read,docs:read"], { env: home.env });
      assert.equal(read.code, 0, read.stderr);
      assert.ok(read.stdout.includes(DOC_TEXT));
    });
  } finally {
    await server.stop();
    await home.cleanup();
  }
});
