/**
 * A query reads only the tables it is given, enforced by SQLite's
 * authorizer in the query connection: over a real migrated store holding a
 * document and an agent session, every way a `sql:read`-only query could
 * reach a document byte (directly, through a CTE, subquery, UNION, join,
 * view, pragma, dbstat, ATTACH of the index file, file functions) is
 * refused, and nothing it returns carries the document's text. The same
 * queries with the document tables given do return that text, so the
 * refusals are the guard's and not an empty store's.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { VantageError } from "../../../src/core/errors.ts";
import { openDatabase } from "../../../src/store/database.ts";
import { QUERY_TABLES, readableTables } from "../../../src/store/query/query_tables.ts";
import { QueryRunner } from "../../../src/store/query/readonly_query.ts";
import {
  answerQuery,
  openQueryConnection,
  type QueryAnswer,
  restrictQuery,
} from "../../../src/store/query/readonly_query_process.ts";

const DOC_TEXT = "quokka-document-bytes-7731";
const AGENT_TEXT = "wombat-session-title-4412";
const INDEX_TEXT = "numbat-index-term-9050";

/** The tables each scope set opens. */
const SQL_ONLY = readableTables(() => false);
const WITH_AGENT = readableTables((scope) => scope === "agent:read");
const WITH_DOCS = readableTables((scope) => scope === "docs:read");
const WITH_BOTH = readableTables(() => true);

interface Store {
  folder: string;
  path: string;
  remove(): Promise<void>;
}

/** A migrated store with one document (text in every docs table that holds text) and one session. */
async function seededStore(): Promise<Store> {
  const folder = await Deno.makeTempDir({ prefix: "vantage-scope-" });
  const path = join(folder, "vantage.db");
  const db = openDatabase(path);
  const body = new TextEncoder().encode(`\u0000${DOC_TEXT} and the rest of the document`);
  db.exec("BEGIN");
  db.prepare(
    "INSERT INTO docs_chunks (hash, size, stored_size, ref_count, data) VALUES ('c1', ?, ?, 1, ?)",
  ).run(body.length, body.length, body);
  db.prepare(
    "INSERT INTO docs_contents (hash, size, chunk_count, created_at) VALUES ('h1', ?, 1, 0)",
  ).run(body.length);
  db.exec(
    "INSERT INTO docs_content_chunks VALUES ('h1', 0, 'c1', 0, 1)",
  );
  db.prepare(
    `INSERT INTO docs_documents (id, hash, path, relative_path, name, extension, mime, is_text, size,
       title, created_at, modified_at, indexed_at) VALUES (1, 'h1', ?, 'notes.md', 'notes.md', 'md',
       'text/markdown', 1, ?, ?, 0, 0, 0)`,
  ).run(`/notes/${DOC_TEXT}.md`, body.length, DOC_TEXT);
  db.prepare("INSERT INTO docs_tags VALUES (1, ?)").run(DOC_TEXT);
  db.prepare("INSERT INTO docs_metadata VALUES (1, 'note', ?)").run(DOC_TEXT);
  db.prepare("INSERT INTO docs_vectors (document_id, seq, model, vector) VALUES (1, 0, 'm', ?)")
    .run(new TextEncoder().encode(DOC_TEXT));
  db.prepare("INSERT INTO docs_graph_nodes VALUES (1, 'n1', 'function', ?, 1, NULL)").run(DOC_TEXT);
  db.prepare("INSERT INTO docs_graph_edges VALUES (1, 'n1', ?, 'CALLS', 2)").run(DOC_TEXT);
  db.exec("INSERT INTO docs_index_queue (document_id, op) VALUES (1, 1)");
  db.prepare(
    "INSERT INTO sessions (session_id, agent, started_at, last_activity_at, title) VALUES ('s1', 'codex', 0, 0, ?)",
  ).run(AGENT_TEXT);
  db.prepare(
    `INSERT INTO messages (session_id, agent, message_key, ts, role, message_type, text)
     VALUES ('s1', 'codex', 'm1', 0, 'user', 'text', ?)`,
  ).run(AGENT_TEXT);
  db.exec("COMMIT");
  db.close();
  // The document search index lives in its own file beside the store.
  const index = new DatabaseSync(join(folder, "docs-index.db"));
  index.exec("CREATE TABLE docs_terms (term TEXT)");
  index.prepare("INSERT INTO docs_terms VALUES (?)").run(INDEX_TEXT);
  index.close();
  return { folder, path, remove: () => Deno.remove(folder, { recursive: true }) };
}

function ask(db: DatabaseSync, sql: string, tables: readonly string[]): QueryAnswer {
  return JSON.parse(
    answerQuery(db, { id: 1, sql, tables, rowLimit: 100, cellChars: 2000, maxAnswerChars: 1e6 }),
  );
}

