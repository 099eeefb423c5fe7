/**
 * `runSync` against a real team server (the HTTP handler on a port, in
 * this process) from a store filled from the transcript fixtures, hook
 * events and documents: the server ends up with exactly the store's
 * history, attributed to the token's person and host; a second run sends
 * nothing new; a call whose figures grew after it was sent is sent again
 * at its final figures; a run that stops between batches (the server
 * stops answering) leaves the cursors at the last acknowledged batch, and
 * the next run finishes with nothing counted twice; another person pushing
 * the same sessions is refused.
 */
import assert from "node:assert/strict";
import { DATABASE, STORE } from "../../src/ops/runtime.ts";
import type { Services } from "../../src/ops/services.ts";
import { callPrice } from "../../src/agent/mod.ts";
import { documentBytes } from "../../src/docs/mod.ts";
import { cursorKey, runSync, type SyncRunOptions, TeamServer } from "../../src/sync/mod.ts";
import { assertSameHistory, bytes, localStore, rows, startInProcessTeam } from "./team_fixture.ts";

const CLAUDE_SESSION = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";

function syncOptions(services: Services, server: TeamServer): SyncRunOptions {
  const db = services.get(DATABASE);
  return {
    store: services.get(STORE),
    documentBytes: (row) => documentBytes(db, row),
    server,
    // Small batches, so the fixtures take many and a stop can fall between them.
    batchBytes: 8 * 1024,
  };
}

/** A team server that stops answering after `answers` calls. */
class FailingAfter extends TeamServer {
  calls = 0;
  constructor(url: string, token: string, readonly answers: number) {
    super({ url, token, host: "ada-laptop", retryDelaysMs: [] });
  }
  override call(operationId: string, body: Uint8Array<ArrayBuffer>, signal?: AbortSignal) {
    if (++this.calls > this.answers) {
      return Promise.reject(new Error(`the team server went away before call ${this.calls}`));
    }
    return super.call(operationId, body, signal);
  }
}

Deno.test("a sync pushes a store's history and documents once, as the token's person", async () => {
  const team = await startInProcessTeam();
  const local = await localStore();
  try {
    const token = team.addPerson("ada");
    const server = new TeamServer({ url: team.url, token, host: "ada-laptop" });
    const first = await runSync(syncOptions(local.services, server));
    assert.equal(first.person, "ada");
    assert.ok(first.batches > 5, `${first.batches} batches`);
    assertSameHistory(local.home.dataHome, team.dataHome, "ada", "ada-laptop");
    assert.equal(
      first.stored.messages,
      rows(local.home.dataHome, "SELECT id FROM messages").length,
    );
    assert.equal(first.documents.sent, 2);
    assert.equal(first.documents.added, 2);
    assert.equal(first.refused.records, 0);

    const docs = rows<{ path: string; person: string; tags: string; meta: string; coll: string }>(
      team.dataHome,
      `SELECT d.path, d.person,
         (SELECT group_concat(tag) FROM docs_tags t WHERE t.document_id = d.id) AS tags,
         (SELECT group_concat(key || '=' || value) FROM docs_metadata m WHERE m.document_id = d.id) AS meta,
         (SELECT group_concat(collection || ':' || relative_path) FROM docs_collection_members c
           WHERE c.document_id = d.id) AS coll
       FROM docs_documents d ORDER BY d.path`,
    );
    assert.deepEqual(docs, [
      {
        path: "ada@ada-laptop:notes/wombats.md",
        person: "ada",
        tags: "burrows",
        meta: null,
        coll: "field-notes:notes/wombats.md",
      },
      {
        path: "ada@ada-laptop:todo.md",
        person: "ada",
        tags: null,
        meta: "priority=high",
        coll: null,
      },
    ]);

    // Nothing new: nothing sent, nothing stored.
    const second = await runSync(syncOptions(local.services, server));
    assert.equal(second.batches, 0);
    assert.deepEqual(second.stored, { events: 0, messages: 0, usage: 0, sessions_created: 0 });
    assertSameHistory(local.home.dataHome, team.dataHome, "ada", "ada-laptop");

    // A call whose answer went on streaming after the sync: its final figures and the new line.
    const store = local.services.get(STORE);
    const [call] = rows<{ usage_key: string; session_id: string; output_tokens: number }>(
      local.home.dataHome,
      "SELECT usage_key, session_id, output_tokens FROM usage WHERE session_id = ? LIMIT 1",
      CLAUDE_SESSION,
    );
    const all = await store.agent.usageOfSessions([CLAUDE_SESSION], Number.MAX_SAFE_INTEGER);
    const stored = all.find((u) => u.usage.usage_key === call.usage_key)!;
    await store.agent.insertUsage(
      [{ ...stored.usage, output_tokens: call.output_tokens + 777 }],
      (record) => callPrice(record),
    );
    await store.agent.insertMessages([{
      agent: "claude_code",
      session_id: CLAUDE_SESSION,
      ts: Date.UTC(2026, 10, 3, 10),
      role: "assistant",
      message_type: "assistant",
      text: "the rest of the answer",
      message_key: "streamed-later",
    }]);
    const third = await runSync(syncOptions(local.services, server));
    assert.equal(third.stored.messages, 1);
    assert.equal(third.stored.usage, 0);
    assertSameHistory(local.home.dataHome, team.dataHome, "ada", "ada-laptop");
    assert.equal(
      rows<{ n: number }>(
        team.dataHome,
        "SELECT output_tokens AS n FROM usage WHERE usage_key = ?",
        call.usage_key,
      )[0].n,
      call.output_tokens + 777,
    );
  } finally {
    local.services.close();
    await local.home.cleanup();
    await team.close();
  }
});

