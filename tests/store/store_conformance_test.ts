/**
 * The whole store's conformance on both backends: the team area (people, their token
 * hashes, replacement and revocation counted for token caches), store-wide settings, the
 * change feed's marks, and a transaction that commits together or not at all.
 */
import assert from "node:assert/strict";
import { VantageError } from "../../src/core/errors.ts";
import type { HookEvent } from "../../src/model/agent_records.ts";
import { storeBackends } from "../helpers/store_backends.ts";

const T0 = 1_767_000_000_000;

function hook(sessionId: string, ts: number): HookEvent {
  return {
    agent: "claude_code",
    session_id: sessionId,
    event_type: "SessionStart",
    ts,
    cwd: "/work/app",
    project: "/work/app",
    raw: { hook_event_name: "SessionStart", session_id: sessionId },
  };
}

/** `call` fails with a VantageError of `kind` (SQLite throws at once, PostgreSQL rejects). */
async function refused(call: () => unknown, kind: string, text: RegExp): Promise<void> {
  await assert.rejects(Promise.resolve().then(call), (error: unknown) => {
    assert.ok(error instanceof VantageError, String(error));
    assert.equal(error.kind, kind);
    assert.match(error.message, text);
    return true;
  });
}

for (const backend of storeBackends("the whole-store conformance suite on PostgreSQL")) {
  Deno.test({
    name: `store conformance (${backend.name}): team people, settings, change marks, transactions`,
    ignore: backend.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const { store, close } = await backend.open();
      try {
        await t.step("people: added, found by token hash, listed by name", async () => {
          const ann = await store.team.addPerson({
            name: "ann",
            role: "admin",
            token_hash: "a".repeat(64),
            created_at: T0,
          });
          assert.deepEqual(ann, { name: "ann", role: "admin", created_at: T0, revoked_at: null });
          await store.team.addPerson({
            name: "bob",
            role: "member",
            token_hash: "b".repeat(64),
            created_at: T0 + 1,
          });
          assert.equal((await store.team.findPersonByTokenHash("b".repeat(64)))?.name, "bob");
          assert.equal(await store.team.findPersonByTokenHash("c".repeat(64)), undefined);
          assert.deepEqual((await store.team.listPeople()).map((p) => p.name), ["ann", "bob"]);
          assert.equal(await store.team.revocationCount(), 0);
        });

        await t.step(
          "a valid token is not replaced unasked; replacing counts as revoking",
          async () => {
            const again = {
              name: "bob",
              role: "member" as const,
              token_hash: "d".repeat(64),
              created_at: T0 + 2,
            };
            await refused(
              () => store.team.addPerson(again),
              "conflict",
              /'bob' already has a valid token/,
            );
            const replaced = await store.team.addPerson(again, { replace: true });
            assert.equal(replaced.created_at, T0 + 2);
            assert.equal(await store.team.findPersonByTokenHash("b".repeat(64)), undefined);
            assert.equal(await store.team.revocationCount(), 1);
          },
        );

        await t.step("revocation: once counted, idempotent, unknown names refused", async () => {
          const revoked = await store.team.revokePerson("bob", T0 + 3);
          assert.equal(revoked.revoked_at, T0 + 3);
          assert.equal((await store.team.revokePerson("bob", T0 + 9)).revoked_at, T0 + 3);
          assert.equal(await store.team.revocationCount(), 2);
          await refused(
            () => store.team.revokePerson("zed", T0),
            "not_found",
            /no person named 'zed'/,
          );
          // A revoked person takes a new token without `replace`.
          const back = await store.team.addPerson({
            name: "bob",
            role: "member",
            token_hash: "e".repeat(64),
            created_at: T0 + 4,
          });
          assert.equal(back.revoked_at, null);
          assert.equal(await store.team.revocationCount(), 2);
        });

        await t.step("settings are stored and replaced", async () => {
          assert.equal(await store.getStoreMeta("k"), undefined);
          await store.setStoreMeta("k", "one");
          await store.setStoreMeta("k", "two");
          assert.equal(await store.getStoreMeta("k"), "two");
        });

        await t.step("change marks move with new sessions and builds", async () => {
          const before = await store.changeMarks();
          assert.deepEqual(before, { session_rowid: 0, anomaly_emitted_at: 0, build_id: 0 });
          assert.equal(await store.agent.insertHookEvent(hook("s1", T0), "d1", T0), true);
          await store.perception.insertBuildRun({
            command: "make",
            tag: "build",
            cwd: "/work/app",
            exit_code: 0,
            started_at: T0,
            duration_ms: 10,
            errors: "[]",
            output_tail: "",
            project: "/work/app",
          });
          const after = await store.changeMarks();
          assert.ok(after.session_rowid > 0 && after.build_id > 0, JSON.stringify(after));
          const news = await store.agent.sessionsAfter(before.session_rowid, 10);
          assert.deepEqual(news.map((s) => s.session_id), ["s1"]);
        });

        await t.step("a transaction commits together or not at all", async () => {
          await assert.rejects(
            Promise.resolve().then(() =>
              store.transaction((inside) => {
                const wrote = inside.setStoreMeta("half", "written");
                const fail = () => {
                  throw new Error("second write failed");
                };
                return wrote instanceof Promise ? wrote.then(fail) : fail();
              })
            ),
            /second write failed/,
          );
          assert.equal(await store.getStoreMeta("half"), undefined);
          await store.transaction((inside) => inside.setStoreMeta("whole", "written"));
          assert.equal(await store.getStoreMeta("whole"), "written");
        });
      } finally {
        await close();
      }
    },
  });
}