/** The rows of an answer that must have succeeded. */
function rowsOf(answer: QueryAnswer, sql: string): unknown[][] {
  assert.ok("result" in answer, `${sql}: ${JSON.stringify(answer)}`);
  return answer.result.rows;
}

/** The refusal of an answer that must have failed, checked to carry no stored text. */
function refusalOf(answer: QueryAnswer, sql: string) {
  assert.ok("error" in answer, `${sql} was answered: ${JSON.stringify(answer).slice(0, 300)}`);
  const text = JSON.stringify(answer);
  for (const secret of [DOC_TEXT, AGENT_TEXT, INDEX_TEXT]) {
    assert.ok(!text.includes(secret), `${sql}: the refusal carries stored text: ${text}`);
  }
  return answer.error;
}

/** Queries that would read a document byte, each a different way in. */
const DOCUMENT_READS: Array<[sql: string, table: string]> = [
  // What main answered before this guard, with only sql:read.
  ["SELECT CAST(substr(data,2,200) AS TEXT) FROM docs_chunks", "docs_chunks"],
  ["SELECT * FROM main.docs_chunks", "docs_chunks"],
  ["SELECT title, path FROM docs_documents", "docs_documents"],
  ["SELECT CAST(vector AS TEXT) FROM docs_vectors", "docs_vectors"],
  ["SELECT name FROM docs_graph_nodes", "docs_graph_nodes"],
  ["SELECT dst FROM docs_graph_edges", "docs_graph_edges"],
  ["SELECT tag FROM docs_tags", "docs_tags"],
  ["SELECT value FROM docs_metadata", "docs_metadata"],
  [
    "WITH c AS (SELECT data FROM docs_chunks) SELECT CAST(substr(data, 2) AS TEXT) FROM c",
    "docs_chunks",
  ],
  [
    "WITH RECURSIVE r(n, t) AS (SELECT 0, '' UNION ALL SELECT n + 1, (SELECT title FROM docs_documents) FROM r WHERE n < 1) SELECT t FROM r",
    "docs_documents",
  ],
  ["SELECT (SELECT CAST(data AS TEXT) FROM docs_chunks LIMIT 1)", "docs_chunks"],
  [
    "SELECT version FROM schema_migrations WHERE EXISTS (SELECT 1 FROM docs_documents WHERE title LIKE 'q%')",
    "docs_documents",
  ],
  [
    "SELECT name FROM schema_migrations UNION ALL SELECT title FROM docs_documents",
    "docs_documents",
  ],
  [
    "SELECT d.title FROM schema_migrations m JOIN docs_documents d ON d.id = m.version",
    "docs_documents",
  ],
  ["SELECT value FROM json_each((SELECT json_group_array(tag) FROM docs_tags))", "docs_tags"],
  ["SELECT count(*) FROM docs_chunks", "docs_chunks"],
  // A CTE counted without its columns passes; a stored table beside it does not.
  ["WITH c AS (SELECT 1) SELECT count(*) FROM c, docs_chunks", "docs_chunks"],
  ["SELECT 1 FROM docs_documents LIMIT 1", "docs_documents"],
  ["SELECT * FROM pragma_table_info('docs_chunks')", "docs_chunks"],
  ["SELECT * FROM pragma_index_list('DOCS_DOCUMENTS')", "docs_documents"],
  // dbstat lists every page of the file with its payload: no scope opens it.
  ["SELECT * FROM dbstat", "dbstat"],
  ["SELECT name, payload FROM dbstat('main') WHERE name = 'docs_chunks'", "dbstat"],
];

