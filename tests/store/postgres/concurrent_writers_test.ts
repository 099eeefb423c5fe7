/**
 * Team mode's premise: several servers write one PostgreSQL database at once. Four pools (as
 * four servers) store the same hook events, transcript messages and model calls concurrently,
 * each in its own order: every record is stored once, every session's totals count it once,
 * and between them the writers report each new record exactly once. A statement that runs
 * past the statement timeout is cut and reported as a timeout.
 */
import assert from "node:assert/strict";
import type {
  CountedUsage,
  HookEvent,
  TranscriptMessage,
} from "../../../src/model/agent_records.ts";
import { pgAgentStore } from "../../../src/store/postgres/agent/agent_store.ts";
import { openPgPool, type PgPool } from "../../../src/store/postgres/connection.ts";
import { migratePostgres } from "../../../src/store/postgres/migrate.ts";
import {
  parseStoreLocation,
  type PostgresLocation,
} from "../../../src/store/postgres/store_url.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../../helpers/postgres_cluster.ts";

const ignore = skipWithoutPostgres("the PostgreSQL concurrent writer tests");
const T0 = 1_767_000_000_000;

async function location(): Promise<PostgresLocation> {
  const parsed = parseStoreLocation(await sharedPostgresCluster().createDatabase());
  if (parsed.kind !== "postgres") throw new Error("the cluster gave no postgres URL");
  return parsed;
}

/** A deterministic shuffle (each writer its own order). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

Deno.test({
  name: "postgres: four servers storing the same records at once count each once",
  ignore,
  async fn() {
    const where = await location();
    const pools: PgPool[] = [1, 2, 3, 4].map(() =>
      openPgPool(where, { max: 3, connectTimeoutS: TEST_CONNECT_TIMEOUT_S })
    );
    try {
      await Promise.all(pools.map((pool) => migratePostgres(pool)));
      const sessions = ["s0", "s1", "s2", "s3", "s4", "s5"];
      // A sub-agent of s0: its counts go to s0 as well.
      await pgAgentStore(pools[0]).upsertSessionFacts({
        agent: "claude_code",
        session_id: "s5",
        parent_session_id: "s0",
        is_subagent: true,
        started_at: T0,
      });
      const events: Array<[HookEvent, string]> = Array.from({ length: 120 }, (_, i) => [{
        agent: "claude_code",
        session_id: sessions[i % 5],
        event_type: "PostToolUse",
        tool_name: "Bash",
        ts: T0 + i * 1000,
        raw: { i },
      }, `delivery-${i}`]);
      const messages: TranscriptMessage[] = Array.from({ length: 600 }, (_, i) => ({
        agent: "claude_code",
        session_id: sessions[i % 6],
        ts: T0 + i * 1000,
        role: "assistant",
        message_type: i % 3 === 0 ? "tool_use" : "assistant",
        text: `message ${i}`,
        message_key: `key-${i}`,
      }));
      const calls: CountedUsage[] = Array.from({ length: 90 }, (_, i) => ({
        agent: "claude_code",
        session_id: sessions[i % 6],
        ts: T0 + i * 1000,
        usage_key: `call-${i}`,
        model: "m",
        input_tokens: 10,
        output_tokens: 100,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      }));
      const price = (record: CountedUsage) => ({
        priced: true as const,
        usd: record.output_tokens / 100,
      });
      const results = await Promise.all(pools.map(async (pool, w) => {
        const agents = pgAgentStore(pool);
        let eventsNew = 0;
        let messagesNew = 0;
        let callsNew = 0;
        const order = shuffled(events, w + 1);
        const batches = [0, 1, 2, 3, 4, 5].map((b) =>
          shuffled(messages, 10 + w).slice(b * 100, b * 100 + 100)
        );
        const usageBatches = [0, 1, 2].map((b) =>
          shuffled(calls, 20 + w).slice(b * 30, b * 30 + 30)
        );
        await Promise.all([
          (async () => {
            for (const [event, id] of order) {
              if (await agents.insertHookEvent(event, id, T0)) eventsNew++;
            }
          })(),
          (async () => {
            for (const batch of batches) messagesNew += await agents.insertMessages(batch);
          })(),
          (async () => {
            for (const batch of usageBatches) callsNew += await agents.insertUsage(batch, price);
          })(),
        ]);
        return { eventsNew, messagesNew, callsNew };
      }));
      const sum = (pick: (r: typeof results[number]) => number) =>
        results.reduce((n, r) => n + pick(r), 0);
      assert.equal(sum((r) => r.eventsNew), 120);
      assert.equal(sum((r) => r.messagesNew), 600);
      assert.equal(sum((r) => r.callsNew), 90);
      const count = async (sql: string) => Number((await pools[0].query(sql))[0].n);
      assert.equal(await count("SELECT count(*) AS n FROM events"), 120);
      assert.equal(await count("SELECT count(*) AS n FROM messages"), 600);
      assert.equal(await count("SELECT count(*) AS n FROM usage"), 90);
      const agents = pgAgentStore(pools[0]);
      for (const [i, id] of sessions.entries()) {
        const row = (await agents.getSession(id))!;
        const own = (n: number, every: number) =>
          Array.from({ length: n }, (_, k) => k).filter((k) => k % every === i).length;
        const ownMessages = own(600, 6);
        const ownCalls = own(90, 6);
        // s0 holds its sub-agent s5's messages and calls too.
        const withChild = (mine: number, child: number) => i === 0 ? mine + child : mine;
        assert.equal(row.event_count, i < 5 ? own(120, 5) : 0, `${id} events`);
        assert.equal(row.message_count, withChild(ownMessages, own(600, 6)), `${id} messages`);
        assert.equal(row.output_tokens, withChild(ownCalls, ownCalls) * 100, `${id} output`);
        assert.equal(row.cost_usd, withChild(ownCalls, ownCalls), `${id} cost`);
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  },
});

Deno.test({
  name: "postgres: a statement past the statement timeout is cut and reported as a timeout",
  ignore,
  async fn() {
    const pool = openPgPool(await location(), {
      max: 1,
      statementTimeoutMs: 200,
      connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
    });
    try {
      await assert.rejects(pool.query("SELECT pg_sleep(5)"), (error: Error & { kind?: string }) => {
        assert.equal(error.kind, "timeout");
        assert.match(
          error.message,
          /^PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/\S+: .*statement timeout/,
        );
        return true;
      });
      // The connection is still usable.
      assert.deepEqual(await pool.query("SELECT 1 AS one"), [{ one: 1 }]);
    } finally {
      await pool.close();
    }
  },
});
