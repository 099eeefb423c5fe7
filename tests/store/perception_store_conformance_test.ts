/**
 * The perception store's conformance suite: every case runs against SQLite (its synchronous
 * answers awaited) and PostgreSQL with the same records and the same expected answers —
 * builds, file changes, git moves, anomalies with their feed and facets, project state and
 * injections — and one case reads the per-hook bundle from both backends after the same
 * writes and finds them equal.
 */
import assert from "node:assert/strict";
import type { AgentStore } from "../../src/store/agent/agent_store.ts";
import type { AnomalyEmission } from "../../src/store/perception/anomalies.ts";
import type { PerceptionQuery } from "../../src/store/perception/perception_bundle.ts";
import type { PerceptionStore } from "../../src/store/perception/perception_store.ts";
import { awaited, storeBackendsAs } from "../helpers/store_backends.ts";

interface Backend {
  agents: AgentStore<"async">;
  perception: PerceptionStore<"async">;
  /** Counts rows of a table. */
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

const BACKENDS = storeBackendsAs<Omit<Backend, "count" | "close">>(
  "the perception store conformance suite on PostgreSQL",
  (opened) => ({
    agents: awaited(opened.store.agent) as AgentStore<"async">,
    perception: awaited(opened.store.perception) as PerceptionStore<"async">,
  }),
);
const [openSqlite, openPostgres] = BACKENDS.map((backend) => () => backend.open());
const POSTGRES_IGNORED = BACKENDS[1].ignore;

const T0 = 1_767_000_000_000;
const MIN = 60_000;

function build(
  n: number,
  fields: { tag?: string; project?: string | null; cwd?: string | null; exit?: number } = {},
) {
  return {
    tag: fields.tag ?? "test",
    command: `deno test #${n}`,
    cwd: fields.cwd === undefined ? "/w/app" : fields.cwd,
    project: fields.project === undefined ? "/w/app" : fields.project,
    started_at: T0 + n * MIN,
    duration_ms: 1000 + n,
    exit_code: fields.exit ?? 0,
    errors: fields.exit ? '[{"file":"a.ts","line":1}]' : "[]",
    output_tail: `run ${n}`,
  };
}

function emission(sessionId: string, fingerprint: string, fields: Partial<AnomalyEmission> = {}) {
  const e: AnomalyEmission = {
    session_id: sessionId,
    project: "/w/app",
    kind: "edit_loop",
    severity: "warning",
    channel: "post_tool",
    fingerprint,
    evidence: `evidence ${fingerprint}`,
    suggestion: "step back",
    first_emitted_at: T0,
    related_files: ["/w/app/a.ts"],
    ...fields,
  };
  return e;
}

const CASES: Array<{ name: string; run: (b: Backend) => Promise<void> }> = [];
const conformance = (name: string, run: (b: Backend) => Promise<void>) => CASES.push({ name, run });

conformance(
  "builds: recorded with ids, read newest first, per project, in a window, after an id",
  async (b) => {
    const p = b.perception;
    const ids: number[] = [];
    ids.push(await p.insertBuildRun(build(1)));
    ids.push(await p.insertBuildRun(build(2, { tag: "lint", exit: 1 })));
    ids.push(await p.insertBuildRun(build(3, { project: "/w/other", cwd: "/w/other" })));
    ids.push(await p.insertBuildRun(build(4, { project: null, cwd: "/w/loose" })));
    ids.push(await p.insertBuildRun(build(5, { exit: 2 })));
    assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]));
    assert.deepEqual((await p.latestBuildRuns(undefined, 2)).map((r) => r.command), [
      "deno test #5",
      "deno test #4",
    ]);
    const [lint] = await p.latestBuildRuns("lint", 5);
    assert.deepEqual(lint, { id: ids[1], ...build(2, { tag: "lint", exit: 1 }) });
    assert.deepEqual((await p.buildRunsSince(T0 + 3 * MIN)).map((r) => r.started_at), [
      T0 + 3 * MIN,
      T0 + 4 * MIN,
      T0 + 5 * MIN,
    ]);
    assert.deepEqual(
      (await p.latestBuildPerProject(50)).map((r) => [r.project, r.tag, r.command, r.exit_code]),
      [
        ["/w/app", "test", "deno test #5", 2],
        ["/w/loose", "test", "deno test #4", 0],
        ["/w/other", "test", "deno test #3", 0],
        ["/w/app", "lint", "deno test #2", 1],
      ],
    );
    // A project's window holds its own runs and those that named no project.
    assert.deepEqual(
      (await p.buildRunsBetween("/w/app", T0 + 2 * MIN, T0 + 4 * MIN, 10)).map((r) => r.command),
      ["deno test #2", "deno test #4"],
    );
    assert.equal((await p.buildRunsBetween(null, T0, T0 + 10 * MIN, 3)).length, 3);
    assert.deepEqual(await p.buildRunsAfter(ids[2], 10), [
      { id: ids[3], tag: "test", project: "/w/loose", exit_code: 0, started_at: T0 + 4 * MIN },
      { id: ids[4], tag: "test", project: "/w/app", exit_code: 2, started_at: T0 + 5 * MIN },
    ]);
  },
);