Deno.test("sql:read alone: every way to a document byte is refused, and the schema stays readable", async () => {
  const store = await seededStore();
  const db = openQueryConnection(store.path);
  try {
    for (const [sql, table] of DOCUMENT_READS) {
      const refusal = refusalOf(ask(db, sql, SQL_ONLY), sql);
      assert.equal(refusal.kind, "forbidden", `${sql}: ${refusal.message}`);
      assert.equal(refusal.table, table, sql);
      assert.match(refusal.message, new RegExp(`^query refused: it reads ${table}`), sql);
    }
    // Every table that needs docs:read, read whole and counted.
    const documentTables = QUERY_TABLES.filter((t) =>
      t.scopes.includes("docs:read") && t.postgresOnly !== true
    );
    for (const { name } of documentTables) {
      for (const sql of [`SELECT * FROM ${name}`, `SELECT count(*) FROM ${name}`]) {
        assert.equal(refusalOf(ask(db, sql, SQL_ONLY), sql).table, name, sql);
      }
    }
    const otherWays: Array<[string, RegExp]> = [
      ["SELECT * FROM sqlite_dbpage", /no such table: sqlite_dbpage|sqlite_dbpage/],
      [`SELECT readfile('${store.folder}/docs-index.db')`, /readfile/],
      ["SELECT load_extension('/tmp/nothing')", /load_extension/],
      [`ATTACH DATABASE '${store.folder}/docs-index.db' AS idx`, /starts with 'ATTACH'/],
      ["SELECT * FROM pragma_compile_options", /the pragma compile_options is not available/],
      ["SELECT * FROM pragma_table_info", /table_info/],
      ["WITH x AS (SELECT 1) DELETE FROM docs_chunks RETURNING data", /DELETE is not allowed/],
      ["SELECT title FROM sessions", /it reads sessions\.title/],
    ];
    for (const [sql, message] of otherWays) {
      assert.match(refusalOf(ask(db, sql, SQL_ONLY), sql).message, message, sql);
    }

    // The catalog shows definitions, never rows.
    const schema = ask(db, "SELECT type, name, tbl_name, sql FROM sqlite_master", SQL_ONLY);
    const names = rowsOf(schema, "sqlite_master").map((row) => row[1]);
    assert.ok(names.includes("docs_chunks") && names.includes("sessions"));
    for (const secret of [DOC_TEXT, AGENT_TEXT]) {
      assert.ok(!JSON.stringify(schema).includes(secret));
    }
    assert.ok(rowsOf(ask(db, "SELECT * FROM sqlite_schema", SQL_ONLY), "sqlite_schema").length > 0);
    const columns = ask(db, "SELECT name FROM pragma_table_info('schema_migrations')", SQL_ONLY);
    assert.deepEqual(rowsOf(columns, "pragma_table_info"), [["version"], ["name"], ["applied_at"]]);
    assert.deepEqual(
      rowsOf(ask(db, "SELECT max(version) >= 14 FROM schema_migrations", SQL_ONLY), "migrations"),
      [[1]],
    );
    // What reads only the statement itself still works: CTEs, counts over them, json_each.
    const counted = ask(
      db,
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT count(*) FROM c",
      SQL_ONLY,
    );
    assert.deepEqual(rowsOf(counted, "recursive count"), [[5]]);
    assert.deepEqual(
      rowsOf(ask(db, "SELECT sum(value) FROM json_each('[1,2,3]')", SQL_ONLY), "json_each"),
      [[6]],
    );
    assert.deepEqual(rowsOf(ask(db, "SELECT count(*) FROM (SELECT 1)", SQL_ONLY), "subquery"), [[
      1,
    ]]);
  } finally {
    db.close();
    await store.remove();
  }
});

Deno.test("each scope opens its own tables: agent:read the sessions, docs:read the documents, both both", async () => {
  const store = await seededStore();
  const db = openQueryConnection(store.path);
  const sessions = "SELECT title FROM sessions";
  const chunks = "SELECT CAST(substr(data, 2, 200) AS TEXT) FROM docs_chunks";
  const joined =
    "SELECT s.title, d.title FROM sessions s JOIN docs_documents d ON s.session_id = 's1'";
  try {
    assert.deepEqual(rowsOf(ask(db, sessions, WITH_AGENT), sessions), [[AGENT_TEXT]]);
    assert.equal(refusalOf(ask(db, chunks, WITH_AGENT), chunks).table, "docs_chunks");
    assert.equal(refusalOf(ask(db, joined, WITH_AGENT), joined).table, "docs_documents");

    const text = rowsOf(ask(db, chunks, WITH_DOCS), chunks)[0][0] as string;
    assert.ok(text.startsWith(DOC_TEXT), text);
    assert.equal(refusalOf(ask(db, sessions, WITH_DOCS), sessions).table, "sessions");
    assert.equal(refusalOf(ask(db, joined, WITH_DOCS), joined).table, "sessions");
    const indexed = "SELECT seq FROM sqlite_sequence WHERE name = 'docs_index_queue'";
    assert.equal(refusalOf(ask(db, indexed, WITH_DOCS), indexed).table, "sqlite_sequence");

    assert.deepEqual(rowsOf(ask(db, joined, WITH_BOTH), joined), [[AGENT_TEXT, DOC_TEXT]]);
    assert.deepEqual(rowsOf(ask(db, indexed, WITH_BOTH), indexed), [[1]]);
    // The bypasses refused above do reach the text once the tables are given.
    for (const [sql] of DOCUMENT_READS.filter(([, table]) => table !== "dbstat")) {
      rowsOf(ask(db, sql, WITH_DOCS), sql);
    }
    const cte = DOCUMENT_READS.find(([sql]) => sql.startsWith("WITH c AS"))![0];
    assert.ok(JSON.stringify(ask(db, cte, WITH_DOCS)).includes(DOC_TEXT));
  } finally {
    db.close();
    await store.remove();
  }
});

