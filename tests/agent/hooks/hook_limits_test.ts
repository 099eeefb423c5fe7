/**
 * Bounds on hook deliveries: identifiers, names and paths over their limit
 * are refused with a reason naming the field (never cut into another id),
 * free text is capped with a marker, implausible times are refused or
 * ignored, and the spool replay holds spooled hooks to the same rules
 * without one bad or failing entry stopping the rest.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { EARLIEST_EVENT_MS } from "../../../src/core/limits.ts";
import { type HookDelivery, takeHookDelivery } from "../../../src/agent/hooks/hook_intake.ts";
import {
  HOOK_FIELD_LIMITS,
  HOOK_TEXT_CAPS,
  RAW_STRING_TAIL,
} from "../../../src/agent/hooks/hook_limits.ts";
import { normalizeHookPayload } from "../../../src/agent/hooks/hook_normalizer.ts";
import {
  appendToSpool,
  REPLAY_ATTEMPTS,
  replaySpool,
  type SpoolEntry,
} from "../../../src/agent/hooks/spool.ts";
import { openDatabase } from "../../../src/store/database.ts";

const NOW = Date.parse("2026-01-02T03:04:05.000Z");

function refusal(payload: Record<string, unknown>): string {
  const result = normalizeHookPayload("claude_code", payload, NOW);
  assert.equal(result.ok, false, "the payload should have been refused");
  return result.ok ? "" : result.reason;
}

function accepted(payload: Record<string, unknown>) {
  const result = normalizeHookPayload("claude_code", payload, NOW);
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.event;
}

const BASE = { session_id: "s1", hook_event_name: "PreToolUse", cwd: "/work/app" };

Deno.test("each identifier, name and path is refused one character past its limit", () => {
  const cases: [string, number, (text: string) => Record<string, unknown>][] = [
    ["session_id", 256, (t) => ({ ...BASE, session_id: t })],
    ["session_id", 256, (t) => ({ ...BASE, session_id: undefined, sessionId: t })],
    ["tool_use_id", 256, (t) => ({ ...BASE, tool_name: "Read", tool_use_id: t })],
    ["tool_name", 256, (t) => ({ ...BASE, tool_name: t })],
    ["model", 256, (t) => ({ ...BASE, model: t })],
    ["event_type", 128, (t) => ({ ...BASE, hook_event_name: t })],
    ["agent_id", 128, (t) => ({ ...BASE, agent_id: t })],
    ["agent_type", 128, (t) => ({ ...BASE, agent_type: t })],
    ["cwd", 4096, (t) => ({ ...BASE, cwd: t })],
    ["project", 4096, (t) => ({ ...BASE, project_dir: t })],
    ["transcript_path", 4096, (t) => ({ ...BASE, transcript_path: t })],
    ["file_path", 4096, (t) => ({ ...BASE, tool_name: "Edit", tool_input: { file_path: t } })],
  ];
  for (const [field, limit, build] of cases) {
    assert.equal(HOOK_FIELD_LIMITS[field], limit, field);
    const fits = accepted(build("/" + "a".repeat(limit - 1))) as unknown as Record<
      string,
      unknown
    >;
    assert.equal((fits[field] as string).length, limit, `${field} at its limit is kept whole`);
    const reason = refusal(build("/" + "a".repeat(limit)));
    assert.equal(
      reason,
      `${field} is ${
        limit + 1
      } characters long; the limit is ${limit} (an identifier over its limit is refused, not cut)`,
    );
  }
  // One long path among a patch's files is named by its position.
  const patch = `*** Begin Patch\n*** Add File: a.txt\n+x\n*** Add File: /${
    "b".repeat(4096)
  }\n+y\n*** End Patch`;
  assert.match(
    refusal({ ...BASE, tool_name: "apply_patch", tool_input: { command: patch } }),
    /^file_paths\[1\] is 4097 characters long; the limit is 4096/,
  );
  // A megabyte session id is refused, not stored cut.
  assert.match(refusal({ ...BASE, session_id: "x".repeat(1024 * 1024) }), /^session_id is 1048576/);
});

Deno.test("free text is capped with a marker; payload strings keep head and tail", () => {
  const prompt = "p".repeat(HOOK_TEXT_CAPS.prompt + 10);
  const event = accepted({ ...BASE, hook_event_name: "UserPromptSubmit", prompt });
  assert.equal(event.prompt, `${"p".repeat(HOOK_TEXT_CAPS.prompt)}…[truncated 10 chars]`);

  const word = "w".repeat(20_000);
  const shell = accepted({ ...BASE, tool_name: "Bash", tool_input: { command: word } });
  assert.equal(shell.command, `${"w".repeat(8000)}…[truncated 12000 chars]`);
  // The prefix is the command's first word(s), at most 200 characters.
  assert.equal(shell.command_prefix, "w".repeat(200));

  const source = accepted({ ...BASE, hook_event_name: "SessionStart", source: "s".repeat(300) });
  assert.equal(source.source, `${"s".repeat(256)}…[truncated 44 chars]`);

  // A 1 MiB tool output is kept as its head and its last 64 KiB (where a failure's error is).
  const output = "h".repeat(600_000) + "t".repeat(500_000) + "ERROR: the end";
  const post = accepted({
    ...BASE,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "npm test" },
    tool_response: { stdout: output, exit_code: 1 },
  });
  const stored = (post.raw.tool_response as Record<string, string>).stdout;
  const cut = output.length - HOOK_TEXT_CAPS.raw_string;
  assert.equal(
    stored,
    `${"h".repeat(HOOK_TEXT_CAPS.raw_string - RAW_STRING_TAIL)}…[cut ${cut} chars]…${
      output.slice(output.length - RAW_STRING_TAIL)
    }`,
  );
  assert.ok(stored.endsWith("ERROR: the end"));
  // The fields were read from the whole payload before the cut.
  assert.equal(post.success, false);
  assert.equal(post.command, "npm test");
  // Short payloads are stored exactly as given.
  const small = accepted({ ...BASE, tool_name: "Read", tool_input: { file_path: "/a" } });
  assert.deepEqual(small.raw, { ...BASE, tool_name: "Read", tool_input: { file_path: "/a" } });
});

Deno.test("an implausible payload time is no time: the receive time is used", () => {
  for (const timestamp of [1e300, -5, "+275760-09-13T00:00:00.000Z", NOW + 3 * 86_400_000]) {
    const event = accepted({ ...BASE, hook_event_name: "Stop", timestamp });
    assert.equal(event.ts, NOW, String(timestamp));
  }
  // Seconds are still read as seconds, and a time within a day ahead (clock skew) is kept.
  assert.equal(accepted({ ...BASE, timestamp: 1767323045 }).ts, 1767323045000);
  assert.equal(accepted({ ...BASE, timestamp: NOW + 3_600_000 }).ts, NOW + 3_600_000);
});

function delivery(overrides: Partial<HookDelivery> = {}): HookDelivery {
  return {
    agent: "claude_code",
    delivery_id: crypto.randomUUID(),
    received_at: Date.now(),
    payload: JSON.stringify({ ...BASE, hook_event_name: "Stop" }),
    ...overrides,
  };
}

Deno.test("intake refuses a bad envelope with a reason and stores nothing", () => {
  const db = openDatabase(":memory:");
  try {
    const refused: [Partial<HookDelivery>, RegExp][] = [
      [{ received_at: 1e300 }, /^received_at 1e\+300 is not integer epoch milliseconds/],
      [{ received_at: -1 }, /^received_at -1 is not/],
      [{ received_at: EARLIEST_EVENT_MS - 1 }, /^received_at 946684799999 is not/],
      [{ received_at: 1.5e12 + 0.5 }, /is not integer epoch milliseconds/],
      [{ delivery_id: "" }, /^delivery_id is empty/],
      [{ delivery_id: "d".repeat(257) }, /^delivery_id is 257 characters long; the limit is 256/],
      [{ event: "e".repeat(129) }, /^event is 129 characters long; the limit is 128/],
      [{ agent: "a".repeat(10_000) }, /^agent 'a{64}…' \(10000 characters\) is over the limit/],
      [{ agent: "vim" }, /^unknown agent 'vim'$/],
      [
        { payload: JSON.stringify({ ...BASE, session_id: "s".repeat(300) }) },
        /^session_id is 300 characters long/,
      ],
    ];
    for (const [overrides, reason] of refused) {
      const result = takeHookDelivery(db, delivery(overrides));
      assert.equal(result.stored, false);
      assert.ok(!result.stored && !result.duplicate && reason.test(result.reason), reason.source);
    }
    const count = db.prepare("SELECT count(*) AS n FROM events").get() as { n: number };
    assert.equal(count.n, 0);
    assert.equal(takeHookDelivery(db, delivery()).stored, true);
  } finally {
    db.close();
  }
});

Deno.test("spool replay: same rules as live hooks, and a failing entry holds up nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vantage-spool-" });
  const db = openDatabase(":memory:");
  try {
    const spool = join(dir, "hooks.spool.jsonl");
    const entry = (id: string, payload: Record<string, unknown>, extra = {}): SpoolEntry => ({
      delivery_id: id,
      agent: "claude_code",
      received_at: NOW,
      payload: JSON.stringify(payload),
      ...extra,
    });
    await appendToSpool(spool, entry("good-1", { ...BASE, hook_event_name: "Stop" }));
    await appendToSpool(spool, entry("long-session", { ...BASE, session_id: "s".repeat(5000) }));
    await appendToSpool(spool, entry("bad-time", BASE, { received_at: 1e300 }));
    await appendToSpool(spool, entry("busy", { ...BASE, hook_event_name: "SessionEnd" }));
    await appendToSpool(spool, entry("good-2", { ...BASE, hook_event_name: "PreCompact" }));
    await Deno.writeTextFile(spool, '{"torn":\n', { append: true });

    const reasons: string[] = [];
    const failures: string[] = [];
    const take = (item: SpoolEntry): void => {
      // A database that stays busy for this one entry: the handler throws.
      if (item.delivery_id === "busy") throw new Error("database is locked");
      const result = takeHookDelivery(db, item);
      if (!result.stored && !result.duplicate) reasons.push(result.reason);
    };
    const first = await replaySpool(spool, take, (item, error) => {
      failures.push(`${item.delivery_id}: ${String(error)}`);
    });
    assert.deepEqual(first, { entries: 4, rejected: 1, failed: 1 });
    assert.equal(reasons.length, 2);
    assert.match(reasons[0], /^session_id is 5000 characters long; the limit is 256/);
    assert.match(reasons[1], /^received_at 1e\+300 is not integer epoch milliseconds/);
    assert.deepEqual(failures, ["busy: Error: database is locked"]);
    const stored = db.prepare("SELECT delivery_id FROM events ORDER BY delivery_id").all();
    assert.deepEqual(stored.map((row) => row.delivery_id), ["good-1", "good-2"]);

    // The failing entry alone stays, counting its failures, until it is set aside.
    for (let attempt = 2; attempt <= REPLAY_ATTEMPTS; attempt++) {
      const again = await replaySpool(spool, take);
      assert.deepEqual(again, {
        entries: 0,
        rejected: attempt === REPLAY_ATTEMPTS ? 1 : 0,
        failed: 1,
      });
    }
    assert.deepEqual(await replaySpool(spool, take), { entries: 0, rejected: 0, failed: 0 });
    const rejected = (await Deno.readTextFile(join(dir, "rejected.jsonl"))).trim().split("\n");
    assert.equal(rejected[0], '{"torn":');
    const setAside = JSON.parse(rejected[1]);
    assert.equal(setAside.delivery_id, "busy");
    assert.equal(setAside.failures, REPLAY_ATTEMPTS);
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) =>
      n.startsWith("batch-")
    );
    assert.deepEqual(left, []);

    // Once the database answers again, a kept entry is stored by the next replay.
    await appendToSpool(spool, entry("busy-2", { ...BASE, hook_event_name: "Notification" }));
    let busy = true;
    const flaky = (item: SpoolEntry): void => {
      if (busy) throw new Error("database is locked");
      takeHookDelivery(db, item);
    };
    assert.deepEqual(await replaySpool(spool, flaky), { entries: 0, rejected: 0, failed: 1 });
    busy = false;
    assert.deepEqual(await replaySpool(spool, flaky), { entries: 1, rejected: 0, failed: 0 });
    const row = db.prepare("SELECT event_type FROM events WHERE delivery_id = 'busy-2'").get();
    assert.equal(row?.event_type, "Notification");
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
