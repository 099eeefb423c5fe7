/**
 * Claude Code sub-agents end to end. `vantage ingest` of the transcript fixtures (two sessions:
 * one sub-agent, then three — two Task calls and the compaction agent), read back through the
 * operations the dashboard and the agents use, as real processes; then the same files tailed
 * in different orders — a sub-agent's file before its parent's, a parent read half-way —
 * which must all end in the same store.
 */
import assert from "node:assert/strict";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { openDatabase } from "../../src/store/database.ts";
import { ingestTranscriptFile } from "../../src/agent/transcripts/transcript_ingester.ts";
import { TranscriptTailer } from "../../src/agent/transcripts/transcript_tailer.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { CLOCK, DATABASE, vantageServices } from "../../src/ops/runtime.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";

const WEBAPP = "5f3c9e2a-7b41-4d8e-9a10-3c2b8e6d4f71";
const PROJECT = "843adfa2-d81e-4a0f-a04c-dee7a420fb51";
const YEAR = 525_600;

interface Counts {
  message_count: number;
  tool_calls: number;
  tokens: { input: number; output: number; cache_read: number; cache_write: number };
  total_tokens: number;
  cost_usd: number;
}
interface Listed extends Counts {
  session_id: string;
  title?: string;
  subagent_count: number;
  subagents: Array<Counts & { session_id: string; subagent_type?: string; title?: string }>;
  own?: Counts;
}

