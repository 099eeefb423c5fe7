/**
 * A team server taking history pushes, through the store's interfaces on a
 * real SQLite file: each record stored once by its key however often it is
 * pushed, attributed to the pusher (never to anything the batch says), and
 * nothing of another person's changed — not their sessions' records, not a
 * usage key counted in their session, not an event delivered under their
 * delivery id, not a sub-agent's parent of theirs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { CountedUsage } from "../../src/model/agent_records.ts";
import { openDatabase } from "../../src/store/database.ts";
import { sqliteStore, type Store } from "../../src/store/store.ts";
import { type Pusher, pushHistory } from "../../src/sync/mod.ts";
import type { HistoryBatch } from "../../src/sync/wire.ts";

const ADA: Pusher = { person: "ada", host: "ada-laptop" };
const BOB: Pusher = { person: "bob", host: "bob-desktop" };
const T0 = Date.UTC(2026, 10, 3, 9);

/** Prices every call at a dollar per million tokens of any kind. */
const price = (u: CountedUsage) => ({
  priced: true as const,
  usd: (u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens) / 1e6,
});

function batch(parts: Partial<HistoryBatch>): HistoryBatch {
  return { sessions: [], events: [], messages: [], usage: [], outcomes: [], ...parts };
}

function session(id: string, extra: Partial<HistoryBatch["sessions"][number]> = {}) {
  return {
    session_id: id,
    agent: "claude_code",
    cwd: "/work/app",
    started_at: T0,
    last_activity_at: T0 + 60_000,
    is_subagent: false,
    ...extra,
  };
}

function message(sessionId: string, key: string, text = `text of ${key}`) {
  return {
    agent: "claude_code" as const,
    session_id: sessionId,
    message_key: key,
    ts: T0 + 1_000,
    role: "user" as const,
    message_type: "user" as const,
    text,
  };
}

function usage(sessionId: string, key: string, output: number) {
  return {
    agent: "claude_code",
    session_id: sessionId,
    ts: T0 + 2_000,
    model: "claude-sonnet-4-5",
    usage_key: key,
    input_tokens: 100,
    output_tokens: output,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  };
}

function event(sessionId: string, deliveryId: string) {
  return {
    delivery_id: deliveryId,
    received_at: T0 + 3_000,
    event: {
      agent: "claude_code" as const,
      session_id: sessionId,
      cwd: "/work/app",
      event_type: "PostToolUse",
      ts: T0 + 3_000,
      tool_name: "Bash",
      command: "npm test",
      success: true,
      raw: { session_id: sessionId, hook_event_name: "PostToolUse", person: "mallory" },
    },
  };
}

async function withServer(run: (store: Store) => Promise<void>): Promise<void> {
  const folder = await Deno.makeTempDir({ prefix: "vantage-push-" });
  const db = openDatabase(join(folder, "vantage.db"));
  try {
    await run(sqliteStore(db));
  } finally {
    db.close();
    await Deno.remove(folder, { recursive: true });
  }
}

Deno.test("a batch pushed twice is stored once, attributed to whoever pushed it", () =>
  withServer(async (store) => {
    const sent = batch({
      sessions: [session("s-ada", { title: "Fix the tests" })],
      events: [event("s-ada", "d-1"), event("s-ada", "d-2")],
      messages: [message("s-ada", "m-1"), message("s-ada", "m-2")],
      usage: [usage("s-ada", "u-1", 30)],
      outcomes: [{
        agent: "claude_code",
        session_id: "s-ada",
        tool_use_id: "t-1",
        ts: T0,
        success: false,
        exit_code: 2,
      }],
    });
    const first = await pushHistory(store, sent, ADA, price);
    assert.deepEqual(
      [first.sessions_created, first.events, first.messages, first.usage, first.refused],
      [1, 2, 2, 1, 0],
    );
    const again = await pushHistory(store, sent, ADA, price);
    assert.deepEqual(
      [again.sessions_created, again.events, again.messages, again.usage, again.refused],
      [0, 0, 0, 0, 0],
    );
    const row = store.agent.getSession("s-ada")!;
    assert.equal(row.person, "ada");
    assert.equal(row.host, "ada-laptop");
    assert.equal(row.title, "Fix the tests");
    assert.equal(row.message_count, 2);
    assert.equal(row.event_count, 2);
    assert.equal(row.output_tokens, 30);
    assert.equal(row.cost_usd, 130 / 1e6);
    // The payload's own "person" field is just a payload field: the event is ada's.
    const stored = store.agent.storedEventsSince("s-ada", 0, 10);
    assert.equal(stored.length, 2);
    assert.deepEqual(store.agent.findToolOutcome("s-ada", "t-1"), {
      success: false,
      exit_code: 2,
    });
  }));