conformance(
  "file changes and git moves: a project's own and those below it, newest first",
  async (b) => {
    const p = b.perception;
    const change = (path: string, n: number, session: string | null, project = "/w/app") => ({
      project,
      path,
      kind: "modify",
      ts: T0 + n * MIN,
      source: session === null ? "unknown" : "agent",
      session_id: session,
      agent: session === null ? null : "codex",
    });
    await p.insertFileChange(change("/w/app/a.ts", 1, "s1"));
    await p.insertFileChange(change("/w/app/b.ts", 2, null));
    await p.insertFileChange(change("/w/app/sub/c.ts", 3, "s1", "/w/elsewhere"));
    await p.insertFileChange(change("/w/apple/d.ts", 4, "s1", "/w/apple"));
    await p.insertFileChange(change("/w/app/e.ts", 5, "s2"));
    assert.deepEqual((await p.fileChangesSince("/w/app", T0 + 2 * MIN, 10)).map((c) => c.path), [
      "/w/app/e.ts",
      "/w/app/sub/c.ts",
      "/w/app/b.ts",
    ]);
    assert.deepEqual((await p.fileChangesSince(null, 0, 2)).map((c) => c.path), [
      "/w/app/e.ts",
      "/w/apple/d.ts",
    ]);
    assert.deepEqual(await p.sessionFileChanges("/w/app", "s1", 0, 10), [
      { path: "/w/app/a.ts", kind: "modify", ts: T0 + MIN },
    ]);
    const move = (n: number, kind: string, project = "/w/app") => ({
      project,
      ts: T0 + n * MIN,
      kind,
      branch: "main",
      from_ref: `r${n - 1}`,
      to_ref: `r${n}`,
      summary: kind === "commit" ? `commit ${n}` : null,
    });
    await p.insertGitMove(move(1, "commit"));
    await p.insertGitMove(move(2, "branch_switch"));
    await p.insertGitMove(move(3, "commit", "/w/other"));
    assert.deepEqual(await p.gitMovesSince("/w/app", T0 + 2 * MIN, 10), [move(2, "branch_switch")]);
    assert.deepEqual((await p.gitMovesSince(null, 0, 10)).map((m) => m.to_ref), ["r3", "r2", "r1"]);
  },
);

