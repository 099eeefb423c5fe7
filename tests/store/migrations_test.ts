/**
 * The schema is kept per area (agent/schema.ts, perception/schema.ts, docs/schema.ts,
 * telemetry/schema.ts, team/schema.ts) and put in one numbered list. A shipped migration is
 * never edited: stores made by every earlier version ran these exact steps, and one made at any
 * earlier step opens and ends with the same schema as a new store.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { AGENT_MIGRATIONS } from "../../src/store/agent/schema.ts";
import { appliedMigrations, migrate, openDatabase } from "../../src/store/database.ts";
import { DOCS_MIGRATIONS } from "../../src/store/docs/schema.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { PERCEPTION_MIGRATIONS } from "../../src/store/perception/schema.ts";
import { TEAM_MIGRATIONS } from "../../src/store/team/schema.ts";
import { TELEMETRY_MIGRATIONS } from "../../src/store/telemetry/schema.ts";

/** SHA-256 of each shipped migration's SQL, as it shipped. A new migration adds its line. */
const SHIPPED: Record<number, string> = {
  1: "28e9853f8d4d1594b51cc4157850739c1f9ab3cccf70a96891547539ba1fa314",
  2: "3515742e90ced4be5aceb0de0e169d784704a27ab7d9b97c8d39a22356e5621f",
  3: "71cb276d93516cc9189afa25061d654a345c5ecf2faa2306b7275ad0c203dc28",
  10: "8c82f943a3788153156362506e2e80316aab8ae91364ecc348c81847d8171091",
  11: "73e3fd2fbb65510dd13459a41c75c039b9332820d5544cd8611342033b8277e3",
  12: "c552e4c7bffcaa53441b4e21eaec80698bbfa1287da5c80d3a58a90494bbcdde",
  13: "cea1d13c8ca46817ca38df19a0f7328a2e5231a2a25092df3ddfcbf58e996d8e",
  14: "fcf144b0b9870e0692bd2dc2c47fbaf53f5a1efd4993353be4683749e31a7dea",
  15: "4e19ac222cb04fa443273e49f92a28cadb7adf548f8ca1462b0445eb3ebd13d1",
  16: "718b23fcd2f3515ba27ed022591c9d3f794af5b28ad81063f086cd40967573ae",
  17: "4941362812587d2b19ab9646d9011dea10975691bb2f0ef0627f6abb4a4fa678",
  18: "2fc42e7fb7c40f7f04843bcfa35eb37ee0bc28392458f7d9a7d5e0722764f82c",
  19: "c582c4352d7152773b4e8c574b1cb58302c4f4a368a7b629d02152f1095c26a6",
  20: "cae064bb456cb60832bef6440440ceff9db9afe8819fd0b0ea36d1a0c52064bc",
  21: "fe77258c1b0deb0f7a47886e652fab2c43414e45a168df70bc84332d607915c5",
  22: "8d714af5a39cf32da24cd610fc6631678777c2d909f6a3e22969030ed88df14b",
  23: "229f1550171cefbb121fe4cc624de0f147dd7b45972701f57039454de4f65565",
  24: "26482f7ef361de46e0d788423fc59eedc1a42ddd37f954489028b42274ed3d1b",
};

Deno.test("every shipped migration is the same text it shipped as, in one ordered list", () => {
  const versions = MIGRATIONS.map((step) => step.version);
  assert.deepEqual(versions, [...new Set(versions)].sort((a, b) => a - b));
  for (const [version, digest] of Object.entries(SHIPPED)) {
    const step = MIGRATIONS.find((candidate) => candidate.version === Number(version));
    assert.ok(step !== undefined, `migration ${version} is gone`);
    assert.equal(createHash("sha256").update(step.sql).digest("hex"), digest, step.name);
  }
  // Each area's steps are its own; the one store-wide step is the settings table.
  const areas = [
    AGENT_MIGRATIONS,
    PERCEPTION_MIGRATIONS,
    DOCS_MIGRATIONS,
    TELEMETRY_MIGRATIONS,
    TEAM_MIGRATIONS,
  ].map((list) => list.map((step) => step.version));
  assert.deepEqual(areas, [[2, 15, 16, 17, 23], [3], [10, 11, 12, 13, 14, 19, 20, 24], [18, 21], [
    22,
  ]]);
  assert.deepEqual(
    versions.filter((version) => !areas.flat().includes(version)),
    [1],
  );
});

/** The schema of a database: every table, index and trigger's SQL, by name. */
function schemaOf(db: DatabaseSync): Array<{ name: string; sql: string }> {
  return db.prepare(
    `SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND name <> 'schema_migrations'
     ORDER BY name`,
  ).all().map((row) => ({ name: String(row.name), sql: String(row.sql) }));
}

Deno.test("a store made at any earlier step opens and ends with a new store's schema", async () => {
  const folder = await Deno.makeTempDir({ prefix: "vantage-migrations-" });
  try {
    const fresh = openDatabase(join(folder, "fresh.db"));
    const expected = schemaOf(fresh);
    fresh.close();
    for (const last of MIGRATIONS.map((step) => step.version).slice(0, -1)) {
      const path = join(folder, `at-${last}.db`);
      // What a version that shipped up to `last` left behind.
      const old = new DatabaseSync(path);
      migrate(old, MIGRATIONS.filter((step) => step.version <= last));
      old.close();
      const reopened = openDatabase(path);
      assert.deepEqual(appliedMigrations(reopened), MIGRATIONS.map((step) => step.version));
      assert.deepEqual(schemaOf(reopened), expected, `a store made at migration ${last}`);
      reopened.close();
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