async function call(env: Record<string, string>, op: string, args: unknown) {
  const run = await runVantage(["call", op, JSON.stringify(args)], { env });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

function tokens(input: number, output: number, cacheRead: number, cacheWrite: number) {
  return { input, output, cache_read: cacheRead, cache_write: cacheWrite };
}

Deno.test("sub-agents are nested under their parents with their own counts, and the parents' totals include them", async (t) => {
  const home = await makeAgentHome();
  try {
    const ingest = await runVantage(["ingest"], { env: home.env });
    assert.equal(ingest.code, 0, ingest.stderr);

    await t.step("list_sessions: parents only, each with its sub-agents", async () => {
      const all = await call(home.env, "agent.list_sessions", { since_min: YEAR });
      const ids = all.sessions.map((s: Listed) => s.session_id);
      // Two Claude Code sessions, one each of the other agents: no sub-agent row of its own.
      assert.equal(all.count, 5);
      assert.ok(ids.every((id: string) => !id.includes("/agent-")), ids.join(", "));
      assert.ok(all.sessions.every((s: Listed) => s.message_count > 0), "an empty row is listed");

      const claude = await call(home.env, "agent.list_sessions", {
        since_min: YEAR,
        agent_source: "claude_code",
      });
      const webapp: Listed = claude.sessions.find((s: Listed) => s.session_id === WEBAPP);
      assert.equal(webapp.title, "Fix the failing login test");
      assert.equal(webapp.subagent_count, 3);
      assert.deepEqual(
        webapp.subagents.map((s) => [
          s.session_id,
          s.subagent_type,
          s.title,
          s.message_count,
          s.tool_calls,
          s.tokens,
        ]),
        [
          [
            `${WEBAPP}/agent-a1f0c3e`,
            "Explore",
            "Find the login test",
            7,
            2,
            tokens(12, 188, 8850, 5130),
          ],
          [
            `${WEBAPP}/agent-b27d9e4`,
            "general-purpose",
            "Check the auth config",
            6,
            2,
            tokens(13, 181, 10720, 5480),
          ],
          [`${WEBAPP}/agent-acompact-5e91b2`, "compact", undefined, 3, 0, tokens(9, 820, 7600, 0)],
        ],
      );
      // The parent's own records, hand-counted from its transcript.
      assert.deepEqual(webapp.own?.tokens, tokens(34, 838, 22810, 9740));
      assert.equal(webapp.own?.message_count, 20);
      assert.equal(webapp.own?.tool_calls, 5);
      // Totals = own + every sub-agent, as ccusage counts a session.
      assert.deepEqual(webapp.tokens, tokens(68, 2027, 49980, 20350));
      const sum = (pick: (c: Counts) => number) =>
        pick(webapp.own!) + webapp.subagents.reduce((total, s) => total + pick(s), 0);
      assert.equal(webapp.message_count, sum((c) => c.message_count));
      assert.equal(webapp.tool_calls, sum((c) => c.tool_calls));
      for (const key of ["input", "output", "cache_read", "cache_write"] as const) {
        assert.equal(webapp.tokens[key], sum((c) => c.tokens[key]), key);
      }
      assert.equal(webapp.total_tokens, sum((c) => c.total_tokens));
      assert.ok(webapp.cost_usd > 0);
      assert.ok(Math.abs(webapp.cost_usd - sum((c) => c.cost_usd)) < 1e-5, String(webapp.cost_usd));

      const project: Listed = claude.sessions.find((s: Listed) => s.session_id === PROJECT);
      assert.equal(project.subagent_count, 1);
      assert.deepEqual(
        project.subagents.map((s) => [s.subagent_type, s.title, s.message_count, s.tool_calls]),
        [["general-purpose", "Count the files", 4, 1]],
      );
      assert.deepEqual(project.tokens, tokens(1315 + 1850, 180 + 24, 12900, 3360));
      assert.equal(project.own?.message_count, 12);
    });

    await t.step("filters and paging count parents", async () => {
      const page = await call(home.env, "agent.list_sessions", {
        since_min: YEAR,
        agent_source: "claude_code",
        limit: 1,
      });
      assert.equal(page.count, 1);
      assert.equal(page.has_more, true);
      const second = await call(home.env, "agent.list_sessions", {
        since_min: YEAR,
        agent_source: "claude_code",
        limit: 1,
        offset: 1,
      });
      assert.equal(second.has_more, false);
      // The cost filter looks at the parent's totals: the sub-agents lift it over the bar.
      const costly = await call(home.env, "agent.list_sessions", {
        since_min: YEAR,
        agent_source: "claude_code",
        min_cost_usd: 0.1,
      });
      assert.deepEqual(costly.sessions.map((s: Listed) => s.session_id), [WEBAPP]);
      const overview = await call(home.env, "agent.overview", { since_min: YEAR });
      assert.equal(overview.window.sessions_active, 5);
      // Tool calls: every transcript's, sub-agents' included (14 Claude Code; Codex 2, the
      // recorded Copilot session 4, OpenClaw 4).
      assert.equal(overview.window.tool_calls, 24);
    });

    await t.step(
      "the timeline shows sub-agent runs, compaction and API errors as events",
      async () => {
        const timeline = await call(home.env, "agent.session_timeline", { session_id: WEBAPP });
        type Item = { kind: string; label: string; session_id?: string; failed?: boolean };
        const of = (kind: string) => timeline.items.filter((i: Item) => i.kind === kind);
        assert.deepEqual(of("sidechain").map((i: Item) => [i.label, i.session_id]), [
          ["Sub-agent Explore: Find the login test", `${WEBAPP}/agent-a1f0c3e`],
          ["Sub-agent general-purpose: Check the auth config", `${WEBAPP}/agent-b27d9e4`],
          ["Sub-agent compact", `${WEBAPP}/agent-acompact-5e91b2`],
        ]);
        assert.deepEqual(of("compaction").map((i: Item) => i.label), [
          "Conversation compacted (manual, 7614 tokens before)",
        ]);
        assert.deepEqual(of("api_error").map((i: Item) => [i.label, i.failed]), [
          ["API error, retry 1/10 in 0.6 s: 529 Overloaded", true],
          ["API Error: Rate limit reached [rate_limit, 429]", true],
        ]);
        // The compaction summary handed to the model is not one of the person's prompts.
        assert.deepEqual(of("prompt").map((i: Item) => i.label), [
          "The login test fails on CI. Find out why and fix it.",
          "Now run the whole suite.",
          "Try again.",
        ]);
        assert.deepEqual(
          { ...timeline.counts, anomalies: undefined, builds: undefined, file_edits: undefined },
          {
            prompts: 3,
            tool_calls: 5,
            tool_failures: 0,
            compactions: 1,
            api_errors: 2,
            sidechains: 3,
            anomalies: undefined,
            builds: undefined,
            file_edits: undefined,
          },
        );
        assert.equal(timeline.subagent_count, 3);
        assert.equal(timeline.session.is_subagent, false);
        assert.equal(timeline.session.message_count, 36);

        const child = await call(home.env, "agent.session_timeline", {
          session_id: `${WEBAPP}/agent-a1f0c3e`,
        });
        assert.equal(child.session.is_subagent, true);
        assert.equal(child.session.subagent_type, "Explore");
        assert.deepEqual(child.parent, {
          session_id: WEBAPP,
          title: "Fix the failing login test",
        });
        assert.deepEqual(
          child.items.filter((i: Item) => i.kind === "tool").map((i: Item) => i.label),
          ["Grep tests", "Read login.test.ts"],
        );
        assert.deepEqual(child.subagents, []);
        // A prefix of the parent's id names the parent, not its sub-agents.
        const byPrefix = await call(home.env, "agent.session_timeline", {
          session_id: WEBAPP.slice(0, 8),
        });
        assert.equal(byPrefix.session.session_id, WEBAPP);
      },
    );

    await t.step("search finds the parent for words said inside a sub-agent", async () => {
      for (const project of ["*", "/home/fixture/webapp"]) {
        const found = await call(home.env, "agent.search_sessions", {
          query: "Searching the tests",
          project,
          since_min: YEAR,
        });
        assert.deepEqual(found.sessions.map((s: { session_id: string }) => s.session_id), [
          WEBAPP,
        ]);
        const snippet = found.sessions[0].snippets[0];
        assert.equal(snippet.subagent_session_id, `${WEBAPP}/agent-a1f0c3e`, project);
        assert.equal(snippet.subagent_type, "Explore");
      }
      const peers = await call(home.env, "agent.get_peer_sessions", {
        agent_source: "claude_code",
        project: "/home/fixture/webapp",
        since_min: YEAR,
        limit: 5,
        detail: "summary",
      });
      assert.deepEqual(peers.sessions.map((s: { session_id: string }) => s.session_id), [WEBAPP]);
    });
  } finally {
    await home.cleanup();
  }
});

const WEBAPP_DIR = `${FIXTURES}claude_code/projects/-home-fixture-webapp/`;
const FILES = {
  main: `${WEBAPP}.jsonl`,
  explore: `${WEBAPP}/subagents/agent-a1f0c3e.jsonl`,
  general: `${WEBAPP}/subagents/agent-b27d9e4.jsonl`,
  compact: `${WEBAPP}/subagents/agent-acompact-5e91b2.jsonl`,
};
type FileName = keyof typeof FILES;

/** A home whose store is read by the operations, in process, at a fixed time. */
async function tailHome() {
  const home = await Deno.makeTempDir({ prefix: "vantage-tail-" });
  const projects = join(home, ".claude", "projects", "-home-fixture-webapp");
  const services = vantageServices({ ...resolvePaths(join(home, ".vantage")), userHome: home });
  services.provide(CLOCK, () => () => Date.parse("2026-12-01T00:00:00Z"));
  const db = services.get(DATABASE);
  const path = (name: FileName) => join(projects, FILES[name]);
  const write = async (name: FileName, text: string, append = false) => {
    await mkdir(dirname(path(name)), { recursive: true });
    await (append ? appendFile : writeFile)(path(name), text);
  };
  const state = async () => {
    const caller = { scopes: ["agent:read"] };
    const catalog = builtinCatalog();
    const listed = await executeOperation(
      catalog,
      "agent.list_sessions",
      {
        since_min: YEAR,
      },
      caller,
      { services },
    );
    const timeline = await executeOperation(
      catalog,
      "agent.session_timeline",
      {
        session_id: WEBAPP,
      },
      caller,
      { services },
    );
    assert.ok("result" in listed && "result" in timeline, JSON.stringify([listed, timeline]));
    const rows = db.prepare(
      `SELECT session_id, agent, cwd, started_at, last_activity_at, model, title, parent_session_id,
         is_subagent, subagent_type, message_count, tool_calls, input_tokens, output_tokens,
         cache_read_tokens, cache_write_tokens, cost_usd FROM sessions ORDER BY session_id`,
    ).all();
    const messages = db.prepare(
      "SELECT session_id, count(*) AS n FROM messages GROUP BY session_id ORDER BY session_id",
    ).all();
    const usage = db.prepare(
      "SELECT session_id, count(*) AS n FROM usage GROUP BY session_id ORDER BY session_id",
    ).all();
    // Costs are float sums: the order they were added in may change their last bits.
    return roundCosts({
      listed: listed.result as { count: number; sessions: Listed[] },
      timeline: { ...(timeline.result as Record<string, unknown>), session: undefined },
      rows,
      messages,
      usage,
    });
  };
  return {
    home,
    db,
    path,
    write,
    state,
    close: async () => {
      services.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

function roundCosts<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(
      value,
      (key, v) => key === "cost_usd" && typeof v === "number" ? Math.round(v * 1e5) / 1e5 : v,
    ),
  );
}

async function fixtureText(name: FileName): Promise<string> {
  return await Deno.readTextFile(WEBAPP_DIR + FILES[name]);
}

/** Copies the files in `order`, reading each into the store as it lands. */
async function ingestInOrder(order: FileName[]) {
  const tail = await tailHome();
  for (const name of order) {
    await tail.write(name, await fixtureText(name));
    await ingestTranscriptFile(tail.db, tail.path(name), "claude_code");
  }
  const state = await tail.state();
  await tail.close();
  return state;
}

Deno.test("the order sub-agent and parent files are read in does not change the store", async () => {
  const natural = await ingestInOrder(["main", "explore", "general", "compact"]);
  assert.equal(natural.listed.count, 1);
  const parent = natural.listed.sessions[0];
  assert.equal(parent.subagent_count, 3);
  assert.deepEqual(parent.tokens, tokens(68, 2027, 49980, 20350));
  for (
    const order of [
      ["general", "main", "explore", "compact"],
      ["compact", "general", "explore", "main"],
    ] as FileName[][]
  ) {
    assert.deepEqual(await ingestInOrder(order), natural, order.join(", "));
  }
});

Deno.test("a tailed sub-agent whose parent's file comes later is nested from the start", async () => {
  const natural = await ingestInOrder(["main", "explore", "general", "compact"]);
  const tail = await tailHome();
  const tailer = new TranscriptTailer(tail.db, { home: tail.home, debounceMs: 10 });
  try {
    // The general-purpose sub-agent's file is there first, and the parent's first half only.
    const main = (await fixtureText("main")).split("\n");
    await tail.write("general", await fixtureText("general"));
    await tailer.start();
    let state = await tail.state();
    assert.equal(state.listed.count, 1, "the sub-agent is listed on its own");
    const early = state.listed.sessions[0];
    assert.equal(early.session_id, WEBAPP);
    assert.equal(early.subagent_count, 1);
    assert.deepEqual(early.subagents[0].tokens, tokens(13, 181, 10720, 5480));
    // Its own file does not name its type (2.1.39): the parent's Task call will.
    assert.equal(early.subagents[0].subagent_type, undefined);
    assert.deepEqual(early.tokens, early.subagents[0].tokens);

    await tail.write("main", main.slice(0, 9).join("\n") + "\n");
    tailer.notice(tail.path("main"));
    await tailer.idle();
    state = await tail.state();
    const linked = state.listed.sessions[0].subagents;
    assert.deepEqual(linked.map((s: { subagent_type?: string }) => s.subagent_type), [
      "Explore",
      "general-purpose",
    ]);

    await tail.write("main", main.slice(9).join("\n"), true);
    await tail.write("explore", await fixtureText("explore"));
    await tail.write("compact", await fixtureText("compact"));
    for (const name of ["main", "explore", "compact"] as FileName[]) tailer.notice(tail.path(name));
    await tailer.idle();
    assert.deepEqual(await tail.state(), natural);
  } finally {
    await tailer.stop();
    await tail.close();
  }
});

Deno.test("a sub-agent named only by its call's result (2.1.197) is stored the same either way", async () => {
  const dir = `${FIXTURES}claude_code/projects/-home-fixture-project/`;
  const files = [
    `${dir}${PROJECT}.jsonl`,
    `${dir}${PROJECT}/subagents/agent-aae8c0dea9f0ff346.jsonl`,
  ];
  const rowsAfter = async (order: string[]) => {
    const folder = await Deno.makeTempDir({ prefix: "vantage-order-" });
    const db = openDatabase(join(folder, "vantage.db"));
    try {
      for (const path of order) await ingestTranscriptFile(db, path, "claude_code");
      return roundCosts(
        db.prepare(
          `SELECT session_id, started_at, last_activity_at, title, parent_session_id, is_subagent,
             subagent_type, message_count, tool_calls, input_tokens, output_tokens, cost_usd
           FROM sessions ORDER BY session_id`,
        ).all(),
      );
    } finally {
      db.close();
      await Deno.remove(folder, { recursive: true });
    }
  };
  const mainFirst = await rowsAfter(files);
  assert.deepEqual(await rowsAfter([...files].reverse()), mainFirst);
  const child = mainFirst[1] as Record<string, unknown>;
  // The run starts when the Agent call was made and ends with its own last record.
  assert.equal(child.started_at, Date.parse("2026-11-30T18:35:33.287Z"));
  assert.equal(child.last_activity_at, Date.parse("2026-11-30T18:35:33.593Z"));
  assert.equal(child.subagent_type, "general-purpose");
  assert.equal(child.title, "Count the files");
});
