/**
 * The PostgreSQL query runner's reading of SQL text: the leading keyword past comments, the
 * first statement's end outside every kind of quoting PostgreSQL has, and the word that makes
 * a statement a write — each case one PostgreSQL itself reads the same way.
 */
import assert from "node:assert/strict";
import {
  leadingKeyword,
  splitFirstStatement,
  writeKeyword,
} from "../../../src/store/postgres/query/statement_text.ts";

Deno.test("the leading keyword skips spaces, line comments and nested block comments", () => {
  assert.equal(leadingKeyword("  select 1"), "SELECT");
  assert.equal(leadingKeyword("-- a note\n  with x as (select 1) select * from x"), "WITH");
  assert.equal(leadingKeyword("/* outer /* inner */ still outer */ values (1)"), "VALUES");
  assert.equal(leadingKeyword("/* unclosed"), "");
  assert.equal(leadingKeyword("(SELECT 1)"), "");
  assert.equal(leadingKeyword("SET ROLE postgres"), "SET");
});

Deno.test("the first statement ends at the first ';' outside quoting and comments", () => {
  const one: Array<[string, string]> = [
    ["SELECT 1", "SELECT 1"],
    ["SELECT 1;", "SELECT 1"],
    ["SELECT 1 ;  -- done\n ; /* and */", "SELECT 1 "],
    ["SELECT ';' AS semi", "SELECT ';' AS semi"],
    ["SELECT 'it''s; fine'", "SELECT 'it''s; fine'"],
    ["SELECT E'a\\'; b'", "SELECT E'a\\'; b'"],
    ['SELECT 1 AS "a;b"', 'SELECT 1 AS "a;b"'],
    ["SELECT $$ ; $$", "SELECT $$ ; $$"],
    ["SELECT $tag$ ; $$ ; $tag$", "SELECT $tag$ ; $$ ; $tag$"],
    ["SELECT 1 -- ; not here\n", "SELECT 1 -- ; not here\n"],
    ["SELECT 1 /* ; /* ; */ ; */", "SELECT 1 /* ; /* ; */ ; */"],
  ];
  for (const [sql, statement] of one) {
    assert.deepEqual(splitFirstStatement(sql), { statement, more: false }, sql);
  }
  const two = [
    "SELECT 1; SELECT 2",
    "SELECT 'a'; DELETE FROM sessions",
    "SELECT $$x$$; SET ROLE postgres",
    // A positional parameter is no dollar quote: the ';' after it ends the statement.
    "SELECT $1; COMMIT",
    // In a word, '$' is part of it: no quote opens.
    "SELECT a$b; RESET ROLE",
    // An E that ends a longer word does not make the string take backslashes.
    "SELECT name'\\'; RESET ROLE",
  ];
  for (const sql of two) assert.equal(splitFirstStatement(sql).more, true, sql);
});

Deno.test("the word that makes a statement a write, outside strings and quoted names", () => {
  assert.equal(writeKeyword("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x"), "DELETE");
  assert.equal(writeKeyword("with x as (update t set a = 1 returning 1) select 1"), "UPDATE");
  assert.equal(writeKeyword("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x"), "INSERT");
  assert.equal(writeKeyword("SELECT * INTO copied FROM t"), "SELECT INTO");
  assert.equal(writeKeyword("SELECT 'delete' AS word, \"update\" FROM t -- insert"), undefined);
  assert.equal(writeKeyword("SELECT deleted_at FROM t"), undefined);
  assert.equal(writeKeyword("SELECT 1"), undefined);
});
