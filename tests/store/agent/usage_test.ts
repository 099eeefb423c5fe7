import assert from "node:assert/strict";
import { insertUsage } from "../../../src/store/agent/usage.ts";
import type { CallPrice, CountedUsage } from "../../../src/model/agent_records.ts";
import { openDatabase } from "../../../src/store/database.ts";

function usage(count: number, prefix: string): CountedUsage[] {
  return Array.from({ length: count }, (_, i) => {
    const u: CountedUsage = {
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
  const price = (u: CountedUsage): CallPrice =>
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
