/**
 * Store locations as `--store` and `VANTAGE_STORE` give them: SQLite by default, a PostgreSQL
 * URL checked for what a connection needs, every message with the password hidden; and the
 * network and environment serve's permissions open for it.
 */
import assert from "node:assert/strict";
import { resolvePaths } from "../../../src/core/config.ts";
import { permissionFlags, postgresTarget } from "../../../src/core/permissions.ts";
import { parseStoreLocation, redactStoreUrl } from "../../../src/store/postgres/store_url.ts";

/** A password the URLs below carry, which no message may show. */
const HIDDEN = "hunter2";

Deno.test("store location: nothing and 'sqlite' are the embedded default", () => {
  assert.deepEqual(parseStoreLocation(undefined), { kind: "sqlite" });
  assert.deepEqual(parseStoreLocation(""), { kind: "sqlite" });
  assert.deepEqual(parseStoreLocation("sqlite"), { kind: "sqlite" });
});

Deno.test("store location: a PostgreSQL URL with its parts and parameters", () => {
  const encoded = "s%40cret"; // "s@cret", percent-encoded as a URL carries it
  const given = `postgresql://team%20lead:${encoded}@db.internal:6543/vantage%5Fteam` +
    "?pool_size=20&statement_timeout=5000&connect_timeout=3&sslmode=require";
  assert.deepEqual(parseStoreLocation(given), {
    kind: "postgres",
    url: given,
    redacted: "postgresql://team%20lead:***@db.internal:6543/vantage%5Fteam" +
      "?pool_size=20&statement_timeout=5000&connect_timeout=3&sslmode=require",
    host: "db.internal",
    port: 6543,
    database: "vantage_team",
    user: "team lead",
    poolSize: 20,
    statementTimeoutMs: 5000,
    connectTimeoutS: 3,
  });
  const plain = parseStoreLocation("postgres://me@[::1]/team");
  assert.equal(plain.kind, "postgres");
  if (plain.kind === "postgres") assert.deepEqual([plain.host, plain.port], ["::1", 5432]);
});

Deno.test("store location: what is wrong is named, and the password never shown", () => {
  const wrong = (value: string, message: RegExp) =>
    assert.throws(
      () => parseStoreLocation(value, "VANTAGE_STORE"),
      (error: Error & { kind?: string }) => {
        assert.equal(error.kind, "invalid_arguments");
        assert.match(error.message, message);
        assert.ok(!error.message.includes(HIDDEN));
        return true;
      },
    );
  wrong(
    `mysql://me:${HIDDEN}@db/team`,
    /^VANTAGE_STORE mysql:\/\/me:\*\*\*@db\/team: unsupported scheme 'mysql'/,
  );
  wrong(`postgres://me:${HIDDEN}@db`, /the URL names no database/);
  wrong(`postgres://:${HIDDEN}@db/team`, /the URL names no user/);
  wrong(
    `postgres://me:${HIDDEN}@db/team?pool_size=0`,
    /'pool_size' must be a positive whole number; got '0'/,
  );
  wrong(`postgres://me:${HIDDEN}@db/team?statement_timeout=1.5`, /'statement_timeout' must be/);
  wrong(`postgres://me:${HIDDEN}@db/team?user=x`, /unknown parameter 'user'/);
  wrong(
    `postgres://me:${HIDDEN}@db:99999/team`,
    /^VANTAGE_STORE postgres:… \(unreadable\): not a URL/,
  );
  wrong("team.db", /^VANTAGE_STORE \(an unreadable value\): not a URL/);
  assert.equal(redactStoreUrl("postgres://me@db/team"), "postgres://me@db/team");
});

Deno.test("serve's permissions reach a PostgreSQL store's server and read the PG* variables", () => {
  assert.equal(postgresTarget("postgres://me@db.internal/team"), "db.internal:5432");
  assert.equal(postgresTarget("postgresql://me@10.0.0.7:6543/team"), "10.0.0.7:6543");
  assert.equal(postgresTarget("sqlite"), undefined);
  assert.equal(postgresTarget(undefined), undefined);
  const paths = { ...resolvePaths("/tmp/vantage-home/.vantage"), userHome: "/tmp/vantage-home" };
  const flags = (store?: string) =>
    permissionFlags("serve", paths, [], store).filter((f) => /^--allow-(net|env)=/.test(f));
  assert.deepEqual(flags("postgres://me@db.internal:6543/team"), [
    "--allow-net=127.0.0.1,localhost,db.internal:6543",
    "--allow-env=HOME,VANTAGE_*,PG*",
  ]);
  assert.deepEqual(flags(undefined), [
    "--allow-net=127.0.0.1,localhost",
    "--allow-env=HOME,VANTAGE_*",
  ]);
  assert.deepEqual(flags("sqlite"), [
    "--allow-net=127.0.0.1,localhost",
    "--allow-env=HOME,VANTAGE_*",
  ]);
  // Only serve talks to the store.
  assert.ok(
    permissionFlags("hook", paths, [], "postgres://me@db.internal/team").includes(
      "--allow-env=HOME,VANTAGE_*",
    ),
  );
});