conformance(
  "anomalies: emissions counted and logged, resolved, the feed, facets and the change feed",
  async (b) => {
    const { perception: p, agents } = b;
    await agents.upsertSessionFacts({ agent: "codex", session_id: "s1", title: "fix the build" });
    await p.recordEmission(emission("s1", "f1"), T0 + MIN);
    await p.recordEmission(emission("s1", "f1", { severity: "critical" }), T0 + 2 * MIN);
    await p.recordEmission(
      emission("s1", "f2", { kind: "test_loop", project: null, severity: "info" }),
      T0 + 3 * MIN,
    );
    await p.recordEmission(emission("s2", "f1", { project: "/w/other" }), T0 + 4 * MIN);
    assert.equal(await b.count("anomaly_emissions"), 4);
    const active = await p.activeAnomalies("s1");
    assert.deepEqual(active.map((a) => [a.fingerprint, a.emit_count, a.severity]), [
      ["f2", 1, "info"],
      ["f1", 2, "critical"],
    ]);
    const { id: _id, ...f1 } = active[1];
    assert.deepEqual(f1, {
      session_id: "s1",
      project: "/w/app",
      kind: "edit_loop",
      severity: "critical",
      channel: "post_tool",
      fingerprint: "f1",
      evidence: "evidence f1",
      suggestion: "step back",
      related_files: '["/w/app/a.ts"]',
      first_emitted_at: T0,
      last_emitted_at: T0 + 2 * MIN,
      emit_count: 2,
      resolved_at: null,
    });
    await p.resolveAnomaly("s1", "f1", T0 + 5 * MIN);
    await p.resolveAnomaly("s1", "f1", T0 + 9 * MIN);
    assert.deepEqual((await p.activeAnomalies("s1")).map((a) => a.fingerprint), ["f2"]);
    const history = await p.anomalyHistory("s1");
    assert.deepEqual(
      history.sort((x, y) => x.fingerprint.localeCompare(y.fingerprint)),
      [
        {
          kind: "edit_loop",
          fingerprint: "f1",
          first_emitted_at: T0,
          last_emitted_at: T0 + 2 * MIN,
          resolved_at: T0 + 5 * MIN,
        },
        {
          kind: "test_loop",
          fingerprint: "f2",
          first_emitted_at: T0,
          last_emitted_at: T0 + 3 * MIN,
          resolved_at: null,
        },
      ],
    );
    assert.deepEqual(await p.openAnomalyCounts(T0), [
      { severity: "info", count: 1 },
      { severity: "warning", count: 1 },
    ]);
    const feed = await p.anomalyFeed({ since: T0, includeResolved: true, limit: 10 });
    assert.deepEqual(feed.map((a) => [a.session_id, a.kind, a.agent, a.title]), [
      ["s2", "edit_loop", null, null],
      ["s1", "test_loop", "codex", "fix the build"],
      ["s1", "edit_loop", "codex", "fix the build"],
    ]);
    assert.deepEqual(
      (await p.anomalyFeed({ since: T0, includeResolved: false, project: "", limit: 10 }))
        .map((a) => a.kind),
      ["test_loop"],
    );
    assert.deepEqual(
      (await p.anomalyFeed({
        since: T0,
        includeResolved: true,
        sessionId: "s1",
        severity: "critical",
        limit: 10,
      }))
        .map((a) => a.resolved_at),
      [T0 + 5 * MIN],
    );
    // One more finding in /w/other, so the project facet's counts differ (a tie may be broken
    // either way).
    await p.recordEmission(emission("s3", "f1", { project: "/w/other" }), T0 + MIN / 2);
    const facets = await p.anomalyFacets({
      since: T0,
      includeResolved: true,
      kind: "edit_loop",
      project: "/w/app",
      limit: 10,
    });
    assert.deepEqual(facets, {
      kinds: [{ value: "edit_loop", count: 1 }],
      projects: [{ value: "/w/other", count: 2 }, { value: "/w/app", count: 1 }],
    });
    assert.deepEqual(await p.anomaliesEmittedAfter(T0 + 2 * MIN, 10), [
      {
        session_id: "s1",
        project: null,
        kind: "test_loop",
        severity: "info",
        last_emitted_at: T0 + 3 * MIN,
      },
      {
        session_id: "s2",
        project: "/w/other",
        kind: "edit_loop",
        severity: "warning",
        last_emitted_at: T0 + 4 * MIN,
      },
    ]);
    // Emitted again after it was resolved: active again.
    await p.recordEmission(emission("s1", "f1"), T0 + 10 * MIN);
    assert.deepEqual((await p.activeAnomalies("s1")).map((a) => [a.fingerprint, a.emit_count]), [
      ["f1", 3],
      ["f2", 1],
    ]);
  },
);

conformance(
  "project state and injections: saved, replaced, the closest root of a path",
  async (b) => {
    const p = b.perception;
    assert.equal(await p.getProjectState("/w/app"), undefined);
    await p.saveProjectState("/w/app", '{"v":1}', T0);
    await p.saveProjectState("/w/app", '{"v":2}', T0 + 1);
    await p.saveProjectState("/w/app/packages/ui", '{"ui":true}', T0);
    await p.saveProjectState("/w/apple", "{}", T0);
    assert.deepEqual(await p.getProjectState("/w/app"), { state: '{"v":2}', refreshed_at: T0 + 1 });
    assert.equal(await p.projectRootFor("/w/app/packages/ui/src/x.ts"), "/w/app/packages/ui");
    assert.equal(await p.projectRootFor("/w/app/src/x.ts"), "/w/app");
    assert.equal(await p.projectRootFor("/w/app"), "/w/app");
    assert.equal(await p.projectRootFor("/w/apple/x"), "/w/apple");
    assert.equal(await p.projectRootFor("/w/ap"), undefined);
    assert.equal(await p.getInjection("s1"), undefined);
    await p.saveInjection("s1", '{"a":1}', T0);
    await p.saveInjection("s1", '{"a":2}', T0 + 5);
    assert.deepEqual(await p.getInjection("s1"), { snapshot: '{"a":2}', ts: T0 + 5 });
  },
);

