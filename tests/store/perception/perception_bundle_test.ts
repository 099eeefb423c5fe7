/**
 * The one read perception makes per hook event: each table read once, the
 * windows wide enough for both the rules and the context answer, the
 * project taken from the stored events when the event names none, and the
 * context of another project read for that project.
 */
import assert from "node:assert/strict";
import { normalizeHookPayload } from "../../../src/agent/hooks/hook_normalizer.ts";
import { insertHookEvent } from "../../../src/store/agent/events.ts";
import { type DatabaseSync, openDatabase } from "../../../src/store/database.ts";
import { countingRuns as counting } from "../../helpers/statement_runs.ts";
import { readPerceptionBundle } from "../../../src/store/perception/perception_bundle.ts";
import { insertBuildRun } from "../../../src/store/perception/build_runs.ts";
import { insertFileChange } from "../../../src/store/perception/file_changes.ts";
import { insertGitMove } from "../../../src/store/perception/git_moves.ts";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const MIN = 60_000;
const WINDOW = NOW - 120 * MIN;

function hook(db: DatabaseSync, id: string, payload: Record<string, unknown>, ts: number): void {
  const normalized = normalizeHookPayload("claude_code", { ...payload, timestamp: ts }, ts);
  if (!normalized.ok) throw new Error(normalized.reason);
  assert.ok(insertHookEvent(db, normalized.event, id, ts));
}

function build(db: DatabaseSync, startedAt: number, exitCode: number): number {
  return insertBuildRun(db, {
    tag: "test",
    command: "npm test",
    cwd: "/work/app",
    project: "/work/app",
    started_at: startedAt,
    duration_ms: 1000,
    exit_code: exitCode,
    errors: "[]",
    output_tail: "",
  });
}

function change(db: DatabaseSync, project: string, path: string, ts: number): void {
  insertFileChange(db, {
    project,
    path: `${project}/${path}`,
    kind: "modify",
    ts,
    source: "unknown",
    session_id: null,
    agent: null,
  });
}

/** A store with a session that began 3 h ago in /work/app, and activity around it. */
function store(): DatabaseSync {
  const db = openDatabase(":memory:");
  hook(
    db,
    "e1",
    { session_id: "s1", cwd: "/work/app", hook_event_name: "SessionStart" },
    NOW - 180 * MIN,
  );
  hook(db, "e2", {
    session_id: "s1",
    hook_event_name: "PostToolUse",
    tool_name: "Edit",
    tool_input: { file_path: "/work/app/a.ts" },
    tool_response: { success: true },
  }, NOW - 60 * MIN);
  change(db, "/work/app", "old.ts", NOW - 150 * MIN); // before the window, after the start
  change(db, "/work/app", "new.ts", NOW - 10 * MIN);
  change(db, "/work/other", "x.ts", NOW - 5 * MIN);
  insertGitMove(db, {
    project: "/work/app",
    ts: NOW - 170 * MIN,
    kind: "commit",
    branch: "main",
    from_ref: null,
    to_ref: "abc1234",
    summary: "start",
  });
  return db;
}

/** `db` with every prepared statement noted. */
function reads(statements: readonly string[], table: string): number {
  return statements.filter((sql) => new RegExp(`\\bFROM ${table}\\b`).test(sql)).length;
}

Deno.test("one bundle reads the session, its file changes and build runs once each", () => {
  const raw = store();
  try {
    build(raw, NOW - 100 * MIN, 0);
    build(raw, NOW - 20 * MIN, 1);
    const { db, statements } = counting(raw);
    const bundle = readPerceptionBundle(db, {
      session_id: "s1",
      since: WINDOW,
      project: "/work/app",
      fileChanges: 500,
      rules: true,
      context: { project: "session", recentFiles: 8, gitMoves: 10, injection: true },
    });
    // The session row (recent files also name `sessions`, for the session's sub-agents).
    assert.equal(
      statements.filter((sql) => /FROM sessions WHERE session_id = \?/.test(sql)).length,
      1,
    );
    assert.equal(reads(statements, "file_changes"), 1);
    assert.equal(reads(statements, "build_runs"), 1, "the newest build was in the window");
    assert.equal(bundle.session?.started_at, NOW - 180 * MIN);
    // Back to the session's start, so the context answer finds the change before the window.
    assert.deepEqual(bundle.file_changes.map((c) => c.path), [
      "/work/app/new.ts",
      "/work/app/old.ts",
    ]);
    assert.equal(bundle.context?.file_changes, bundle.file_changes, "the same rows, not a re-read");
    assert.deepEqual(bundle.context?.git_moves.map((g) => g.to_ref), ["abc1234"]);
    assert.deepEqual(bundle.build_runs.map((r) => r.exit_code), [0, 1], "oldest first");
    assert.equal(bundle.context?.latest_build?.exit_code, 1);
    assert.deepEqual(bundle.context?.recent_files, ["/work/app/a.ts"]);
  } finally {
    raw.close();
  }
});

Deno.test("without a build in the window, the newest of all is the context's", () => {
  const db = store();
  try {
    const older = build(db, NOW - 500 * MIN, 2);
    build(db, NOW - 900 * MIN, 0);
    const bundle = readPerceptionBundle(db, {
      session_id: "s1",
      since: WINDOW,
      fileChanges: 50,
      rules: false,
      context: { project: "/work/app", recentFiles: 8, gitMoves: 10, injection: false },
    });
    assert.deepEqual(bundle.build_runs, []);
    assert.equal(bundle.context?.latest_build?.id, older);
    assert.deepEqual(bundle.usage, []);
    assert.deepEqual(bundle.anomaly_history, []);
  } finally {
    db.close();
  }
});

Deno.test("the project comes from the stored events when the event names none", () => {
  const db = store();
  try {
    const bundle = readPerceptionBundle(db, {
      session_id: "s1",
      since: NOW - 240 * MIN,
      events: 400,
      fileChanges: 500,
      rules: true,
    });
    assert.equal(bundle.project, "/work/app");
    assert.deepEqual(bundle.events?.map((e) => e.event_type), ["SessionStart", "PostToolUse"]);
    assert.equal(bundle.context, undefined);
  } finally {
    db.close();
  }
});

Deno.test("a context about another project reads that project's changes", () => {
  const raw = store();
  try {
    const { db, statements } = counting(raw);
    const bundle = readPerceptionBundle(db, {
      session_id: "s1",
      since: WINDOW,
      project: "/work/app",
      fileChanges: 500,
      rules: true,
      context: { project: "/work/other", recentFiles: 8, gitMoves: 10, injection: false },
    });
    assert.equal(reads(statements, "file_changes"), 2);
    assert.deepEqual(bundle.context?.file_changes.map((c) => c.path), ["/work/other/x.ts"]);
    assert.deepEqual(bundle.file_changes.map((c) => c.path), [
      "/work/app/new.ts",
      "/work/app/old.ts",
    ]);
  } finally {
    raw.close();
  }
});