Deno.test("a call pushed at a partial count, then at its final one, ends at the final count once", () =>
  withServer(async (store) => {
    await pushHistory(store, batch({ usage: [usage("s-ada", "u-1", 10)] }), ADA, price);
    await pushHistory(store, batch({ usage: [usage("s-ada", "u-1", 299)] }), ADA, price);
    await pushHistory(store, batch({ usage: [usage("s-ada", "u-1", 10)] }), ADA, price);
    const row = store.agent.getSession("s-ada")!;
    assert.equal(row.output_tokens, 299);
    assert.equal(row.input_tokens, 100);
    assert.equal(store.agent.sessionUsage("s-ada", 10).length, 1);
  }));

Deno.test("records naming another person's session are refused and change nothing of theirs", () =>
  withServer(async (store) => {
    await pushHistory(
      store,
      batch({
        sessions: [session("s-ada")],
        messages: [message("s-ada", "m-1")],
        usage: [usage("s-ada", "u-ada", 30)],
        events: [event("s-ada", "d-ada")],
      }),
      ADA,
      price,
    );
    const before = store.agent.getSession("s-ada")!;
    const report = await pushHistory(
      store,
      batch({
        sessions: [session("s-ada", { title: "bob renames it" }), session("s-bob")],
        messages: [message("s-ada", "m-1", "bob rewrites it"), message("s-ada", "m-bob")],
        // bob's own session, but a usage key ada's session counts: never merged into.
        usage: [usage("s-ada", "u-bob", 5), usage("s-bob", "u-ada", 9_999)],
        // bob's own session, but ada's delivery id: kept as ada's.
        events: [event("s-ada", "d-bob"), event("s-bob", "d-ada")],
        outcomes: [{
          agent: "claude_code",
          session_id: "s-ada",
          tool_use_id: "t-9",
          ts: T0,
          success: true,
        }],
      }),
      BOB,
      price,
    );
    assert.equal(report.sessions_created, 1);
    assert.equal(report.messages, 0);
    assert.equal(report.usage, 0);
    assert.equal(report.events, 0);
    // Two messages, one call and one event, one outcome into ada's session; ada's usage key.
    assert.equal(report.refused, 6);
    assert.deepEqual(report.refused_sessions, [{ session_id: "s-ada", owner: "ada", records: 6 }]);
    const after = store.agent.getSession("s-ada")!;
    assert.deepEqual(after, before);
    assert.equal(
      store.agent.transcriptPage("s-ada", { limit: 10, offset: 0 })[0].text,
      "text of m-1",
    );
    assert.equal(store.agent.sessionUsage("s-ada", 10)[0].output_tokens, 30);
    assert.equal(store.agent.findToolOutcome("s-ada", "t-9"), undefined);
    // bob's session exists, is his, and holds nothing of the refused records.
    const bobs = store.agent.getSession("s-bob")!;
    assert.equal(bobs.person, "bob");
    assert.equal(bobs.event_count, 0);
    assert.equal(bobs.output_tokens, 0);
  }));

Deno.test("a sub-agent of another person's session is refused; the owner's server token is nobody's person", () =>
  withServer(async (store) => {
    await pushHistory(store, batch({ sessions: [session("s-ada")] }), ADA, price);
    const child = session("s-ada/agent-x", { parent_session_id: "s-ada", is_subagent: true });
    const report = await pushHistory(
      store,
      batch({ sessions: [child], messages: [message("s-ada/agent-x", "m-1")] }),
      BOB,
      price,
    );
    assert.equal(report.messages, 0);
    assert.equal(report.refused, 1);
    assert.equal(store.agent.getSession("s-ada")!.message_count, 0);
    // The child was created for bob (it was free), but its parent is ada's: it takes nothing.
    assert.equal(store.agent.getSession("s-ada/agent-x")!.person, "bob");

    const owner = await pushHistory(
      store,
      batch({ messages: [message("s-owner", "m-1")] }),
      { person: null, host: null },
      price,
    );
    assert.equal(owner.messages, 1);
    const row = store.agent.getSession("s-owner")!;
    assert.equal(row.person, null);
    // ada cannot add to the server owner's session either.
    const refused = await pushHistory(
      store,
      batch({ messages: [message("s-owner", "m-2")] }),
      ADA,
      price,
    );
    assert.deepEqual(refused.refused_sessions, [{
      session_id: "s-owner",
      owner: null,
      records: 1,
    }]);
  }));