/** The same session, hooks, usage, sensors and anomalies on a backend. */
async function seedBundle(b: Backend): Promise<void> {
  const { agents, perception: p } = b;
  await agents.upsertSessionFacts({
    agent: "claude_code",
    session_id: "s1",
    cwd: "/w/app",
    started_at: T0 + 2 * MIN,
  });
  for (
    const [n, fields] of [
      [3, { tool_name: "Edit", file_path: "/w/app/a.ts" }],
      [4, { event_type: "PreToolUse", tool_name: "Write", file_path: "/w/app/b.ts" }],
      [5, { tool_name: "Bash", success: false, error: "exit 1" }],
    ] as const
  ) {
    await agents.insertHookEvent(
      {
        agent: "claude_code",
        session_id: "s1",
        cwd: "/w/app",
        event_type: "PostToolUse",
        ts: T0 + n * MIN,
        raw: { n },
        ...fields,
      },
      `d${n}`,
      T0,
    );
  }
  await agents.insertUsage([{
    agent: "claude_code",
    session_id: "s1",
    ts: T0 + 4 * MIN,
    usage_key: "u1",
    model: "m",
    input_tokens: 10,
    output_tokens: 20,
    cache_read_tokens: 30,
    cache_write_tokens: 40,
    reasoning_tokens: 0,
  }], () => ({ priced: true, usd: 0.25 }));
  await p.insertBuildRun(build(1));
  await p.insertBuildRun(build(6, { exit: 1 }));
  await p.insertFileChange({
    project: "/w/app",
    path: "/w/app/a.ts",
    kind: "modify",
    ts: T0 + 3 * MIN,
    source: "agent",
    session_id: "s1",
    agent: "claude_code",
  });
  await p.insertGitMove({
    project: "/w/app",
    ts: T0 + 5 * MIN,
    kind: "commit",
    branch: "main",
    from_ref: "a",
    to_ref: "b",
    summary: "wip",
  });
  await p.recordEmission(emission("s1", "f1"), T0 + 5 * MIN);
  await p.saveProjectState("/w/app", '{"kind":"deno"}', T0);
  await p.saveInjection("s1", '{"seen":1}', T0 + 4 * MIN);
}

const BUNDLE_QUERY: PerceptionQuery = {
  session_id: "s1",
  since: T0 + 4 * MIN,
  events: 10,
  fileChanges: 100,
  rules: true,
  context: { project: "session", recentFiles: 5, gitMoves: 5, injection: true },
};

conformance(
  "the per-hook bundle: the session, its events, rules' inputs and context",
  async (b) => {
    await seedBundle(b);
    const bundle = await b.perception.readPerceptionBundle(BUNDLE_QUERY);
    assert.equal(bundle.session?.session_id, "s1");
    assert.equal(bundle.project, "/w/app");
    assert.deepEqual(bundle.events?.map((e) => e.ts), [T0 + 4 * MIN, T0 + 5 * MIN]);
    // File changes and git moves look back to the session's start, before the window.
    assert.deepEqual(bundle.file_changes.map((c) => c.path), ["/w/app/a.ts"]);
    assert.deepEqual(bundle.build_runs.map((r) => r.command), ["deno test #6"]);
    assert.deepEqual(bundle.usage.map((u) => u.usage_key), ["u1"]);
    assert.deepEqual(bundle.anomaly_history.map((h) => h.fingerprint), ["f1"]);
    assert.deepEqual(bundle.context?.recent_files, ["/w/app/b.ts", "/w/app/a.ts"]);
    assert.deepEqual(bundle.context?.git_moves.map((m) => m.summary), ["wip"]);
    assert.equal(bundle.context?.latest_build?.command, "deno test #6");
    assert.deepEqual(bundle.context?.project_state, { state: '{"kind":"deno"}', refreshed_at: T0 });
    assert.deepEqual(bundle.context?.injection, { snapshot: '{"seen":1}', ts: T0 + 4 * MIN });
    // Nothing in the window: the newest build of any time stands in for the latest.
    const quiet = await b.perception.readPerceptionBundle({
      ...BUNDLE_QUERY,
      since: T0 + 60 * MIN,
      events: undefined,
      rules: false,
    });
    assert.deepEqual([quiet.build_runs, quiet.usage, quiet.events], [[], [], undefined]);
    assert.equal(quiet.context?.latest_build?.command, "deno test #6");
  },
);

Deno.test({
  name: "perception store conformance: both backends read the same bundle after the same writes",
  ignore: POSTGRES_IGNORED,
  async fn() {
    const [sqlite, postgres] = await Promise.all([openSqlite(), openPostgres()]);
    try {
      await seedBundle(sqlite);
      await seedBundle(postgres);
      assert.deepEqual(
        await postgres.perception.readPerceptionBundle(BUNDLE_QUERY),
        await sqlite.perception.readPerceptionBundle(BUNDLE_QUERY),
      );
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  },
});

for (const testCase of CASES) {
  for (const backend of BACKENDS) {
    Deno.test({
      name: `perception store conformance (${backend.name}): ${testCase.name}`,
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
