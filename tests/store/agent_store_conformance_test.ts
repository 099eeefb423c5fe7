/**
 * The agent-activity store's conformance suite: every case below runs
 * against each backend — SQLite (its synchronous answers awaited) and
 * PostgreSQL (a database of its own in a throwaway cluster) — with the same
 * records and the same expected answers, so a behaviour cannot exist on one
 * backend only. Cases avoid ties in the orders they check (each backend may
 * break a tie its own way) and compare message ids by order only (a
 * PostgreSQL identity skips the values a refused insert drew).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type {
  CallPrice,
  CountedUsage,
  HookEvent,
  SessionInfo,
  TranscriptMessage,
} from "../../src/model/agent_records.ts";
import type { SessionOwner, SyncSession } from "../../src/model/sync_records.ts";
import {
  type AgentStore,
  type MessageSearch,
  sqliteAgentStore,
  sqliteMessageSearch,
} from "../../src/store/agent/agent_store.ts";
import { MessageIndexer, openMessageIndex } from "../../src/store/agent/message_index.ts";
import type { MessageRow } from "../../src/store/agent/messages.ts";
import { openDatabase } from "../../src/store/database.ts";
import { pgAgentStore, pgMessageSearch } from "../../src/store/postgres/agent/agent_store.ts";
import { openPgPool } from "../../src/store/postgres/connection.ts";
import { migratePostgres } from "../../src/store/postgres/migrate.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { awaited } from "../helpers/store_backends.ts";

/** One backend under test, opened empty. */
interface Backend {
  agents: AgentStore<"async">;
  /** The word search, caught up with every message stored so far. */
  search(): Promise<MessageSearch<"async">>;
  /** An anomaly of a session (the perception area's table, which the listing joins). */
  seedAnomaly(sessionId: string, resolved: boolean): Promise<void>;
  /** The change feed's session position now (SQLite's rowid, PostgreSQL's seq). */
  sessionMark(): Promise<number>;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Backend> {
  const dir = await Deno.makeTempDir({ prefix: "vantage-conformance-" });
  const path = join(dir, "vantage.db");
  const db = openDatabase(path);
  const agents = sqliteAgentStore(db);
  let indexer: MessageIndexer | undefined;
  let index: ReturnType<typeof openMessageIndex> | undefined;
  return {
    agents: awaited(agents) as AgentStore<"async">,
    async search() {
      indexer ??= await MessageIndexer.start(path, () => agents.maxMessageId());
      await indexer.caughtUp();
      index ??= openMessageIndex(path);
      return awaited(sqliteMessageSearch(db, index)) as MessageSearch<"async">;
    },
    seedAnomaly(sessionId, resolved) {
      db.prepare(
        `INSERT INTO anomalies (session_id, kind, severity, channel, fingerprint, evidence,
           suggestion, first_emitted_at, last_emitted_at, resolved_at)
         VALUES (?, 'loop', 'warn', 'inject', ?, 'e', 's', 1, 1, ?)`,
      ).run(sessionId, `f-${sessionId}-${resolved}`, resolved ? 2 : null);
      return Promise.resolve();
    },
    sessionMark() {
      return Promise.resolve(
        Number(db.prepare("SELECT coalesce(max(rowid), 0) AS n FROM sessions").get()!.n),
      );
    },
    async close() {
      indexer?.close();
      index?.close();
      db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function openPostgres(): Promise<Backend> {
  const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
  if (location.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
  const pool = openPgPool(location, { max: 4, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
  await migratePostgres(pool);
  return {
    agents: pgAgentStore(pool),
    search: () => Promise.resolve(pgMessageSearch(pool)),
    async seedAnomaly(sessionId, resolved) {
      await pool.query(
        `INSERT INTO anomalies (session_id, kind, severity, channel, fingerprint, evidence,
           suggestion, first_emitted_at, last_emitted_at, resolved_at)
         VALUES ($1, 'loop', 'warn', 'inject', $2, 'e', 's', 1, 1, $3)`,
        [sessionId, `f-${sessionId}-${resolved}`, resolved ? 2 : null],
      );
    },
    async sessionMark() {
      return Number((await pool.query("SELECT coalesce(max(seq), 0) AS n FROM sessions"))[0].n);
    },
    close: () => pool.close(),
  };
}

const BACKENDS: Array<{ name: string; ignore: boolean; open: () => Promise<Backend> }> = [
  { name: "sqlite", ignore: false, open: openSqlite },
  {
    name: "postgres",
    ignore: skipWithoutPostgres("the agent store conformance suite on PostgreSQL"),
    open: openPostgres,
  },
];

// Records ---------------------------------------------------------------------------------------

const T0 = 1_767_000_000_000;
const MIN = 60_000;

function hook(sessionId: string, n: number, fields: Partial<HookEvent> = {}): HookEvent {
  return {
    agent: "claude_code",
    session_id: sessionId,
    cwd: "/work/app",
    event_type: "PostToolUse",
    ts: T0 + n * MIN,
    raw: { n },
    ...fields,
  };
}

function message(
  sessionId: string,
  key: string,
  n: number,
  fields: Partial<TranscriptMessage> = {},
): TranscriptMessage {
  return {
    agent: "claude_code",
    session_id: sessionId,
    ts: T0 + n * MIN,
    role: "assistant",
    message_type: "assistant",
    text: `message ${key}`,
    message_key: key,
    ...fields,
  };
}

function usage(key: string, sessionId: string, n: number, fields: Partial<CountedUsage> = {}) {
  const record: CountedUsage = {
    agent: "claude_code",
    session_id: sessionId,
    ts: T0 + n * MIN,
    usage_key: key,
    model: "claude-sonnet-4-5",
    input_tokens: 100,
    output_tokens: 10,
    cache_read_tokens: 1000,
    cache_write_tokens: 50,
    reasoning_tokens: 0,
    ...fields,
  };
  return record;
}

/** A price of 1 USD per 1,000 output tokens; models named `free-*` have no price. */
const price = (record: CountedUsage): CallPrice =>
  record.model?.startsWith("free-") ? { priced: false } : {
    priced: true,
    usd: record.output_tokens / 1000,
  };

const withoutIds = (rows: MessageRow[]) => rows.map(({ id: _id, ...rest }) => rest);

function increasing(ids: number[]): boolean {
  return ids.every((id, i) => i === 0 || id > ids[i - 1]);
}

// Cases -----------------------------------------------------------------------------------------

const CASES: Array<{ name: string; run: (b: Backend) => Promise<void> }> = [];
const conformance = (name: string, run: (b: Backend) => Promise<void>) => CASES.push({ name, run });

conformance("a hook event is stored once per delivery id and makes its session", async (b) => {
  const { agents } = b;
  const ana = { person: "ana", host: "ana-laptop" };
  assert.equal(
    await agents.insertHookEvent(hook("s1", 2, { model: "m1", ...ana }), "d1", T0),
    true,
  );
  assert.equal(await agents.insertHookEvent(hook("s1", 2), "d1", T0), false);
  // A later hook from someone else leaves the session with the person who first named it.
  const bo = { person: "bo", host: "bo-desktop" };
  assert.equal(
    await agents.insertHookEvent(hook("s1", 1, { cwd: "/work/app/sub", ...bo }), "d2", T0),
    true,
  );
  const session = await agents.getSession("s1");
  assert.deepEqual(session, {
    session_id: "s1",
    agent: "claude_code",
    cwd: "/work/app/sub",
    project: "/work/app",
    started_at: T0 + MIN,
    last_activity_at: T0 + 2 * MIN,
    model: "m1",
    git_branch: null,
    title: null,
    parent_session_id: null,
    is_subagent: 0,
    subagent_type: null,
    transcript_path: null,
    has_hooks: 1,
    event_count: 2,
    message_count: 0,
    tool_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
    unpriced_calls: 0,
    context_tokens: null,
    context_window: null,
    person: "ana",
    host: "ana-laptop",
  });
  assert.equal(await agents.getSession("nope"), undefined);
  // The listings filter by person: a team member's sessions, or (null) only the owner's.
  await agents.insertHookEvent(hook("s2", 3), "d3", T0);
  const listed = async (person: string | null | undefined) =>
    (await agents.listSessionsFiltered({ since: T0, limit: 10, offset: 0, person }))
      .map((row) => row.session_id).sort();
  assert.deepEqual(await listed("ana"), ["s1"]);
  assert.deepEqual(await listed("bo"), []);
  assert.deepEqual(await listed(null), ["s2"]);
  assert.deepEqual(await listed(undefined), ["s1", "s2"]);
  assert.deepEqual(
    (await agents.listSessions({ since: T0, limit: 10, person: "ana" })).map((r) => r.session_id),
    ["s1"],
  );
});

conformance("hook events read back: tool events, counts, timeline, stored fields", async (b) => {
  const { agents } = b;
  const events: Array<[HookEvent, string]> = [
    [hook("s1", 1, { event_type: "UserPromptSubmit", prompt: "fix the build please" }), "e1"],
    [hook("s1", 2, { event_type: "PreToolUse", tool_name: "Bash", command: "npm test" }), "e2"],
    [hook("s1", 3, { tool_name: "Bash", success: false, error: "exit 1: failing test" }), "e3"],
    [hook("s1", 4, { tool_name: "Bash", success: true, duration_ms: 1500 }), "e4"],
    [hook("s1", 5, { tool_name: "Edit", file_path: "/work/app/a.ts", success: true }), "e5"],
    [hook("s1", 6, { event_type: "PostToolUseFailure", tool_name: "Bash" }), "e6"],
  ];
  for (const [event, id] of events) await agents.insertHookEvent(event, id, T0);
  const recent = await agents.recentToolEvents("s1", 2);
  assert.deepEqual(recent.map((e) => [e.ts, e.event_type, e.tool_name]), [
    [T0 + 6 * MIN, "PostToolUseFailure", "Bash"],
    [T0 + 5 * MIN, "PostToolUse", "Edit"],
  ]);
  assert.deepEqual(await agents.toolCountsFromEvents("s1"), [
    { tool_name: "Bash", calls: 3, failures: 2 },
    { tool_name: "Edit", calls: 1, failures: 0 },
  ]);
  const timeline = await agents.timelineEvents("s1", 3, 8);
  assert.deepEqual(timeline.map((e) => [e.event_type, e.prompt, e.error]), [
    ["UserPromptSubmit", "fix the ", null],
    ["PreToolUse", null, null],
    ["PostToolUse", null, "exit 1: "],
  ]);
  const stored = await agents.storedEventsSince("s1", T0 + 4 * MIN, 2);
  assert.deepEqual(stored.map((e) => e.ts), [T0 + 5 * MIN, T0 + 6 * MIN]);
  assert.deepEqual(stored[0], {
    agent: "claude_code",
    session_id: "s1",
    cwd: "/work/app",
    project: "/work/app",
    event_type: "PostToolUse",
    ts: T0 + 5 * MIN,
    tool_name: "Edit",
    tool_use_id: null,
    file_path: "/work/app/a.ts",
    command: null,
    command_prefix: null,
    success: 1,
    error: null,
    duration_ms: null,
    prompt: null,
    model: null,
    raw: '{"n":5}',
  });
  assert.deepEqual(await agents.lastPrompt("s1"), { text: "fix the build please", ts: T0 + MIN });
});

conformance(
  "session facts: unknown starts never hide known ones; a sub-agent makes its parent",
  async (b) => {
    const { agents } = b;
    await agents.upsertSessionFacts(
      { agent: "codex", session_id: "p1", cwd: "/w/x" },
      "/t/p1.jsonl",
    );
    assert.equal((await agents.getSession("p1"))!.started_at, 0);
    await agents.upsertSessionFacts({
      agent: "codex",
      session_id: "p1",
      started_at: T0 + 5 * MIN,
      title: "first",
      git_branch: "main",
    });
    await agents.upsertSessionFacts({ agent: "codex", session_id: "p1", started_at: T0 + 9 * MIN });
    const parent = await agents.getSession("p1");
    assert.deepEqual(
      [parent!.started_at, parent!.title, parent!.git_branch, parent!.transcript_path, parent!.cwd],
      [T0 + 5 * MIN, "first", "main", "/t/p1.jsonl", "/w/x"],
    );
    const child: SessionInfo = {
      agent: "claude_code",
      session_id: "p2/agent-a1",
      parent_session_id: "p2",
      is_subagent: true,
      subagent_type: "Explore",
      started_at: T0 + 3 * MIN,
      cwd: "/w/y",
    };
    await agents.upsertSessionFacts(child);
    const made = await agents.getSession("p2");
    assert.deepEqual(
      [made!.agent, made!.started_at, made!.project, made!.is_subagent],
      ["claude_code", T0 + 3 * MIN, "/w/y", 0],
    );
    const sub = await agents.getSession("p2/agent-a1");
    assert.deepEqual([sub!.is_subagent, sub!.subagent_type, sub!.parent_session_id], [
      1,
      "Explore",
      "p2",
    ]);
  },
);

conformance("messages are stored once per key and move their sessions' counters", async (b) => {
  const { agents } = b;
  await agents.upsertSessionFacts({
    agent: "claude_code",
    session_id: "p/agent-1",
    parent_session_id: "p",
    is_subagent: true,
    started_at: T0,
  });
  const batch = [
    message("p", "k1", 1, { message_type: "user", role: "user", text: "hello there", cwd: "/w" }),
    message("p", "k2", 2, { model: "m-a" }),
    message("p", "k2", 3, { text: "a second k2 in the batch" }),
    message("p", "k3", 4, { message_type: "tool_use", tool_name: "Bash" }),
    message("p/agent-1", "c1", 5, { message_type: "tool_use", tool_name: "Read" }),
  ];
  assert.equal(await agents.insertMessages(batch), 4);
  assert.equal(await agents.insertMessages(batch), 0);
  assert.equal(await agents.insertMessages([]), 0);
  const parent = (await agents.getSession("p"))!;
  assert.deepEqual(
    [parent.message_count, parent.tool_calls, parent.model, parent.cwd, parent.last_activity_at],
    [4, 2, "m-a", "/w", T0 + 5 * MIN],
  );
  const child = (await agents.getSession("p/agent-1"))!;
  assert.deepEqual([child.message_count, child.tool_calls], [1, 1]);
  const page = await agents.transcriptPage("p", { limit: 10, offset: 0 });
  assert.deepEqual(page.map((m) => [m.ts, m.text]), [
    [T0 + 4 * MIN, "message k3"],
    [T0 + 2 * MIN, "message k2"],
    [T0 + MIN, "hello there"],
  ]);
  // Many at once: more than one statement's worth on either backend.
  const many = Array.from({ length: 2_345 }, (_, i) => message("big", `m${i}`, i));
  assert.equal(await agents.insertMessages([...many, ...many.slice(0, 10)]), 2_345);
  assert.equal((await agents.getSession("big"))!.message_count, 2_345);
  assert.ok((await agents.maxMessageId()) >= 2_349);
});

conformance(
  "message reads: recent, pages by type, the timeline, ids in insertion order",
  async (b) => {
    const { agents } = b;
    await agents.insertMessages([
      message("s", "a", 1, { message_type: "user", role: "user", text: "run the tests" }),
      message("s", "b", 2, { text: "" }),
      message("s", "c", 3, {
        message_type: "tool_use",
        tool_name: "Bash",
        tool_use_id: "t1",
        text: '{"command":"npm test"}',
        command_prefix: "npm test",
      }),
      message("s", "d", 4, {
        message_type: "tool_result",
        role: "tool",
        tool_use_id: "t1",
        is_error: true,
        text: "1 failing",
      }),
      message("s", "e", 5, { message_type: "thinking", text: "hmm" }),
    ]);
    const recent = await agents.recentMessages("s", 3);
    assert.deepEqual(withoutIds(recent), [
      {
        session_id: "s",
        ts: T0 + 5 * MIN,
        role: "assistant",
        message_type: "thinking",
        text: "hmm",
        tool_name: null,
        is_error: null,
        file_path: null,
      },
      {
        session_id: "s",
        ts: T0 + 4 * MIN,
        role: "tool",
        message_type: "tool_result",
        text: "1 failing",
        tool_name: null,
        is_error: 1,
        file_path: null,
      },
      {
        session_id: "s",
        ts: T0 + 3 * MIN,
        role: "assistant",
        message_type: "tool_use",
        text: '{"command":"npm test"}',
        tool_name: "Bash",
        is_error: null,
        file_path: null,
      },
    ]);
    assert.ok(increasing(recent.map((m) => m.id).reverse()));
    const page = await agents.transcriptPage("s", { limit: 1, offset: 1 });
    assert.deepEqual(page.map((m) => m.text), ["1 failing", '{"command":"npm test"}']);
    const typed = await agents.transcriptPage("s", { limit: 5, offset: 0, messageType: "user" });
    assert.deepEqual(typed.map((m) => m.text), ["run the tests"]);
    const timeline = await agents.timelineMessages("s", 10, 5);
    assert.deepEqual(timeline.map(({ id: _id, ...m }) => m), [
      {
        ts: T0 + MIN,
        role: "user",
        message_type: "user",
        text: "run t",
        tool_name: null,
        tool_use_id: null,
        is_error: null,
        file_path: null,
        command_prefix: null,
        subagent_id: null,
      },
      {
        ts: T0 + 3 * MIN,
        role: "assistant",
        message_type: "tool_use",
        text: '{"com',
        tool_name: "Bash",
        tool_use_id: "t1",
        is_error: null,
        file_path: null,
        command_prefix: "npm test",
        subagent_id: null,
      },
      {
        ts: T0 + 4 * MIN,
        role: "tool",
        message_type: "tool_result",
        text: "1 fai",
        tool_name: null,
        tool_use_id: "t1",
        is_error: 1,
        file_path: null,
        command_prefix: null,
        subagent_id: null,
      },
    ]);
  },
);

conformance("substring search: case-folded, literal % and _, scoped, bounded scan", async (b) => {
  const { agents } = b;
  await agents.insertMessages([
    message("s1", "1", 1, { text: "Coverage is 100% now" }),
    message("s1", "2", 2, { text: "the snake_case name" }),
    message("s2", "3", 3, { text: "COVERAGE dropped" }),
    message("s2", "4", 4, { text: "snakeXcase is not it" }),
  ]);
  const texts = (r: { rows: MessageRow[] }) => r.rows.map((m) => m.text);
  assert.deepEqual(texts(await agents.searchMessagesBySubstring("coverage", null, 0, 10)), [
    "COVERAGE dropped",
    "Coverage is 100% now",
  ]);
  assert.deepEqual(texts(await agents.searchMessagesBySubstring("100%", null, 0, 10)), [
    "Coverage is 100% now",
  ]);
  assert.deepEqual(texts(await agents.searchMessagesBySubstring("snake_case", null, 0, 10)), [
    "the snake_case name",
  ]);
  assert.deepEqual(texts(await agents.searchMessagesBySubstring("coverage", ["s1"], 0, 10)), [
    "Coverage is 100% now",
  ]);
  assert.deepEqual(await agents.searchMessagesBySubstring("coverage", [], 0, 10), {
    rows: [],
    scanned_all: true,
  });
  assert.deepEqual(
    texts(await agents.searchMessagesBySubstring("coverage", null, T0 + 2 * MIN, 10)),
    ["COVERAGE dropped"],
  );
  // Only the newest two messages are examined: the older match is not seen, and it says so.
  const bounded = await agents.searchMessagesBySubstring("coverage", null, 0, 10, 2);
  assert.deepEqual([texts(bounded), bounded.scanned_all], [["COVERAGE dropped"], false]);
  const capped = await agents.searchMessagesBySubstring("coverage", null, 0, 1);
  assert.deepEqual([texts(capped), capped.scanned_all], [["COVERAGE dropped"], true]);
});

conformance("word search: every word, newest first, scoped, tool names indexed", async (b) => {
  const { agents } = b;
  await agents.insertMessages([
    message("s1", "1", 1, { text: "the flaky integration test failed again" }),
    message("s1", "2", 2, { text: "integration works now" }),
    message("s2", "3", 3, { text: "an integration test for the parser" }),
    message("s2", "4", 4, { message_type: "tool_use", tool_name: "WebFetch", text: "{}" }),
  ]);
  const search = await b.search();
  assert.equal(await search.indexedTo(), await agents.maxMessageId());
  const texts = (rows: MessageRow[]) => rows.map((m) => m.text);
  assert.deepEqual(texts(await search.searchByTerms('"integration" "test"', null, 0, 10)), [
    "an integration test for the parser",
    "the flaky integration test failed again",
  ]);
  assert.deepEqual(texts(await search.searchByTerms('"integration" "test"', ["s1"], 0, 10)), [
    "the flaky integration test failed again",
  ]);
  assert.deepEqual(texts(await search.searchByTerms('"integration"', null, T0 + 2 * MIN, 1)), [
    "an integration test for the parser",
  ]);
  assert.deepEqual(texts(await search.searchByTerms('"webfetch"', null, 0, 10)), ["{}"]);
  assert.deepEqual(await search.searchByTerms('"integration"', [], 0, 10), []);
  assert.deepEqual(await search.searchByTerms('"nowhere"', null, 0, 10), []);
});

conformance(
  "usage: new keys counted once, grown figures merged, totals moved by the difference",
  async (b) => {
    const { agents } = b;
    await agents.upsertSessionFacts({
      agent: "claude_code",
      session_id: "p/agent-1",
      parent_session_id: "p",
      is_subagent: true,
      started_at: T0,
    });
    assert.equal(
      await agents.insertUsage([
        usage("u1", "p", 1, { output_tokens: 10 }),
        usage("u2", "p", 2, { model: "free-model", context_window: 200_000 }),
        usage("u3", "p/agent-1", 3, { output_tokens: 500 }),
      ], price),
      3,
    );
    // The same call again with grown output, and a repeat that adds nothing.
    assert.equal(
      await agents.insertUsage([usage("u1", "p", 1, { output_tokens: 2000 })], price),
      0,
    );
    assert.equal(await agents.insertUsage([usage("u1", "p", 1, { output_tokens: 5 })], price), 0);
    const p = (await agents.getSession("p"))!;
    assert.deepEqual(
      [p.input_tokens, p.output_tokens, p.cache_read_tokens, p.cost_usd, p.unpriced_calls],
      [300, 2510, 3000, 2.5, 1],
    );
    // Context: the latest call of the session's own (a sub-agent's stays its own).
    assert.deepEqual([p.context_tokens, p.context_window, p.model], [
      1150,
      200_000,
      "claude-sonnet-4-5",
    ]);
    const child = (await agents.getSession("p/agent-1"))!;
    assert.deepEqual([child.output_tokens, child.cost_usd], [500, 0.5]);
    assert.deepEqual(await agents.sessionUsage("p", 10), [
      {
        ts: T0 + MIN,
        model: "claude-sonnet-4-5",
        input_tokens: 100,
        output_tokens: 2000,
        cache_read_tokens: 1000,
        cache_write_tokens: 50,
        cost_usd: 2,
        priced: 1,
      },
      {
        ts: T0 + 2 * MIN,
        model: "free-model",
        input_tokens: 100,
        output_tokens: 10,
        cache_read_tokens: 1000,
        cache_write_tokens: 50,
        cost_usd: 0,
        priced: 0,
      },
    ]);
    assert.deepEqual(await agents.usageSince("p", T0 + 2 * MIN), [{
      usage_key: "u2",
      ts: T0 + 2 * MIN,
      model: "free-model",
      input_tokens: 100,
      output_tokens: 10,
      cache_read_tokens: 1000,
      cache_write_tokens: 50,
      reasoning_tokens: 0,
      context_window: 200_000,
    }]);
    assert.deepEqual(await agents.usageTotals(T0, T0 + 10 * MIN), {
      input_tokens: 300,
      output_tokens: 2510,
      cache_read_tokens: 3000,
      cache_write_tokens: 150,
      cost_usd: 2.5,
      calls: 3,
      unpriced_calls: 1,
    });
    assert.deepEqual(await agents.unpricedModels(T0, T0 + 10 * MIN, 5), [
      { model: "free-model", calls: 1 },
    ]);
    const buckets = await agents.usageBuckets({
      since: T0,
      until: T0 + 10 * MIN,
      bucketMs: 2 * MIN,
      groupBy: "model",
    });
    assert.deepEqual(
      buckets.map((r) => [r.bucket - T0, r.series_key, r.output_tokens, r.calls, r.unpriced_calls])
        .sort((x, y) => String(x).localeCompare(String(y))),
      [
        [0, "claude-sonnet-4-5", 2000, 1, 0],
        [2 * MIN, "claude-sonnet-4-5", 500, 1, 0],
        [2 * MIN, "free-model", 10, 1, 1],
      ].sort((x, y) => String(x).localeCompare(String(y))),
    );
    assert.deepEqual(
      await agents.usageBuckets({
        since: T0,
        until: T0 + 10 * MIN,
        bucketMs: 10 * MIN,
        groupBy: "agent",
        agents: ["codex"],
      }),
      [],
    );
    // New prices: every output token now costs twice as much, and free models get a price.
    const doubled = (record: CountedUsage): CallPrice => ({
      priced: true,
      usd: record.output_tokens / 500,
    });
    assert.equal(await agents.repriceUsage(doubled), 3);
    assert.equal(await agents.repriceUsage(doubled), 0);
    const repriced = (await agents.getSession("p"))!;
    assert.deepEqual([repriced.cost_usd, repriced.unpriced_calls], [5.02, 0]);
  },
);

conformance("transcript cursors and tool outcomes", async (b) => {
  const { agents } = b;
  assert.equal(await agents.getTranscriptCursor("/t/a.jsonl"), undefined);
  const cursor = {
    path: "/t/a.jsonl",
    agent: "codex",
    byte_offset: 100,
    file_size: 120,
    parser_state: '{"turn":1}',
    lines: 3,
    malformed: 0,
    unknown_types: 1,
  };
  await agents.saveTranscriptCursor(cursor, T0);
  await agents.saveTranscriptCursor({ ...cursor, byte_offset: 5_000_000_000, lines: 9 }, T0 + 1);
  assert.deepEqual(await agents.getTranscriptCursor("/t/a.jsonl"), {
    ...cursor,
    byte_offset: 5_000_000_000,
    lines: 9,
  });
  // An event whose outcome is unknown, completed by the outcome read later.
  await agents.insertHookEvent(
    hook("s", 1, { agent: "codex", tool_name: "exec_command", tool_use_id: "c1" }),
    "e1",
    T0,
  );
  const completed = await agents.recordToolOutcomes([
    {
      agent: "codex",
      session_id: "s",
      tool_use_id: "c1",
      ts: T0,
      success: false,
      exit_code: 2,
      error: "boom",
    },
    { agent: "codex", session_id: "s", tool_use_id: "c2", ts: T0, success: true, exit_code: 0 },
    { agent: "codex", session_id: "s", tool_use_id: "c1", ts: T0, success: true },
  ]);
  assert.deepEqual(completed, [{
    session_id: "s",
    tool_use_id: "c1",
    success: false,
    error: "boom",
  }]);
  assert.deepEqual(await agents.findToolOutcome("s", "c1"), {
    success: false,
    exit_code: 2,
    error: "boom",
  });
  assert.deepEqual(await agents.findToolOutcome("s", "c2"), { success: true, exit_code: 0 });
  assert.equal(await agents.findToolOutcome("s", "c3"), undefined);
  assert.deepEqual(await agents.recordToolOutcomes([]), []);
  assert.deepEqual(await agents.toolCountsFromEvents("s"), [
    { tool_name: "exec_command", calls: 1, failures: 1 },
  ]);
});

/** Sessions for the listing cases: projects, agents, times, a sub-agent, an empty one. */
async function seedSessions(b: Backend): Promise<void> {
  const { agents } = b;
  const seen: Array<[string, string, string, number]> = [
    ["a1", "claude_code", "/w/shop", 1],
    ["a2", "codex", "/w/shop/api", 2],
    ["a3", "claude_code", "C:\\w\\shop", 3],
    ["b1", "claude_code", "/w/shopping", 4],
    ["c_1", "copilot_cli", "/x/my_app", 5],
    ["cx1", "copilot_cli", "/x/myXapp", 6],
  ];
  for (const [id, agent, project, n] of seen) {
    await agents.insertHookEvent(
      hook(id, n, { agent: agent as HookEvent["agent"], cwd: project }),
      `d-${id}`,
      T0,
    );
  }
  await agents.upsertSessionFacts({ agent: "claude_code", session_id: "empty", cwd: "/w/shop" });
  await agents.upsertSessionFacts({
    agent: "claude_code",
    session_id: "a1/agent-x",
    parent_session_id: "a1",
    is_subagent: true,
    started_at: T0 + 7 * MIN,
  });
  await agents.insertMessages([message("a1/agent-x", "m", 8)]);
  await agents.insertUsage([usage("u-a2", "a2", 2, { output_tokens: 3000 })], price);
}

conformance("session listings: by project path or name, agents, time, non-empty", async (b) => {
  await seedSessions(b);
  const { agents } = b;
  const ids = (rows: Array<{ session_id: string }>) => rows.map((r) => r.session_id);
  assert.deepEqual(ids(await agents.listSessions({ projectPrefix: "/w/shop/", limit: 10 })), [
    "a1",
    "a2",
    "empty",
  ]);
  assert.deepEqual(ids(await agents.listSessions({ projectPrefix: "C:\\w", limit: 10 })), ["a3"]);
  assert.deepEqual(ids(await agents.listSessions({ projectName: "shop", limit: 10 })), [
    "a1",
    "a3",
    "empty",
  ]);
  assert.deepEqual(ids(await agents.listSessions({ projectName: "my_app", limit: 10 })), ["c_1"]);
  assert.deepEqual(
    ids(await agents.listSessions({ agents: ["codex", "copilot_cli"], limit: 10 })),
    ["cx1", "c_1", "a2"],
  );
  assert.deepEqual(ids(await agents.listSessions({ agents: [], limit: 10 })), []);
  assert.deepEqual(
    ids(await agents.listSessions({ since: T0 + 4 * MIN, nonEmpty: true, limit: 10 })),
    ["a1", "cx1", "c_1", "b1"],
  );
  assert.deepEqual(ids(await agents.listSessions({ nonEmpty: true, limit: 2 })), ["a1", "cx1"]);
  assert.equal((await agents.latestSessionFor("/w/shop"))!.session_id, "a1");
  assert.equal((await agents.latestSessionFor("/w/shop", "codex"))!.session_id, "a2");
  // No session of that agent there: the folder's latest of any agent.
  assert.equal((await agents.latestSessionFor("/w/shop", "openclaw"))!.session_id, "a1");
  assert.equal(await agents.latestSessionFor("/nowhere"), undefined);
  // A team server's person: their sessions, or (null) only the server owner's.
  await agents.insertHookEvent(hook("p1", 9, { cwd: "/w/shop", person: "ana" }), "d-p1", T0);
  assert.deepEqual(ids(await agents.listSessions({ person: "ana", limit: 10 })), ["p1"]);
  assert.deepEqual(
    ids(await agents.listSessions({ projectPrefix: "/w/shop", person: null, limit: 10 })),
    ["a1", "a2", "empty"],
  );
  assert.deepEqual(
    ids(await agents.listSessionsFiltered({ person: "bo", limit: 5, offset: 0 })),
    [],
  );
  assert.deepEqual(
    ids(await agents.listSessionsFiltered({ person: "ana", limit: 5, offset: 0 })),
    ["p1"],
  );
});

conformance("session ids by prefix, sub-agents and their totals", async (b) => {
  await seedSessions(b);
  const { agents } = b;
  const ids = (rows: Array<{ session_id: string }>) => rows.map((r) => r.session_id);
  assert.deepEqual(ids(await agents.sessionsByPrefix("a", 10)), ["a1", "a3", "a2"]);
  assert.deepEqual(ids(await agents.sessionsByPrefix("a1/", 10)), ["a1/agent-x"]);
  assert.deepEqual(ids(await agents.sessionsByPrefix("c_", 10)), ["c_1"]);
  assert.deepEqual(ids(await agents.sessionsByPrefix("a", 1)), ["a1"]);
  assert.deepEqual(ids(await agents.subagentsOf(["a1", "a2"])), ["a1/agent-x"]);
  assert.deepEqual(await agents.subagentsOf([]), []);
  assert.deepEqual(await agents.subagentsOf(["a1"], 0), []);
  const totals = await agents.subagentTotals(["a1", "a2"]);
  assert.deepEqual([...totals.keys()], ["a1"]);
  assert.deepEqual(totals.get("a1"), {
    count: 1,
    message_count: 1,
    tool_calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
    unpriced_calls: 0,
  });
  assert.deepEqual(await agents.subagentTotals([]), new Map());
});

conformance("sessions by exact ids: those that exist, once each, in id order", async (b) => {
  await seedSessions(b);
  const { agents } = b;
  const ids = (rows: Array<{ session_id: string }>) => rows.map((r) => r.session_id);
  const asked = ["cx1", "a1/agent-x", "nope", "c_1", "a1", "cx1", "a1", "a"];
  const found = await agents.getSessions(asked);
  assert.deepEqual(ids(found), ["a1", "a1/agent-x", "c_1", "cx1"]);
  // The same rows, field for field, as reading each one alone.
  for (const row of found) assert.deepEqual(row, await agents.getSession(row.session_id));
  assert.equal(found[1].parent_session_id, "a1");
  assert.equal(found[1].is_subagent, 1);
  assert.deepEqual(await agents.getSessions([]), []);
  assert.deepEqual(await agents.getSessions(["nope", "a1/", "A1"]), []);
  assert.deepEqual(ids(await agents.getSessions(["b1", "b1"])), ["b1"]);
});

conformance(
  "the dashboard's filtered listing, the overview's counts, the change feed",
  async (b) => {
    await seedSessions(b);
    const { agents } = b;
    await b.seedAnomaly("a2", false);
    await b.seedAnomaly("b1", true);
    const ids = (rows: Array<{ session_id: string }>) => rows.map((r) => r.session_id);
    const page = await agents.listSessionsFiltered({ limit: 2, offset: 1 });
    assert.deepEqual(ids(page), ["cx1", "c_1", "b1"]);
    const anomalous = await agents.listSessionsFiltered({
      hasAnomalies: true,
      limit: 5,
      offset: 0,
    });
    assert.deepEqual(anomalous.map((r) => [r.session_id, r.anomaly_count, r.tool_failures]), [
      ["a2", 1, 0],
    ]);
    assert.deepEqual(
      ids(
        await agents.listSessionsFiltered({
          hasAnomalies: false,
          minCost: 0.0001,
          limit: 5,
          offset: 0,
        }),
      ),
      [],
    );
    assert.deepEqual(
      ids(await agents.listSessionsFiltered({ minCost: 2.5, limit: 5, offset: 0 })),
      ["a2"],
    );
    assert.deepEqual(
      ids(
        await agents.listSessionsFiltered({
          since: T0 + 2 * MIN,
          until: T0 + 5 * MIN,
          agents: ["claude_code"],
          limit: 5,
          offset: 0,
        }),
      ),
      ["b1", "a3"],
    );
    assert.deepEqual(await agents.activeSessionsByAgent(T0 + 3 * MIN), [
      { agent: "claude_code", sessions: 3, last_activity_at: T0 + 8 * MIN },
      { agent: "copilot_cli", sessions: 2, last_activity_at: T0 + 6 * MIN },
    ]);
    assert.equal(await agents.sessionsStartedSince(T0 + 3 * MIN), 4);
    assert.deepEqual(await agents.activeProjects(T0 + 2 * MIN, 3), [
      "/w/shop",
      "/x/myXapp",
      "/x/my_app",
    ]);
    const feed = await agents.sessionsAfter(0, 100);
    assert.deepEqual(ids(feed), ["a1", "a2", "a3", "b1", "c_1", "cx1", "empty", "a1/agent-x"]);
    assert.deepEqual(feed[0], {
      session_id: "a1",
      agent: "claude_code",
      project: "/w/shop",
      started_at: T0 + MIN,
    });
    assert.deepEqual(ids(await agents.sessionsAfter(0, 2)), ["a1", "a2"]);
    const mark = await b.sessionMark();
    await agents.insertHookEvent(hook("a1", 20), "d-again", T0);
    await agents.insertHookEvent(hook("new", 21), "d-new", T0);
    assert.deepEqual(ids(await agents.sessionsAfter(mark, 100)), ["new"]);
  },
);

conformance(
  "what a session did: tools from transcripts with its sub-agents, files, prompts, totals",
  async (b) => {
    const { agents } = b;
    await agents.upsertSessionFacts({
      agent: "claude_code",
      session_id: "s/agent-1",
      parent_session_id: "s",
      is_subagent: true,
      started_at: T0,
    });
    await agents.insertMessages([
      message("s", "u1", 1, { message_type: "user", role: "user", text: "first ask" }),
      message("s", "t1", 2, {
        message_type: "tool_use",
        tool_name: "Edit",
        tool_use_id: "x1",
        file_path: "/w/a.ts",
      }),
      message("s", "r1", 3, {
        message_type: "tool_result",
        role: "tool",
        tool_use_id: "x1",
        is_error: true,
      }),
      message("s/agent-1", "t2", 4, {
        message_type: "tool_use",
        tool_name: "Read",
        tool_use_id: "x2",
        file_path: "/w/b.ts",
      }),
      message("s/agent-1", "t3", 5, {
        message_type: "tool_use",
        tool_name: "Edit",
        tool_use_id: "x3",
        file_path: "/w/a.ts",
      }),
      message("s", "t4", 6, {
        message_type: "tool_use",
        tool_name: "Edit",
        tool_use_id: "x4",
        file_path: "/w/c.ts",
      }),
    ]);
    await agents.insertHookEvent(
      hook("s", 7, { event_type: "UserPromptSubmit", prompt: "second ask" }),
      "p2",
      T0,
    );
    await agents.insertHookEvent(
      hook("s", 8, { event_type: "PreToolUse", tool_name: "Write", file_path: "/w/d.ts" }),
      "w1",
      T0,
    );
    assert.deepEqual(await agents.toolCountsFromMessages("s"), [
      { tool_name: "Edit", calls: 3, failures: 1 },
      { tool_name: "Read", calls: 1, failures: 0 },
    ]);
    assert.deepEqual(await agents.recentFiles("s", 3), [
      { path: "/w/d.ts", tool_name: "Write", ts: T0 + 8 * MIN },
      { path: "/w/c.ts", tool_name: "Edit", ts: T0 + 6 * MIN },
      { path: "/w/a.ts", tool_name: "Edit", ts: T0 + 5 * MIN },
    ]);
    assert.deepEqual(await agents.lastPrompt("s"), { text: "second ask", ts: T0 + 7 * MIN });
    assert.equal(await agents.lastPrompt("nobody"), undefined);
    // A session with hooks only counts its hook events; one with a transcript, the transcript.
    await agents.insertHookEvent(hook("h", 3, { tool_name: "Bash", success: false }), "h1", T0);
    await agents.insertHookEvent(hook("h", 4, { tool_name: "Bash", success: true }), "h2", T0);
    await agents.insertHookEvent(
      hook("s", 5, { tool_name: "Bash", success: false }),
      "s-ignored",
      T0,
    );
    assert.deepEqual(await agents.toolCallTotals(T0, T0 + 10 * MIN), {
      calls: 6,
      failures: 2,
      sessions: 2,
    });
    assert.deepEqual(await agents.toolCallTotals(T0 + 20 * MIN, T0 + 30 * MIN), {
      calls: 0,
      failures: 0,
      sessions: 0,
    });
  },
);

conformance(
  "the security scan's reads: hook commands, shell calls, tool results and the call a result answers",
  async (b) => {
    const { agents } = b;
    await agents.insertHookEvent(
      hook("s1", 1, { tool_name: "Bash", command: "npm test" }),
      "h1",
      T0,
    );
    await agents.insertHookEvent(hook("s1", 2, { tool_name: "Bash", command: "" }), "h2", T0);
    await agents.insertHookEvent(
      hook("s1", 3, { tool_name: "Bash", tool_use_id: "u9", command: "git status" }),
      "h3",
      T0,
    );
    await agents.insertHookEvent(hook("s1", 4, { tool_name: "Edit" }), "h4", T0);
    const window = { since: T0, until: T0 + 10 * MIN };
    assert.deepEqual(await agents.hookShellCommands(window, 10), {
      rows: [
        {
          source: "hook",
          ts: T0 + 3 * MIN,
          agent: "claude_code",
          session_id: "s1",
          tool_name: "Bash",
          tool_use_id: "u9",
          text: "git status",
        },
        {
          source: "hook",
          ts: T0 + MIN,
          agent: "claude_code",
          session_id: "s1",
          tool_name: "Bash",
          tool_use_id: null,
          text: "npm test",
        },
      ],
      truncated: false,
    });
    const capped = await agents.hookShellCommands(window, 1);
    assert.deepEqual([capped.rows.map((r) => r.text), capped.truncated], [["git status"], true]);
    assert.deepEqual(
      (await agents.hookShellCommands({ since: T0 + 2 * MIN, until: T0 + 3 * MIN }, 10)).rows,
      [],
    );

    const long = "x".repeat(70_000);
    await agents.insertMessages([
      message("s2", "m1", 1, {
        message_type: "tool_use",
        tool_name: "Bash",
        tool_use_id: "t1",
        text: '{"command":"ls"}',
      }),
      message("s2", "m2", 2, {
        message_type: "tool_use",
        tool_name: "shell",
        tool_use_id: "t2",
        text: '{"command":"pwd"}',
      }),
      message("s2", "m3", 3, {
        message_type: "tool_use",
        tool_name: "Read",
        tool_use_id: "t3",
        text: '{"path":"a"}',
      }),
      message("s2", "m4", 4, {
        message_type: "tool_result",
        role: "user",
        tool_use_id: "t1",
        text: long,
      }),
      message("s2", "m5", 5, {
        message_type: "tool_result",
        role: "user",
        tool_use_id: "t2",
        text: "",
      }),
    ]);
    const shell = await agents.transcriptShellCalls(window, ["bash", "shell"], 10);
    assert.deepEqual(shell.rows.map((r) => [r.source, r.tool_name, r.tool_use_id, r.text]), [
      ["transcript", "shell", "t2", '{"command":"pwd"}'],
      ["transcript", "Bash", "t1", '{"command":"ls"}'],
    ]);
    assert.equal(shell.truncated, false);
    assert.deepEqual((await agents.transcriptShellCalls(window, [], 10)).rows, []);
    const results = await agents.transcriptToolResults(window, 10);
    assert.deepEqual(results.rows.map((r) => [r.tool_use_id, r.text.length]), [["t1", 65_536]]);
    assert.deepEqual(await agents.transcriptToolCall("s2", "t1"), {
      tool_name: "Bash",
      text: '{"command":"ls"}',
    });
    assert.equal(await agents.transcriptToolCall("s2", "t9"), undefined);
    assert.equal(await agents.transcriptToolCall("s1", "t1"), undefined);
  },
);

conformance(
  "a push claims the sessions the store lacks (and a sub-agent's parent) for its person; stored ones keep theirs",
  async ({ agents }) => {
    const byId = (owners: SessionOwner[]) =>
      [...owners].sort((a, b) => a.session_id.localeCompare(b.session_id));
    const facts = (id: string, fields: Partial<SyncSession> = {}): SyncSession => ({
      session_id: id,
      agent: "claude_code",
      cwd: "/work/app",
      started_at: T0,
      last_activity_at: T0 + MIN,
      is_subagent: false,
      ...fields,
    });
    const first = await agents.claimSessions(
      [
        facts("p"),
        facts("p2/agent-1", {
          is_subagent: true,
          parent_session_id: "p2",
          subagent_type: "Explore",
        }),
      ],
      "ada",
      "laptop-a",
    );
    assert.deepEqual(byId(first), [
      {
        session_id: "p",
        person: "ada",
        parent_session_id: null,
        is_subagent: 0,
        parent_person: null,
      },
      {
        session_id: "p2",
        person: "ada",
        parent_session_id: null,
        is_subagent: 0,
        parent_person: null,
      },
      {
        session_id: "p2/agent-1",
        person: "ada",
        parent_session_id: "p2",
        is_subagent: 1,
        parent_person: "ada",
      },
    ]);
    const second = await agents.claimSessions([facts("p"), facts("q")], "bob", "laptop-b");
    assert.deepEqual(byId(second).map((o) => [o.session_id, o.person]), [["p", "ada"], [
      "q",
      "bob",
    ]]);
    const stored = await agents.getSession("p2/agent-1");
    assert.equal(stored?.subagent_type, "Explore");
    assert.equal(stored?.cwd, "/work/app");
    assert.equal(stored?.last_activity_at, T0 + MIN);
    await agents.insertUsage([usage("u1", "q", 1)], price);
    assert.deepEqual(await agents.usageOwners(["u1", "u-missing"]), [
      { usage_key: "u1", session_id: "q", person: "bob" },
    ]);
    assert.deepEqual(await agents.claimSessions([], "ada", null), []);
  },
);

conformance(
  "a push reads records after a position, up to a mark, at most a limit, and what they touched",
  async ({ agents }) => {
    const none = { events: 0, messages: 0, usage: 0 };
    assert.deepEqual(await agents.syncHighWater(), none);
    assert.deepEqual(await agents.eventsAfter(0, 100, 10), []);
    assert.deepEqual(await agents.sessionsTouched(none, none), []);
    // "Zed" sorts before "alpha" by bytes (as SQLite compares), after it by most locales.
    await agents.insertHookEvent(
      hook("alpha", 1, {
        tool_name: "Bash",
        tool_use_id: "t1",
        command: "npm test",
        command_prefix: "npm test",
        success: false,
        error: "exit 1",
        duration_ms: 5_000_000_000,
        model: "claude-sonnet-4-5",
        host: "laptop-a",
      }),
      "d1",
      T0 + 1,
    );
    await agents.insertHookEvent(
      hook("Zed", 2, { event_type: "UserPromptSubmit", prompt: "go", raw: { prompt: "go" } }),
      "d2",
      T0 + 2,
    );
    await agents.insertMessages([
      message("alpha", "m1", 1, {
        role: "tool",
        message_type: "tool_result",
        tool_name: "Bash",
        tool_use_id: "t1",
        is_error: true,
        cwd: "/work/app",
        command_prefix: "npm test",
      }),
      message("Zed", "m2", 2, { subagent_id: "agent-1", file_path: "/work/app/a.ts" }),
    ]);
    await agents.insertUsage(
      [
        usage("u1", "alpha", 1, { service_tier: "standard", context_window: 200_000 }),
        usage("u2", "Zed", 2, {
          model: "free-model",
          cache_write_1h_tokens: 7,
          web_search_requests: 2,
          reported_cost_usd: 0.25,
          calls: 3,
        }),
      ],
      price,
    );
    await agents.recordToolOutcomes([
      { agent: "claude_code", session_id: "alpha", tool_use_id: "t1", ts: T0, success: false },
      { agent: "claude_code", session_id: "alpha", tool_use_id: "T2", ts: T0, success: true },
      {
        agent: "codex",
        session_id: "Zed",
        tool_use_id: "c1",
        ts: T0 + 1,
        success: false,
        exit_code: 2,
        error: "boom",
      },
    ]);
    const first = await agents.syncHighWater();

    const events = await agents.eventsAfter(0, first.events, 10);
    assert.ok(increasing(events.map((e) => e.seq)));
    assert.equal(events[1].seq, first.events);
    assert.deepEqual(events.map(({ seq: _seq, ...rest }) => rest), [
      {
        delivery_id: "d1",
        received_at: T0 + 1,
        event: {
          agent: "claude_code",
          session_id: "alpha",
          cwd: "/work/app",
          project: "/work/app",
          event_type: "PostToolUse",
          ts: T0 + MIN,
          tool_name: "Bash",
          tool_use_id: "t1",
          command: "npm test",
          command_prefix: "npm test",
          success: false,
          error: "exit 1",
          duration_ms: 5_000_000_000,
          model: "claude-sonnet-4-5",
          host: "laptop-a",
          raw: { n: 1 },
        },
      },
      {
        delivery_id: "d2",
        received_at: T0 + 2,
        event: {
          agent: "claude_code",
          session_id: "Zed",
          cwd: "/work/app",
          project: "/work/app",
          event_type: "UserPromptSubmit",
          ts: T0 + 2 * MIN,
          prompt: "go",
          raw: { prompt: "go" },
        },
      },
    ]);
    // A limit, then the rest after the last one read; nothing past the mark.
    assert.deepEqual(await agents.eventsAfter(0, first.events, 1), [events[0]]);
    assert.deepEqual(await agents.eventsAfter(events[0].seq, first.events, 10), [events[1]]);
    assert.deepEqual(await agents.eventsAfter(0, events[0].seq, 10), [events[0]]);
    assert.deepEqual(await agents.eventsAfter(first.events, first.events + 100, 10), []);

    const messages = await agents.messagesAfter(0, first.messages, 10);
    assert.ok(increasing(messages.map((m) => m.seq)));
    assert.equal(messages[1].seq, first.messages);
    assert.deepEqual(messages.map((m) => m.message), [
      message("alpha", "m1", 1, {
        role: "tool",
        message_type: "tool_result",
        tool_name: "Bash",
        tool_use_id: "t1",
        is_error: true,
        cwd: "/work/app",
        command_prefix: "npm test",
      }),
      message("Zed", "m2", 2, { subagent_id: "agent-1", file_path: "/work/app/a.ts" }),
    ]);
    assert.deepEqual(await agents.messagesAfter(messages[0].seq, first.messages, 1), [
      messages[1],
    ]);

    const calls = await agents.usageAfter(0, first.usage, 10);
    assert.ok(increasing(calls.map((u) => u.seq)));
    assert.equal(calls[1].seq, first.usage);
    const sent = (key: string, sessionId: string, n: number, fields: Partial<CountedUsage>) => ({
      ...usage(key, sessionId, n, fields),
      cache_write_1h_tokens: 0,
      web_search_requests: 0,
      calls: 1,
      ...fields,
    });
    assert.deepEqual(calls.map((u) => u.usage), [
      sent("u1", "alpha", 1, { service_tier: "standard", context_window: 200_000 }),
      sent("u2", "Zed", 2, {
        model: "free-model",
        cache_write_1h_tokens: 7,
        web_search_requests: 2,
        reported_cost_usd: 0.25,
        calls: 3,
      }),
    ]);
    assert.deepEqual(await agents.usageAfter(0, first.usage, 1), [calls[0]]);

    assert.deepEqual(await agents.sessionsTouched(none, first), ["Zed", "alpha"]);
    assert.deepEqual(await agents.sessionsTouched(first, first), []);
    assert.deepEqual(await agents.toolOutcomesOf(["alpha", "Zed", "missing"]), [
      {
        agent: "codex",
        session_id: "Zed",
        tool_use_id: "c1",
        ts: T0 + 1,
        success: false,
        exit_code: 2,
        error: "boom",
      },
      { agent: "claude_code", session_id: "alpha", tool_use_id: "T2", ts: T0, success: true },
      { agent: "claude_code", session_id: "alpha", tool_use_id: "t1", ts: T0, success: false },
    ]);
    assert.deepEqual(await agents.toolOutcomesOf([]), []);

    // A call whose figures grew keeps its position: not after the mark, but read again with
    // its session at its current figures; a new call and message come after the mark.
    await agents.insertUsage([usage("u1", "alpha", 1, { output_tokens: 40 })], price);
    await agents.insertUsage([usage("u3", "beta", 3)], price);
    await agents.insertMessages([message("gamma", "m3", 3)]);
    const second = await agents.syncHighWater();
    assert.equal(second.events, first.events);
    assert.ok(second.messages > first.messages && second.usage > first.usage);
    const later = await agents.usageAfter(first.usage, second.usage, 10);
    assert.deepEqual(later.map((u) => u.usage.usage_key), ["u3"]);
    assert.equal(later[0].seq, second.usage);
    const grown = await agents.usageOfSessions(["alpha", "beta"], first.usage);
    assert.deepEqual(grown, [{
      seq: calls[0].seq,
      usage: sent("u1", "alpha", 1, {
        service_tier: "standard",
        context_window: 200_000,
        output_tokens: 40,
      }),
    }]);
    assert.deepEqual(
      (await agents.usageOfSessions(["alpha", "beta"], second.usage)).map((u) => u.seq),
      [calls[0].seq, later[0].seq],
    );
    assert.deepEqual(await agents.usageOfSessions([], second.usage), []);
    assert.deepEqual(await agents.usageOfSessions(["alpha"], 0), []);
    assert.deepEqual(await agents.sessionsTouched(first, second), ["beta", "gamma"]);
    assert.deepEqual(await agents.sessionsTouched(none, second), ["Zed", "alpha", "beta", "gamma"]);
    assert.deepEqual(
      await agents.sessionsTouched({ ...first, usage: 0 }, { ...first, usage: second.usage }),
      ["Zed", "alpha", "beta"],
    );
  },
);

for (const testCase of CASES) {
  for (const backend of BACKENDS) {
    Deno.test({
      name: `agent store conformance (${backend.name}): ${testCase.name}`,
      ignore: backend.ignore,
      async fn() {
        const store = await backend.open();
        try {
          await testCase.run(store);
        } finally {
          await store.close();
        }
      },
    });
  }
}