Deno.test("a view does not open the tables under it, even when the view itself is given", async () => {
  const store = await seededStore();
  // A view a future migration might add, over document bytes.
  const writer = new DatabaseSync(store.path);
  writer.exec(`
    CREATE VIEW chunk_text AS SELECT CAST(substr(data, 2, 200) AS TEXT) AS text FROM docs_chunks;
    CREATE VIEW document_count AS SELECT count(*) AS n FROM docs_documents;
  `);
  writer.close();
  const db = openQueryConnection(store.path);
  try {
    const withViews = [...SQL_ONLY, "chunk_text", "document_count"];
    const text = refusalOf(ask(db, "SELECT text FROM chunk_text", withViews), "chunk_text");
    assert.equal(text.kind, "forbidden");
    assert.equal(text.table, "docs_chunks");
    assert.match(text.message, /it reads docs_chunks\.data \(through chunk_text\)/);
    const count = refusalOf(ask(db, "SELECT n FROM document_count", withViews), "document_count");
    assert.equal(count.table, "docs_documents");
    // Not given at all, the view is refused as itself or by what it reads.
    assert.equal(
      refusalOf(ask(db, "SELECT * FROM chunk_text", SQL_ONLY), "chunk_text").kind,
      "forbidden",
    );
    // Given its tables, the view reads: the refusals above are the guard's.
    const allowed = ask(db, "SELECT text FROM chunk_text", [...WITH_DOCS, "chunk_text"]);
    assert.ok((rowsOf(allowed, "chunk_text")[0][0] as string).startsWith(DOC_TEXT));
  } finally {
    db.close();
    await store.remove();
  }
});

Deno.test("the authorizer itself refuses ATTACH, writes that would fire a trigger, and pragmas", async () => {
  const store = await seededStore();
  // A writable connection, so only the authorizer stands between these statements and the file.
  const db = new DatabaseSync(store.path);
  try {
    db.exec(`CREATE TABLE copied (text TEXT);
      CREATE TRIGGER leak AFTER INSERT ON store_meta
      BEGIN INSERT INTO copied SELECT CAST(data AS TEXT) FROM docs_chunks; END;`);
    const refused = restrictQuery(db, WITH_BOTH);
    assert.throws(
      () => db.exec(`ATTACH DATABASE '${store.folder}/docs-index.db' AS idx`),
      /not authorized/,
    );
    assert.deepEqual(refused(), { what: "action", name: "ATTACH" });

    const again = restrictQuery(db, [...WITH_BOTH, "copied"]);
    assert.throws(() => db.prepare("INSERT INTO store_meta VALUES ('k', 'v')"), /not authorized/);
    assert.deepEqual(again(), { what: "action", name: "INSERT" });

    const pragma = restrictQuery(db, WITH_BOTH);
    assert.throws(() => db.prepare("PRAGMA query_only = 0"), /not authorized/);
    assert.deepEqual(pragma(), { what: "pragma", name: "query_only" });
    restrictQuery(db, []);
    assert.throws(() => db.prepare("SELECT text FROM copied"), /prohibited/);
  } finally {
    db.close();
  }
  const check = new DatabaseSync(store.path, { readOnly: true });
  try {
    assert.equal(check.prepare("SELECT count(*) AS n FROM copied").get()?.n, 0);
    assert.equal(check.prepare("SELECT count(*) AS n FROM store_meta").get()?.n, 0);
  } finally {
    check.close();
    await store.remove();
  }
});

Deno.test("through a real query process, a refused table is forbidden and named", async () => {
  const store = await seededStore();
  const runner = new QueryRunner({ databasePath: store.path, timeoutMs: 20_000 });
  const caps = { rowLimit: 10, cellChars: 500 };
  try {
    const error = await runner.run(DOCUMENT_READS[0][0], { ...caps, tables: SQL_ONLY }).then(
      () => assert.fail("the document was read"),
      (error) => error,
    );
    assert.ok(error instanceof VantageError, String(error));
    assert.equal(error.kind, "forbidden");
    assert.deepEqual(error.details, { table: "docs_chunks" });
    assert.ok(!error.message.includes(DOC_TEXT));
    // The same process, asked by a caller given the table, reads it: each request has its own guard.
    const grid = await runner.run(DOCUMENT_READS[0][0], { ...caps, tables: WITH_DOCS });
    assert.ok(String(grid.rows[0][0]).startsWith(DOC_TEXT));
    const after = await runner.run("SELECT title FROM docs_documents", {
      ...caps,
      tables: WITH_AGENT,
    }).then(() => "answered", (error) => (error as VantageError).kind);
    assert.equal(after, "forbidden", "a later request does not inherit the earlier one's tables");
    assert.equal(runner.pids.length, 1);
  } finally {
    await runner.close();
    await store.remove();
  }
});
