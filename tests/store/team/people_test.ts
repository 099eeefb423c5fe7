/**
 * The team area through the store interface, on a real file: people are
 * added with the SHA-256 of a token (never the token), listed without it,
 * found by it, revoked (counted, so caches notice), and re-issued; the token
 * cache of a server sees a revocation or a new person written by another
 * connection on its very next lookup.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VantageError } from "../../../src/core/errors.ts";
import { type DatabaseSync, openDatabase } from "../../../src/store/database.ts";
import { sqliteStore } from "../../../src/store/store.ts";
import {
  isPersonToken,
  issuePersonToken,
  personTokenHash,
  PersonTokens,
} from "../../../src/team/mod.ts";

async function withStoreFile(run: (path: string) => void | Promise<void>): Promise<void> {
  const folder = await Deno.makeTempDir({ prefix: "vantage-team-" });
  try {
    await run(join(folder, "vantage.db"));
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

function kindOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof VantageError, String(error));
    return `${error.kind}: ${error.message}`;
  }
  return "no error";
}

Deno.test("tokens are random, prefixed, 32 bytes of base64url, and hashed for the store", () => {
  const tokens = new Set(Array.from({ length: 200 }, () => issuePersonToken()));
  assert.equal(tokens.size, 200);
  for (const token of tokens) {
    assert.ok(isPersonToken(token), token);
    assert.match(token, /^vtp_[A-Za-z0-9_-]{43}$/);
    const raw = atob(token.slice(4).replaceAll("-", "+").replaceAll("_", "/") + "=");
    assert.equal(raw.length, 32);
  }
  assert.match(personTokenHash("vtp_abc"), /^[0-9a-f]{64}$/);
  assert.notEqual(personTokenHash("vtp_abc"), personTokenHash("vtp_abd"));
  assert.equal(isPersonToken("0".repeat(64)), false);
  assert.equal(isPersonToken("vtp_short"), false);
});

Deno.test("people are stored with their token's hash only, listed without it, found by it", () =>
  withStoreFile((path) => {
    const db = openDatabase(path);
    try {
      const { team } = sqliteStore(db);
      const token = issuePersonToken();
      const ada = team.addPerson({
        name: "ada",
        role: "admin",
        token_hash: personTokenHash(token),
        created_at: 1_000,
      });
      assert.deepEqual(ada, { name: "ada", role: "admin", created_at: 1_000, revoked_at: null });
      team.addPerson({
        name: "bob",
        role: "member",
        token_hash: personTokenHash(issuePersonToken()),
        created_at: 2_000,
      });
      assert.deepEqual(team.listPeople().map((p) => `${p.name}:${p.role}`), [
        "ada:admin",
        "bob:member",
      ]);
      assert.equal(team.findPersonByTokenHash(personTokenHash(token))?.name, "ada");
      assert.equal(team.findPersonByTokenHash(personTokenHash(issuePersonToken())), undefined);
      // Nothing in the table is the token; the hash is.
      const rows = db.prepare("SELECT * FROM team_people").all();
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(token) && !text.includes(token.slice(4)), text);
      assert.ok(text.includes(personTokenHash(token)));
      // The engine holds the role to its two values and the names to one row each.
      assert.throws(
        () =>
          db.prepare(
            "INSERT INTO team_people (name, role, token_hash, created_at) VALUES ('eve', 'root', 'x', 1)",
          ).run(),
        /CHECK constraint failed/,
      );
      assert.match(
        kindOf(() =>
          team.addPerson({ name: "ada", role: "member", token_hash: "other", created_at: 3_000 })
        ),
        /^conflict: 'ada' already has a valid token; revoke it first/,
      );
    } finally {
      db.close();
    }
  }));

Deno.test("a revocation is recorded once, counted, and a revoked name can be issued again", () =>
  withStoreFile((path) => {
    const db = openDatabase(path);
    try {
      const { team } = sqliteStore(db);
      const first = issuePersonToken();
      team.addPerson({
        name: "bob",
        role: "member",
        token_hash: personTokenHash(first),
        created_at: 1,
      });
      assert.equal(team.revocationCount(), 0);
      assert.equal(team.revokePerson("bob", 5_000).revoked_at, 5_000);
      assert.equal(team.revocationCount(), 1);
      // Again: the first time stays, nothing more is counted.
      assert.equal(team.revokePerson("bob", 9_000).revoked_at, 5_000);
      assert.equal(team.revocationCount(), 1);
      assert.equal(team.findPersonByTokenHash(personTokenHash(first))?.revoked_at, 5_000);
      assert.match(kindOf(() => team.revokePerson("nobody", 1)), /^not_found: no person named/);
      const second = issuePersonToken();
      const again = team.addPerson({
        name: "bob",
        role: "admin",
        token_hash: personTokenHash(second),
        created_at: 10_000,
      });
      assert.deepEqual(again, { name: "bob", role: "admin", created_at: 10_000, revoked_at: null });
      assert.equal(team.findPersonByTokenHash(personTokenHash(first)), undefined);
      assert.equal(team.findPersonByTokenHash(personTokenHash(second))?.name, "bob");
    } finally {
      db.close();
    }
  }));

Deno.test("the token cache sees another connection's revocation and new person at once", () =>
  withStoreFile(async (path) => {
    const server: DatabaseSync = openDatabase(path);
    const admin: DatabaseSync = openDatabase(path);
    try {
      const tokens = new PersonTokens(sqliteStore(server).team);
      const other = sqliteStore(admin).team;
      const bob = issuePersonToken();
      const carol = issuePersonToken();
      assert.equal((await tokens.holderOf(bob)).kind, "unknown");
      other.addPerson({
        name: "bob",
        role: "member",
        token_hash: personTokenHash(bob),
        created_at: 1,
      });
      // Not cached as unknown: known on the next lookup.
      const held = await tokens.holderOf(bob);
      assert.equal(held.kind, "person");
      assert.equal(held.kind === "person" && held.person.name, "bob");
      other.addPerson({
        name: "carol",
        role: "admin",
        token_hash: personTokenHash(carol),
        created_at: 2,
      });
      assert.equal((await tokens.holderOf(carol)).kind, "person");
      // Both now cached; a revocation written by the other connection empties the cache.
      other.revokePerson("bob", 3);
      const revoked = await tokens.holderOf(bob);
      assert.equal(revoked.kind, "revoked");
      assert.equal(revoked.kind === "revoked" && revoked.person.revoked_at, 3);
      assert.equal((await tokens.holderOf(carol)).kind, "person");
      assert.equal((await tokens.holderOf(issuePersonToken())).kind, "unknown");
      // A replaced token stops working as a revoked one does, though cached as valid.
      const rotated = issuePersonToken();
      other.addPerson(
        { name: "carol", role: "admin", token_hash: personTokenHash(rotated), created_at: 4 },
        { replace: true },
      );
      assert.equal((await tokens.holderOf(carol)).kind, "unknown");
      assert.equal((await tokens.holderOf(rotated)).kind, "person");
    } finally {
      server.close();
      admin.close();
    }
  }));
