/**
 * The agent operations on both backends: the same real transcripts of every agent (with
 * their sub-agents) and the same recorded hooks go into a SQLite store and a PostgreSQL
 * store through the store's interfaces, then every read operation of the `agent` cassette
 * runs on each with the same arguments and the same clock, and must answer the same. A
 * feature that exists on one backend only fails here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { prepareHookDelivery, storePreparedEventIn } from "../../src/agent/hooks/hook_intake.ts";
import { readTranscriptBatches } from "../../src/agent/transcripts/transcript_batches.ts";
import { emptyCounts, storeBatchIn } from "../../src/agent/transcripts/transcript_commit.ts";
import type { AgentName } from "../../src/model/agent_records.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { providePostgresStore } from "../../src/ops/postgres_services.ts";
import { CLOCK, CWD, DATABASE, STORE, vantageServices } from "../../src/ops/runtime.ts";
import type { Services } from "../../src/ops/services.ts";
import { MessageIndexer } from "../../src/store/agent/message_index.ts";
import { maxMessageId } from "../../src/store/agent/messages.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import { sharedPostgresCluster, skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { findFiles, FIXTURES } from "../helpers/transcript_fixtures.ts";

/** "Now" for every operation: a day after the fixtures were recorded. */
const NOW = Date.parse("2026-12-01T12:00:00Z");
const CLAUDE_SESSION = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";
const CODEX_SESSION = "01a22dbd-a9bf-7572-b5d3-c10ec2a7c6c9";
const WEEKS = 60 * 24 * 7 * 8;

/** The transcripts read as lines (OpenClaw's own SQLite store is read by an ingester of its own). */
const TRANSCRIPTS: Array<{ agent: AgentName; folder: string }> = [
  { agent: "claude_code", folder: "claude_code/projects" },
  { agent: "codex", folder: "codex/sessions" },
  { agent: "copilot_cli", folder: "copilot_cli/session-state" },
  { agent: "openclaw", folder: "openclaw/agents/main/sessions" },
];

/** Stores the fixtures through `services`' store: transcripts, then each agent's hooks. */
async function seed(services: Services): Promise<void> {
  const store = services.get(STORE);
  for (const { agent, folder } of TRANSCRIPTS) {
    const files = await findFiles(join(FIXTURES, folder), (name) => name.endsWith(".jsonl"));
    for (const path of files.sort()) {
      for await (const batch of readTranscriptBatches(path, agent, undefined)) {
        await store.transaction((inside) =>
          storeBatchIn(inside, batch.records, batch.cursor, emptyCounts(), {
            transcriptPath: path,
            now: NOW,
          })
        );
      }
    }
  }
  for (const [agent, flag] of [["claude_code", "claude-code"], ["codex", "codex"]] as const) {
    const lines = (await Deno.readTextFile(join(FIXTURES, agent, "hooks.jsonl"))).trim().split(
      "\n",
    );
    for (const [i, line] of lines.entries()) {
      const prepared = prepareHookDelivery({
        agent: flag,
        delivery_id: `${agent}-${i}`,
        received_at: NOW - 3_600_000,
        payload: line,
      });
      assert.ok(prepared.ok, JSON.stringify(prepared));
      await storePreparedEventIn(store.agent, prepared.delivery_id, prepared.event);
    }
  }
}

/** Every read of the agent cassette, with arguments that reach into the fixtures. */
const CALLS: Array<[string, Record<string, unknown>]> = [
  ["agent.list_sessions", { since_min: WEEKS }],
  ["agent.list_sessions", { since_min: WEEKS, agent_source: "codex" }],
  ["agent.get_peer_sessions", { since_min: WEEKS, project: "*", message_limit: 3 }],
  ["agent.search_sessions", { query: "test", project: "*", since_min: WEEKS }],
  ["agent.search_sessions", { query: "README", project: "*", since_min: WEEKS }],
  ["agent.get_session_state", { session_id: CLAUDE_SESSION, verbose: true }],
  ["agent.get_session_state", { session_id: CODEX_SESSION }],
  ["agent.get_session_transcript", { session_id: CLAUDE_SESSION, message_limit: 50 }],
  ["agent.session_timeline", { session_id: CLAUDE_SESSION }],
  ["agent.session_timeline", { session_id: CODEX_SESSION }],
  ["agent.usage_timeseries", { since_min: WEEKS, bucket_min: 1440, group_by: "model" }],
  ["agent.overview", { since_min: WEEKS }],
  ["agent.list_anomalies", { since_min: WEEKS }],
  ["agent.get_anomalies", { session_id: CLAUDE_SESSION }],
  ["agent.get_build_status", {}],
  ["agent.get_external_changes", {}],
  ["agent.get_context_bundle", { session_id: CLAUDE_SESSION }],
  ["agent.security", { since_min: WEEKS }],
  ["agent.latency", { since_min: WEEKS }],
  ["agent.api_errors", { since_min: WEEKS }],
  ["agent.tool_performance", { since_min: WEEKS }],
  ["agent.cost_burn", { since_min: WEEKS }],
  ["agent.traces", { since_min: WEEKS }],
];

/** Runs every call on `services`, answering each call's response by its position. */
async function answers(services: Services): Promise<unknown[]> {
  const catalog = builtinCatalog();
  const out: unknown[] = [];
  for (const [id, args] of CALLS) {
    out.push(
      await executeOperation(catalog, id, args, { scopes: ["agent:read"], cwd: "/p" }, {
        services,
      }),
    );
  }
  return out;
}

function fixedServices(home: string): Services {
  return vantageServices(resolvePaths(home))
    .provide(CLOCK, () => () => NOW)
    .provide(CWD, () => "/home/fixture/project");
}

Deno.test({
  name: "every agent read answers the same on SQLite and on PostgreSQL, from the same records",
  ignore: skipWithoutPostgres("the backend parity suite"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "vantage-parity-" });
    const sqlite = fixedServices(join(dir, "sqlite"));
    const postgres = fixedServices(join(dir, "postgres"));
    const location = parseStoreLocation(await sharedPostgresCluster().createDatabase());
    assert.equal(location.kind, "postgres");
    const opened = await openPostgresStore(
      location as Extract<typeof location, { kind: "postgres" }>,
      {
        max: 4,
        connectTimeoutS: 60,
      },
    );
    providePostgresStore(postgres, opened);
    try {
      await seed(sqlite);
      await seed(postgres);
      // SQLite's word search reads an index a worker keeps; let it catch up first.
      const db = sqlite.get(DATABASE);
      const indexer = await MessageIndexer.start(
        resolvePaths(join(dir, "sqlite")).database,
        () => maxMessageId(db),
      );
      await indexer.caughtUp();
      indexer.close();

      const onSqlite = await answers(sqlite);
      const onPostgres = await answers(postgres);
      for (const [i, [id, args]] of CALLS.entries()) {
        await t.step(`${id} ${JSON.stringify(args)}`, () => {
          const here = onSqlite[i] as Record<string, unknown>;
          assert.ok("result" in here, `SQLite: ${JSON.stringify(here)}`);
          assert.deepEqual(onPostgres[i], here);
        });
      }
      // The fixtures reached both stores: the comparison is of something.
      const listed = onSqlite[0] as { result: { count: number } };
      assert.ok(listed.result.count >= 4, JSON.stringify(listed));
    } finally {
      sqlite.close();
      postgres.close();
      await opened.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
