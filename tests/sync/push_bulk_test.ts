/**
 * Large history pushes on both backends: a batch of more messages than the
 * COPY threshold (on PostgreSQL it streams through COPY into a staging table,
 * then into `messages` under the same keys) is counted exactly once however
 * often it is pushed, pushed twice at once included; on PostgreSQL it leaves
 * exactly the rows and session totals that the same batch pushed in
 * row-path parts leaves, texts full of COPY's special characters included.
 */
import assert from "node:assert/strict";
import type { CountedUsage } from "../../src/model/agent_records.ts";
import { openPgPool, type PgPool } from "../../src/store/postgres/connection.ts";
import { COPY_MIN_ROWS } from "../../src/store/postgres/copy_rows.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import { type Pusher, pushHistory } from "../../src/sync/mod.ts";
import type { HistoryBatch } from "../../src/sync/wire.ts";
import { storeBackends } from "../helpers/store_backends.ts";
import { TEST_CONNECT_TIMEOUT_S } from "../helpers/postgres_cluster.ts";

const ADA: Pusher = { person: "ada", host: "ada-laptop" };
const T0 = Date.UTC(2026, 10, 3, 9);
const SESSIONS = 7;
/** Over the threshold by enough that repeated keys still leave it over. */
const SENT = COPY_MIN_ROWS + 600;

const price = (u: CountedUsage) => ({
  priced: true as const,
  usd: (u.input_tokens + u.output_tokens) / 1e6,
});

/** Texts that COPY's text format must escape, or that look like its markers. */
const AWKWARD = [
  "tab\there",
  "two\nlines",
  "carriage\r\nreturn",
  "back\\slash \\N \\t literal",
  "\\.",
  "\\N",
  "",
  "nul\u0000inside",
  "ünïcødé ✓ 日本語 🚀",
  "a".repeat(5000),
];

type Message = HistoryBatch["messages"][number];

/** `count` messages over SESSIONS sessions; every 50th repeats an earlier key with other text. */
function messages(count: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < count; i++) {
    const repeat = i > 0 && i % 50 === 0;
    const key = repeat ? `m-${i - 7}` : `m-${i}`;
    const kind = i % 4;
    const m: Message = {
      agent: "claude_code",
      session_id: `s-${(repeat ? i - 7 : i) % SESSIONS}`,
      message_key: key,
      ts: T0 + i,
      role: kind === 0 ? "user" : kind === 3 ? "tool" : "assistant",
      message_type: kind === 0
        ? "user"
        : kind === 1
        ? "assistant"
        : kind === 2
        ? "tool_use"
        : "tool_result",
      text: repeat ? `a later copy of ${key}` : `${AWKWARD[i % AWKWARD.length]} #${i}`,
    };
    if (kind === 1) m.model = i % 3 === 0 ? "claude-opus-4-1" : "claude-sonnet-4-5";
    if (kind === 2) {
      m.tool_name = "Bash";
      m.tool_use_id = `t-${i}`;
      m.command_prefix = "npm test";
      m.file_path = `/work/app/src/f${i}.ts`;
    }
    if (kind === 3) {
      m.tool_use_id = `t-${i - 1}`;
      m.is_error = i % 8 === 3;
    }
    if (i % 5 === 0) m.cwd = "/work/app";
    if (i % 11 === 0) m.subagent_id = "agent-1";
    out.push(m);
  }
  return out;
}

function batch(sent: Message[]): HistoryBatch {
  return { sessions: [], events: [], messages: sent, usage: [], outcomes: [] };
}

/** Messages a batch stores: the first of each key. */
function distinct(sent: Message[]): number {
  return new Set(sent.map((m) => `${m.session_id}\u0000${m.message_key}`)).size;
}