Deno.test("a sync stopped between batches goes on from the last one acknowledged", async () => {
  const team = await startInProcessTeam();
  const local = await localStore();
  try {
    const token = team.addPerson("ada");
    const store = local.services.get(STORE);
    const hello = await new TeamServer({ url: team.url, token }).call(
      "sync.hello",
      bytes("{}") as Uint8Array<ArrayBuffer>,
    ) as { server_id: string };
    const cursor = async (table: "events" | "messages" | "usage" | "documents") =>
      Number(await store.getStoreMeta(cursorKey(hello.server_id, table)) ?? 0);
    let seen = -1;
    // Stop after 1, 3 and 5 answers: the cursors move on each time, never backwards.
    for (const answers of [1, 3, 5]) {
      const flaky = new FailingAfter(team.url, token, answers);
      await assert.rejects(runSync(syncOptions(local.services, flaky)), /went away/);
      const moved = (await cursor("events")) + (await cursor("messages")) + (await cursor("usage"));
      assert.ok(moved >= seen, `cursors after ${answers} answers`);
      seen = moved;
      // The server holds exactly what the cursors passed: every acknowledged batch, no other.
      const upTo = async (table: "events" | "messages", sql: string) =>
        rows(local.home.dataHome, sql, await cursor(table)).length;
      assert.equal(
        rows(team.dataHome, "SELECT id FROM events").length,
        await upTo("events", "SELECT id FROM events WHERE id <= ?"),
      );
      assert.equal(
        rows(team.dataHome, "SELECT id FROM messages").length,
        await upTo("messages", "SELECT id FROM messages WHERE id <= ?"),
      );
    }
    assert.ok(seen > 0, "some batches were acknowledged before the stops");
    const records = (home: string) =>
      rows(home, "SELECT id FROM events UNION ALL SELECT id FROM messages").length +
      rows(home, "SELECT usage_key FROM usage").length;
    assert.ok(records(team.dataHome) < records(local.home.dataHome), "the stops left work");

    const server = new TeamServer({ url: team.url, token, host: "ada-laptop" });
    const left = rows(
      local.home.dataHome,
      "SELECT id FROM messages WHERE id > ?",
      await cursor("messages"),
    ).length;
    const last = await runSync(syncOptions(local.services, server));
    // It went on from the cursor: only the messages after it were sent.
    assert.equal(last.sent.messages, left);
    assertSameHistory(local.home.dataHome, team.dataHome, "ada", "ada-laptop");
    assert.equal(rows(team.dataHome, "SELECT id FROM docs_documents").length, 2);
    // Another run after it: nothing left.
    const after = await runSync(syncOptions(local.services, server));
    assert.equal(after.batches, 0);
  } finally {
    local.services.close();
    await local.home.cleanup();
    await team.close();
  }
});

Deno.test("another person pushing the same sessions is refused, and ada's stay as they were", async () => {
  const team = await startInProcessTeam();
  const ada = await localStore();
  const bob = await localStore();
  try {
    const adaToken = team.addPerson("ada");
    const bobToken = team.addPerson("bob");
    await runSync(
      syncOptions(ada.services, new TeamServer({ url: team.url, token: adaToken, host: "a" })),
    );
    const before = rows(team.dataHome, "SELECT * FROM sessions ORDER BY session_id");
    const summary = await runSync(
      syncOptions(bob.services, new TeamServer({ url: team.url, token: bobToken, host: "b" })),
    );
    assert.equal(summary.person, "bob");
    assert.equal(summary.stored.messages, 0);
    assert.equal(summary.stored.usage, 0);
    assert.ok(summary.refused.records > 0);
    assert.ok(summary.refused.sessions.every((s) => s.owner === "ada"));
    assert.deepEqual(rows(team.dataHome, "SELECT * FROM sessions ORDER BY session_id"), before);
    assertSameHistory(ada.home.dataHome, team.dataHome, "ada", "a");
    // bob's documents are his own, under his name: nothing of ada's was touched.
    assert.deepEqual(
      rows<{ path: string; person: string }>(
        team.dataHome,
        "SELECT path, person FROM docs_documents ORDER BY path",
      ).map((row) => `${row.person} ${row.path}`),
      [
        "ada ada@a:notes/wombats.md",
        "ada ada@a:todo.md",
        "bob bob@b:notes/wombats.md",
        "bob bob@b:todo.md",
      ],
    );
  } finally {
    ada.services.close();
    bob.services.close();
    await ada.home.cleanup();
    await bob.home.cleanup();
    await team.close();
  }
});
