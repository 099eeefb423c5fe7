import assert from "node:assert/strict";
import { join } from "node:path";
import { migrate, openDatabase, schemaVersion, transaction } from "../../src/store/database.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";

Deno.test("open creates the file in WAL mode with foreign keys and the full schema", async () => {
  const dir = await Deno.makeTempDir();
  const db = openDatabase(join(dir, "nested", "v.db"));
  try {
    assert.equal(
      (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
      "wal",
    );
    assert.equal(
      (db.prepare("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys,
      1,
    );
    assert.equal((db.prepare("PRAGMA busy_timeout").get() as { timeout: number }).timeout, 5000);
    assert.equal(schemaVersion(db), MIGRATIONS[MIGRATIONS.length - 1].version);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migrations apply once, in order, and a failing one rolls back", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "m.db");
  const steps = [
    { version: 1, name: "a", sql: "CREATE TABLE a (x INTEGER)" },
    { version: 2, name: "b", sql: "CREATE TABLE b (y INTEGER)" },
  ];
  const db = openDatabase(path, { migrations: steps });
  migrate(db, steps); // again: nothing to do
  assert.equal(schemaVersion(db), 2);
  assert.throws(
    () =>
      migrate(db, [...steps, { version: 3, name: "broken", sql: "CREATE TABLE c (; nonsense" }]),
    /migration 3 \(broken\) failed/,
  );
  assert.equal(schemaVersion(db), 2);
  db.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("read-only connections cannot write, and a missing file is a clear error", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "r.db");
  const writer = openDatabase(path);
  writer.exec("INSERT INTO store_meta (key, value) VALUES ('k', 'v')");
  const reader = openDatabase(path, { readOnly: true });
  assert.throws(() => reader.exec("DELETE FROM store_meta"), /readonly/);
  assert.equal(
    (reader.prepare("SELECT value FROM store_meta").get() as { value: string }).value,
    "v",
  );
  reader.close();
  writer.close();
  assert.throws(
    () => openDatabase(join(dir, "absent.db"), { readOnly: true }),
    /cannot open the database/,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a second process reads while this one holds a write transaction", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "c.db");
  const db = openDatabase(path);
  db.exec("INSERT INTO store_meta (key, value) VALUES ('committed', '1')");
  db.exec("BEGIN IMMEDIATE");
  db.exec("INSERT INTO store_meta (key, value) VALUES ('pending', '2')");
  const script = `
    import { openDatabase } from ${
    JSON.stringify(new URL("../../src/store/database.ts", import.meta.url).href)
  };
    const db = openDatabase(${JSON.stringify(path)}, { busyTimeoutMs: 200 });
    const rows = db.prepare("SELECT key FROM store_meta ORDER BY key").all().map((r) => r.key);
    console.log(JSON.stringify(rows));
    db.close();
  `;
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  db.exec("COMMIT");
  assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
  // The reader saw the committed row and did not wait for, or see, the pending one.
  assert.deepEqual(JSON.parse(new TextDecoder().decode(child.stdout)), ["committed"]);
  transaction(db, () => db.exec("INSERT INTO store_meta (key, value) VALUES ('t', '3')"));
  assert.throws(() =>
    transaction(db, () => {
      db.exec("INSERT INTO store_meta (key, value) VALUES ('u', '4')");
      throw new Error("boom");
    }), /boom/);
  assert.equal(db.prepare("SELECT count(*) AS n FROM store_meta WHERE key = 'u'").get()!.n, 0);
  db.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("migration families numbered apart both apply, whatever order they arrive in", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "f.db");
  const db = openDatabase(path, {
    migrations: [{ version: 10, name: "docs", sql: "CREATE TABLE d (x)" }],
  });
  migrate(db, [
    { version: 2, name: "agent", sql: "CREATE TABLE a (x)" },
    { version: 10, name: "docs", sql: "CREATE TABLE d (x)" },
  ]);
  const tables = db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'd')",
  ).all();
  assert.equal(tables.length, 2);
  assert.throws(
    () => migrate(db, [{ version: 2, name: "x", sql: "" }, { version: 2, name: "y", sql: "" }]),
    /twice/,
  );
  db.close();
  await Deno.remove(dir, { recursive: true });
});