for (const backend of storeBackends("large history pushes")) {
  Deno.test({
    name: `a batch over the COPY threshold pushed twice is stored once (${backend.name})`,
    ignore: backend.ignore,
    async fn() {
      const opened = await backend.open();
      try {
        const sent = messages(SENT);
        const unique = distinct(sent);
        assert.ok(unique >= COPY_MIN_ROWS, "the batch takes the COPY path");
        const first = await pushHistory(opened.store, batch(sent), ADA, price);
        assert.equal(first.messages, unique);
        assert.equal(first.refused, 0);
        const again = await pushHistory(opened.store, batch(sent), ADA, price);
        assert.equal(again.messages, 0);
        assert.equal(await opened.count("messages"), unique);
        const sessions = await opened.store.agent.sessionFacts(
          Array.from({ length: SESSIONS }, (_, i) => `s-${i}`),
        );
        assert.equal(sessions.length, SESSIONS);
        let counted = 0;
        for (let i = 0; i < SESSIONS; i++) {
          const info = await opened.store.agent.getSession(`s-${i}`);
          assert.ok(info !== undefined);
          assert.equal(info.person, "ada");
          counted += info.message_count;
        }
        assert.equal(counted, unique);
        // A repeated key keeps its first message, not the later copy.
        const page = await opened.store.agent.transcriptPage("s-0", { limit: 5000, offset: 0 });
        assert.ok(!page.some((row) => row.text.startsWith("a later copy")));
      } finally {
        await opened.close();
      }
    },
  });

  Deno.test({
    name: `the same large batch pushed twice at once is counted once (${backend.name})`,
    ignore: backend.ignore,
    async fn() {
      const opened = await backend.open();
      try {
        const sent = messages(SENT);
        const [a, b] = await Promise.all([
          pushHistory(opened.store, batch(sent), ADA, price),
          pushHistory(opened.store, batch(sent), ADA, price),
        ]);
        assert.equal(a.messages + b.messages, distinct(sent));
        assert.equal(await opened.count("messages"), distinct(sent));
        let counted = 0;
        for (let i = 0; i < SESSIONS; i++) {
          counted += (await opened.store.agent.getSession(`s-${i}`))!.message_count;
        }
        assert.equal(counted, distinct(sent));
      } finally {
        await opened.close();
      }
    },
  });
}

const postgres = storeBackends("large history pushes").find((b) => b.name === "postgres")!;

function poolOf(url: string): PgPool {
  const location = parseStoreLocation(url);
  if (location.kind !== "postgres") throw new Error(`not a postgres URL: ${url}`);
  return openPgPool(location, { max: 1, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
}

/** Every stored message and session total, as text, in the order they were stored. */
async function snapshot(pool: PgPool): Promise<string[]> {
  const rows = await pool.query(
    `SELECT id, session_id, agent, message_key, ts, role, message_type, text, tool_name,
       tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id,
       search::text AS search
     FROM messages ORDER BY id`,
  );
  const sessions = await pool.query(
    `SELECT session_id, person, host, message_count, tool_calls, model, cwd, started_at,
       last_activity_at
     FROM sessions ORDER BY session_id`,
  );
  return [...rows, ...sessions].map((row) => JSON.stringify(row));
}

Deno.test({
  name: "on PostgreSQL, a batch taking the COPY path stores what row-path parts of it store",
  ignore: postgres.ignore,
  async fn() {
    const whole = await postgres.open();
    const parts = await postgres.open();
    const pools = [poolOf(whole.url!), poolOf(parts.url!)];
    try {
      const sent = messages(SENT);
      const copied = await pushHistory(whole.store, batch(sent), ADA, price);
      let byRows = 0;
      // Parts well under the threshold take the row path; the order of the batch is kept.
      for (let from = 0; from < sent.length; from += 1000) {
        const part = sent.slice(from, from + 1000);
        byRows += (await pushHistory(parts.store, batch(part), ADA, price)).messages;
      }
      assert.equal(copied.messages, byRows);
      const [a, b] = await Promise.all(pools.map(snapshot));
      assert.equal(a.length, b.length);
      assert.deepEqual(a, b);
      // What COPY's text format would have mangled arrived as sent (NUL as U+FFFD, as always).
      const texts = new Set(
        (await pools[0].query("SELECT text FROM messages")).map((row) => String(row.text)),
      );
      for (const [i, text] of AWKWARD.entries()) {
        assert.ok(texts.has(`${text.replaceAll("\u0000", "\ufffd")} #${i}`), JSON.stringify(text));
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
      await whole.close();
      await parts.close();
    }
  },
});
