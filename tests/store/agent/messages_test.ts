import assert from "node:assert/strict";
import { insertMessages } from "../../../src/store/agent/messages.ts";
import type { TranscriptMessage as MessageInput } from "../../../src/model/agent_records.ts";
import { openDatabase } from "../../../src/store/database.ts";

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
