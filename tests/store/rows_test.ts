/**
 * Typed row mappers: a reader gives back exactly the columns of its shape, in order, and a
 * query that drifts from its row type (a column missing, NULL where none may be, text where a
 * number belongs) fails at once, naming the row and the column.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { VantageError } from "../../src/core/errors.ts";
import { numberColumn, RowReader, textColumn } from "../../src/store/rows.ts";

interface Person {
  name: string;
  age: number | null;
  photo: Uint8Array | null;
}

const PERSON = new RowReader<Person>("person", { name: "text", age: "number?", photo: "bytes?" });

function table(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec(`CREATE TABLE people (name TEXT, age INTEGER, photo BLOB, note TEXT);
    INSERT INTO people VALUES ('Ada', 36, x'0102', 'first'), ('Alan', NULL, NULL, NULL);`);
  return db;
}

Deno.test("a reader reads its columns, in its order, and nothing else", () => {
  const db = table();
  const rows = PERSON.all(db.prepare("SELECT * FROM people ORDER BY name").all());
  assert.deepEqual(rows, [
    { name: "Ada", age: 36, photo: new Uint8Array([1, 2]) },
    { name: "Alan", age: null, photo: null },
  ]);
  assert.deepEqual(Object.keys(rows[0]), ["name", "age", "photo"]);
  assert.equal(PERSON.columns, "name, age, photo");
  assert.equal(PERSON.columnsOf("p"), "p.name, p.age, p.photo");
  assert.equal(PERSON.columnsOf("p", ["age"]), "p.name, p.photo");
  assert.equal(PERSON.optional(db.prepare("SELECT * FROM people WHERE 0").get()), undefined);
  db.close();
});

Deno.test("a row that does not fit its type fails, naming the row and the column", () => {
  const db = table();
  const fails = (sql: string, pattern: RegExp) => {
    assert.throws(
      () => PERSON.all(db.prepare(sql).all()),
      (error: unknown) =>
        error instanceof VantageError && error.kind === "internal_error" &&
        pattern.test(error.message),
      sql,
    );
  };
  fails("SELECT name, age FROM people", /person row has missing in column photo, not bytes\?/);
  fails(
    "SELECT note AS name, age, photo FROM people",
    /person row has NULL in column name, not text/,
  );
  fails("SELECT name, name AS age, photo FROM people", /person row has a string in column age/);
  fails("SELECT name, age, 7 AS photo FROM people", /column photo, not bytes\?/);
  assert.throws(
    () => PERSON.one(db.prepare("SELECT * FROM people WHERE 0").get()),
    /the store returned no person row/,
  );
  db.close();
});

Deno.test("single columns are read checked too", () => {
  const db = table();
  assert.deepEqual(
    numberColumn(db.prepare("SELECT age FROM people WHERE age IS NOT NULL").all(), "age"),
    [36],
  );
  assert.deepEqual(textColumn(db.prepare("SELECT name FROM people ORDER BY name").all(), "name"), [
    "Ada",
    "Alan",
  ]);
  assert.throws(() => numberColumn(db.prepare("SELECT age FROM people").all(), "age"), /NULL/);
  assert.throws(() => textColumn(db.prepare("SELECT age FROM people").all(), "name"), /missing/);
  db.close();
});
