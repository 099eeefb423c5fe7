import assert from "node:assert/strict";
import { insertMessages, insertUsage } from "../../src/store/agent_writes.ts";
import type { CallPrice, MessageInput, UsageInput } from "../../src/store/agent_records.ts";
import { openDatabase } from "../../src/store/database.ts";

function messages(count: number, prefix: string): MessageInput[] {
  return Array.from({ length: count }, (_, i) => {
    const m: MessageInput = {
      agent: "claude_code",
      session_id: i % 3 === 0 ? "s-a" : "s-b",
      ts: 1_767_000_000_000 + i * 1000,
      role: "assistant",
      message_type: i % 4 === 0 ? "tool_use" : "assistant",
      text: `${prefix} ${i}`,
      message_key: `${prefix}-${i}`,
    };
    if (i % 5 === 1) m.cwd = `/work/${prefix}${i}`;
    if (i % 7 === 2) m.model = `model-${prefix}-${i}`;
    return m;
  });
}

function storedState(db: ReturnType<typeof openDatabase>) {
  return {
    messages: db.prepare(
      "SELECT id, session_id, message_key, ts, text, cwd, model FROM messages ORDER BY id",
    ).all(),
    sessions: db.prepare(
      `SELECT session_id, message_count, tool_calls, cwd, model, started_at, last_activity_at
       FROM sessions ORDER BY session_id`,
    ).all(),
  };
}

Deno.test("messages written many to a statement are stored and counted as one at a time would be, keys stored already or repeated in the write included", () => {
  const first = messages(40, "a");
  // A second write: new messages, messages stored by the first, and one key twice.
  const b = messages(50, "b");
  const second = [
    ...b.slice(0, 5),
    { ...b[3], text: "a later copy of b-3" },
    ...b.slice(5, 20),
    ...first.slice(10, 30),
    ...b.slice(20),
    first[0],
  ];
  const together = openDatabase(":memory:");
  const oneByOne = openDatabase(":memory:");
  try {
    assert.equal(insertMessages(together, first), 40);
    assert.equal(insertMessages(together, second), 50);
    assert.equal(insertMessages(together, second), 0);
    let added = 0;
    for (const m of [...first, ...second, ...second]) added += insertMessages(oneByOne, [m]);
    assert.equal(added, 90);
    assert.deepEqual(storedState(together), storedState(oneByOne));
    // The first copy of a key repeated in one write is the one kept.
    assert.equal(
      (together.prepare("SELECT text FROM messages WHERE message_key = 'b-3'").get() as {
        text: string;
      }).text,
      "b 3",
    );
  } finally {
    together.close();
    oneByOne.close();
  }
});

function usage(count: number, prefix: string): UsageInput[] {
  return Array.from({ length: count }, (_, i) => {
    const u: UsageInput = {
      agent: "claude_code",
      session_id: i % 3 === 0 ? "s-a" : "s-b",
      ts: 1_767_000_000_000 + i * 1000,
      usage_key: `${prefix}-${i}`,
      input_tokens: 10 + i,
      output_tokens: 100 + i,
      cache_read_tokens: 1000 * i,
      cache_write_tokens: 50,
      reasoning_tokens: 0,
    };
    if (i % 4 !== 1) u.model = i % 5 === 0 ? "no-such-model" : "claude-sonnet-4-5";
    if (i % 6 === 2) u.service_tier = "priority";
    return u;
  });
}

function storedUsage(db: ReturnType<typeof openDatabase>) {
  return {
    usage: db.prepare("SELECT * FROM usage ORDER BY usage_key").all(),
    // A session's cost is a sum of floats: the order of the additions shows in the last digits.
    sessions: db.prepare(
      `SELECT session_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
         round(cost_usd, 12) AS cost_usd, unpriced_calls, context_tokens, model, started_at,
         last_activity_at
       FROM sessions ORDER BY session_id`,
    ).all(),
  };
}

Deno.test("calls written many to a statement are stored, merged and counted as one at a time would be", () => {
  const price = (u: UsageInput): CallPrice =>
    u.model === "no-such-model" ? { priced: false } : {
      priced: true,
      usd: (u.input_tokens + u.output_tokens * 5 + u.cache_read_tokens / 10) / 1e6,
    };
  const first = usage(45, "a");
  // A second write: new calls, grown and repeated figures of stored calls, a key twice.
  const b = usage(40, "b");
  const second = [
    ...b.slice(0, 10),
    { ...b[4], output_tokens: b[4].output_tokens + 500, speed: "fast" },
    ...first.slice(5, 20).map((u, i) => i % 2 === 0 ? { ...u, output_tokens: 9000 + i } : u),
    { ...first[30], model: "claude-opus-4-6" },
    ...b.slice(10),
    { ...b[4], output_tokens: 1 }, // Smaller: changes nothing.
  ];
  const together = openDatabase(":memory:");
  const oneByOne = openDatabase(":memory:");
  try {
    assert.equal(insertUsage(together, first, price), 45);
    assert.equal(insertUsage(together, second, price), 40);
    assert.equal(insertUsage(together, second, price), 0);
    let added = 0;
    for (const u of [...first, ...second, ...second]) added += insertUsage(oneByOne, [u], price);
    assert.equal(added, 85);
    assert.deepEqual(storedUsage(together), storedUsage(oneByOne));
    const merged = together.prepare(
      "SELECT output_tokens, speed FROM usage WHERE usage_key = 'b-4'",
    ).get();
    assert.deepEqual({ ...merged }, { output_tokens: b[4].output_tokens + 500, speed: "fast" });
  } finally {
    together.close();
    oneByOne.close();
  }
});
