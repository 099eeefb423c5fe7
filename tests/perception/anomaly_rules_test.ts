import assert from "node:assert/strict";
import { detectAnomalies, findingsFor } from "../../src/perception/anomaly_rules.ts";
import {
  type AnomalyKind,
  DEFAULT_ANOMALY_CONFIG,
  type SessionActivity,
} from "../../src/perception/anomaly_types.ts";
import {
  activity,
  at,
  buildRun,
  call,
  change,
  edit,
  read,
  SESSION,
  shell,
  usage,
} from "./anomaly_fixtures.ts";

function kinds(a: SessionActivity, kind: AnomalyKind) {
  return detectAnomalies(a, { kinds: [kind] });
}

// ---------------------------------------------------------------------------------------------
// stale_file_view

Deno.test("stale_file_view fires when the agent edits a file changed on disk since its last read", () => {
  const a = activity([read("/repo/src/a.ts", at(0)), edit("/repo/src/a.ts", at(5))], at(6), {
    file_changes: [change("/repo/src/a.ts", at(3))],
  });
  const [finding, ...rest] = kinds(a, "stale_file_view");
  assert.equal(rest.length, 0);
  assert.equal(finding.severity, "critical");
  assert.equal(finding.channel, "post_tool");
  assert.deepEqual(finding.related_files, ["/repo/src/a.ts"]);
  assert.match(finding.evidence, /a\.ts changed on disk 2 min before your Edit/);
  assert.match(finding.suggestion, /Re-read a\.ts/);
  assert.equal(finding.observed_at, at(5));
});

Deno.test("stale_file_view stays quiet when the view was fresh, the change was the agent's, or it re-read", () => {
  // Change before the read: the agent saw it.
  assert.deepEqual(
    kinds(
      activity([read("/repo/a.ts", at(2)), edit("/repo/a.ts", at(5))], at(6), {
        file_changes: [change("/repo/a.ts", at(1))],
      }),
      "stale_file_view",
    ),
    [],
  );
  // The change was an agent's write.
  assert.deepEqual(
    kinds(
      activity([read("/repo/a.ts", at(0)), edit("/repo/a.ts", at(5))], at(6), {
        file_changes: [change("/repo/a.ts", at(3), "agent")],
      }),
      "stale_file_view",
    ),
    [],
  );
  // Never read: a new file or a blind write; nothing to be stale.
  assert.deepEqual(
    kinds(
      activity([edit("/repo/a.ts", at(5))], at(6), { file_changes: [change("/repo/a.ts", at(3))] }),
      "stale_file_view",
    ),
    [],
  );
  // Re-read after the stale edit: resolved.
  assert.deepEqual(
    kinds(
      activity(
        [read("/repo/a.ts", at(0)), edit("/repo/a.ts", at(5)), read("/repo/a.ts", at(7))],
        at(8),
        {
          file_changes: [change("/repo/a.ts", at(3))],
        },
      ),
      "stale_file_view",
    ),
    [],
  );
  // The agent's own write counts as its view of the file.
  const write = call({
    tool: "Write",
    file: "/repo/a.ts",
    ts: at(1),
    success: true,
    input: { content: "x" },
  });
  assert.deepEqual(
    kinds(
      activity([write, edit("/repo/a.ts", at(5))], at(6), {
        file_changes: [change("/repo/a.ts", at(0, 30))],
      }),
      "stale_file_view",
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// build_broken_after_my_edit

const TSC_FAIL = "src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.";

Deno.test("build_broken_after_my_edit fires when the failing build names the edited file", () => {
  const a = activity([
    read("/repo/src/a.ts", at(0)),
    edit("/repo/src/a.ts", at(1)),
    shell("npx tsc --noEmit", at(2), false, TSC_FAIL),
  ], at(3));
  const [finding] = kinds(a, "build_broken_after_my_edit");
  assert.equal(finding.severity, "critical");
  assert.equal(finding.channel, "stop");
  assert.deepEqual(finding.related_files, ["/repo/src/a.ts"]);
  assert.match(finding.suggestion, /Fix a\.ts near line 12/);
  assert.match(finding.evidence, /TS2322|not assignable/);
  assert.deepEqual(findingsFor([finding], "stop"), [finding]);
});

Deno.test("build_broken_after_my_edit also reads build sensor runs", () => {
  const a = activity([edit("/repo/src/lib.rs", at(1))], at(3), {
    build_runs: [buildRun("cargo build", at(2), 101, [{
      file: "src/lib.rs",
      line: 4,
      message: "mismatched types",
      severity: "error",
      tool: "cargo",
    }])],
  });
  assert.equal(kinds(a, "build_broken_after_my_edit")[0]?.severity, "critical");
});

Deno.test("build_broken_after_my_edit warns when a passing build fails right after edits", () => {
  const a = activity([
    shell("cargo build", at(0), true),
    edit("/repo/src/main.rs", at(1)),
    shell("cargo build", at(1, 30), false, "error: linking with `cc` failed: exit status: 1"),
  ], at(2));
  const [finding] = kinds(a, "build_broken_after_my_edit");
  assert.equal(finding.severity, "warning");
  assert.equal(finding.channel, "next_prompt");
  assert.match(finding.evidence, /passed before your edits to main\.rs/);
});

Deno.test("build_broken_after_my_edit stays quiet without own edits, when fixed, or when already broken", () => {
  // No edits by the agent.
  assert.deepEqual(
    kinds(
      activity([shell("npx tsc", at(2), false, TSC_FAIL)], at(3)),
      "build_broken_after_my_edit",
    ),
    [],
  );
  // Fixed: the latest run passed.
  assert.deepEqual(
    kinds(
      activity([
        edit("/repo/src/a.ts", at(1)),
        shell("npx tsc", at(2), false, TSC_FAIL),
        edit("/repo/src/a.ts", at(3)),
        shell("npx tsc", at(4), true),
      ], at(5)),
      "build_broken_after_my_edit",
    ),
    [],
  );
  // Errors name another file, and the build was failing before the edits too.
  assert.deepEqual(
    kinds(
      activity([
        shell("npx tsc", at(0), false, "src/other.ts(1,1): error TS1005: ';' expected."),
        edit("/repo/src/a.ts", at(1)),
        shell("npx tsc", at(2), false, "src/other.ts(1,1): error TS1005: ';' expected."),
      ], at(3)),
      "build_broken_after_my_edit",
    ),
    [],
  );
  // Not a build command.
  assert.deepEqual(
    kinds(
      activity(
        [edit("/repo/src/a.ts", at(1)), shell("grep -r foo src", at(2), false, "a.ts")],
        at(3),
      ),
      "build_broken_after_my_edit",
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// repeated_failed_build

Deno.test("repeated_failed_build fires on the third failure of the same command since it passed", () => {
  const out = "error[E0308]: mismatched types\n --> src/main.rs:4:5\n";
  const a = activity([
    shell("cargo build", at(0), true),
    shell("cargo build", at(1), false, out),
    shell("cargo build --release", at(2), false, out),
    shell("cd /repo && cargo build", at(3), false, out),
  ], at(4));
  const [finding] = kinds(a, "repeated_failed_build");
  assert.equal(finding.severity, "critical");
  assert.equal(finding.channel, "stop");
  assert.match(finding.evidence, /`cargo build` failed 3 times/);
  assert.match(
    finding.suggestion,
    /Stop retrying `cargo build`.*src\/main\.rs:4: E0308 mismatched types/,
  );
  assert.deepEqual(finding.related_files, ["src/main.rs"]);
});

Deno.test("repeated_failed_build stays quiet for two failures, a pass in between, old failures or tests", () => {
  const fail = (ts: number) => shell("make build", ts, false, "main.c:3:1: error: x");
  assert.deepEqual(kinds(activity([fail(at(0)), fail(at(1))], at(2)), "repeated_failed_build"), []);
  assert.deepEqual(
    kinds(
      activity([fail(at(0)), fail(at(1)), shell("make build", at(2), true), fail(at(3))], at(4)),
      "repeated_failed_build",
    ),
    [],
  );
  assert.deepEqual(
    kinds(activity([fail(at(0)), fail(at(1)), fail(at(2))], at(40)), "repeated_failed_build"),
    [],
  );
  const test = (ts: number) => shell("npm test", ts, false, "FAIL src/a.test.ts");
  assert.deepEqual(
    kinds(activity([test(at(0)), test(at(1)), test(at(2))], at(3)), "repeated_failed_build"),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// test_stuck

const PYTEST_OUT = (tests: string[]) =>
  "=========================== short test summary info ============================\n" +
  tests.map((t) => `FAILED tests/test_x.py::${t} - assert 3 == 4`).join("\n") + "\n";

Deno.test("test_stuck fires when the same tests fail three runs in a row", () => {
  const a = activity([
    shell("pytest -q", at(0), false, PYTEST_OUT(["test_add"])),
    edit("/repo/x.py", at(1)),
    shell("pytest -q", at(2), false, PYTEST_OUT(["test_add"])),
    edit("/repo/x.py", at(3)),
    shell("pytest -q", at(4), false, PYTEST_OUT(["test_add"])),
  ], at(5));
  const [finding] = kinds(a, "test_stuck");
  assert.equal(finding.severity, "warning");
  assert.equal(finding.channel, "next_prompt");
  assert.match(
    finding.evidence,
    /`pytest` failed 3 times in a row with the same failing tests: tests\/test_x\.py::test_add/,
  );
  assert.deepEqual(finding.related_files, ["tests/test_x.py"]);
});

Deno.test("test_stuck stays quiet while the failing set changes or after a pass", () => {
  assert.deepEqual(
    kinds(
      activity([
        shell("pytest", at(0), false, PYTEST_OUT(["test_a", "test_b"])),
        shell("pytest", at(1), false, PYTEST_OUT(["test_b"])),
        shell("pytest", at(2), false, PYTEST_OUT(["test_b", "test_c"])),
      ], at(3)),
      "test_stuck",
    ),
    [],
  );
  assert.deepEqual(
    kinds(
      activity([
        shell("pytest", at(0), false, PYTEST_OUT(["test_a"])),
        shell("pytest", at(1), false, PYTEST_OUT(["test_a"])),
        shell("pytest", at(2), true),
        shell("pytest", at(3), false, PYTEST_OUT(["test_a"])),
      ], at(4)),
      "test_stuck",
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// external_modified_during_session

Deno.test("external_modified_during_session lists files the session touched that someone else changed", () => {
  const a = activity(
    [read("/repo/a.ts", at(0)), edit("/repo/b.ts", at(1)), read("/repo/c.ts", at(1))],
    at(10),
    {
      file_changes: [
        change("/repo/a.ts", at(5)),
        change("/repo/b.ts", at(8), "unknown", "remove"),
        change("/repo/other.ts", at(6)),
        change("/repo/c.ts", at(7), "agent"),
      ],
    },
  );
  const [finding, ...rest] = kinds(a, "external_modified_during_session");
  assert.equal(rest.length, 0);
  assert.equal(finding.severity, "warning");
  assert.deepEqual(finding.related_files, ["/repo/a.ts", "/repo/b.ts"]);
  assert.match(
    finding.evidence,
    /2 files you worked on changed outside your session: b\.ts \(deleted 2 min ago\), a\.ts \(changed 5 min ago\)/,
  );
});

Deno.test("external_modified_during_session stays quiet for untouched files, re-read files and old changes", () => {
  assert.deepEqual(
    kinds(
      activity([read("/repo/a.ts", at(0))], at(10), {
        file_changes: [change("/repo/z.ts", at(5))],
      }),
      "external_modified_during_session",
    ),
    [],
  );
  assert.deepEqual(
    kinds(
      activity([read("/repo/a.ts", at(0)), read("/repo/a.ts", at(6))], at(10), {
        file_changes: [change("/repo/a.ts", at(5))],
      }),
      "external_modified_during_session",
    ),
    [],
  );
  assert.deepEqual(
    kinds(
      activity([read("/repo/a.ts", at(0))], at(50), {
        file_changes: [change("/repo/a.ts", at(5))],
      }),
      "external_modified_during_session",
    ),
    [],
  );
  // Touched only after the change: the session saw the new content.
  assert.deepEqual(
    kinds(
      activity([read("/repo/a.ts", at(6))], at(10), {
        file_changes: [change("/repo/a.ts", at(5))],
      }),
      "external_modified_during_session",
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// context_pressure

Deno.test("context_pressure measures the latest call against the model's real window", () => {
  const warn = activity([], at(10), {
    usage: [
      usage(at(1), { cache_read_tokens: 20_000 }),
      usage(at(9), { input_tokens: 2_000, cache_read_tokens: 165_000 }),
    ],
  });
  const [finding] = kinds(warn, "context_pressure");
  assert.equal(finding.severity, "warning");
  assert.match(finding.evidence, /167k of 200k tokens \(84%\) for claude-sonnet-4-5-20250929/);
  const critical = activity([], at(10), { usage: [usage(at(9), { cache_read_tokens: 195_000 })] });
  assert.equal(kinds(critical, "context_pressure")[0].severity, "critical");
  assert.notEqual(
    kinds(critical, "context_pressure")[0].fingerprint,
    finding.fingerprint,
    "escalation is news",
  );
  const reported = activity([], at(10), {
    usage: [usage(at(9), { model: "gpt-5-codex", input_tokens: 240_000, context_window: 258_400 })],
  });
  assert.match(kinds(reported, "context_pressure")[0].evidence, /93%/);
});

Deno.test("context_pressure stays quiet on a 1M window, after compaction and for sub-agents", () => {
  const big = activity([], at(10), {
    usage: [usage(at(9), { model: "claude-sonnet-4-5[1m]", cache_read_tokens: 300_000 })],
  });
  assert.deepEqual(kinds(big, "context_pressure"), []);
  const compacted = activity([], at(10), {
    usage: [
      usage(at(5), { cache_read_tokens: 190_000 }),
      usage(at(9), { cache_read_tokens: 30_000 }),
    ],
  });
  assert.deepEqual(kinds(compacted, "context_pressure"), []);
  const sub = activity([], at(10), {
    usage: [
      usage(at(5), { cache_read_tokens: 10_000 }),
      usage(at(9), { cache_read_tokens: 190_000, subagent_id: "agent-1" }),
    ],
  });
  assert.deepEqual(kinds(sub, "context_pressure"), []);
  assert.deepEqual(kinds(activity([], at(10)), "context_pressure"), []);
});

// ---------------------------------------------------------------------------------------------
// tool_loop

Deno.test("tool_loop fires on the same call three times with nothing changing", () => {
  const a = activity([
    read("/repo/a.ts", at(0)),
    shell("git status", at(0, 30), true),
    read("/repo/a.ts", at(1)),
    read("/repo/a.ts", at(2)),
  ], at(3));
  const [finding] = kinds(a, "tool_loop");
  assert.equal(finding.channel, "post_tool");
  assert.match(finding.evidence, /Read\(\/repo\/a\.ts\) ran 3 times in 2 min/);
  assert.deepEqual(finding.related_files, ["/repo/a.ts"]);
});

Deno.test("tool_loop stays quiet when edits happen in between, arguments differ, or calls are spread out", () => {
  assert.deepEqual(
    kinds(
      activity([
        shell("npm test", at(0), false, "x"),
        edit("/repo/a.ts", at(1)),
        shell("npm test", at(2), false, "x"),
        shell("npm test", at(3), false, "x"),
      ], at(4)),
      "tool_loop",
    ),
    [],
  );
  assert.deepEqual(
    kinds(
      activity(
        [read("/repo/a.ts", at(0)), read("/repo/b.ts", at(1)), read("/repo/c.ts", at(2))],
        at(3),
      ),
      "tool_loop",
    ),
    [],
  );
  assert.deepEqual(
    kinds(
      activity(
        [read("/repo/a.ts", at(0)), read("/repo/a.ts", at(4)), read("/repo/a.ts", at(8))],
        at(9),
      ),
      "tool_loop",
    ),
    [],
  );
  // Polling a background shell is expected to repeat.
  const poll = (ts: number) =>
    call({ tool: "BashOutput", ts, input: { bash_id: "b1" }, success: true });
  assert.deepEqual(
    kinds(activity([poll(at(0)), poll(at(0, 20)), poll(at(0, 40))], at(1)), "tool_loop"),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// edit_churn

Deno.test("edit_churn fires when an edit reverts an earlier one", () => {
  const a = activity([
    edit("/repo/a.ts", at(0), "return x + 1;", "return x - 1;"),
    edit("/repo/a.ts", at(2), "const y = 2;", "const y = 3;"),
    edit("/repo/a.ts", at(4), "return x - 1;", "return x + 1;"),
  ], at(5));
  const [finding] = kinds(a, "edit_churn");
  assert.equal(finding.severity, "warning");
  assert.match(finding.evidence, /undid an edit you made 4 min earlier/);
});

Deno.test("edit_churn fires on four edits rewriting the same lines, MultiEdit and patches included", () => {
  const multi = call({
    tool: "MultiEdit",
    ts: at(2),
    file: "/repo/a.ts",
    success: true,
    input: {
      file_path: "/repo/a.ts",
      edits: [{ old_string: "if (n > limit) {", new_string: "if (n >= limit) {" }],
    },
  });
  const patch = call({
    tool: "apply_patch",
    ts: at(3),
    file: "/repo/a.ts",
    success: true,
    input:
      "*** Begin Patch\n*** Update File: a.ts\n@@\n-if (n >= limit) {\n+if (n >= limit + 1) {\n*** End Patch",
  });
  const a = activity([
    edit("/repo/a.ts", at(0), "if (n < limit) {", "if (n <= limit) {"),
    edit("/repo/a.ts", at(1), "if (n <= limit) {", "if (n > limit) {"),
    multi,
    patch,
  ], at(4));
  const [finding] = kinds(a, "edit_churn");
  assert.match(finding.evidence, /4 edits in 3 min rewrote the same lines of a\.ts/);
});

Deno.test("edit_churn stays quiet for edits of different regions or files", () => {
  assert.deepEqual(
    kinds(
      activity([
        edit("/repo/a.ts", at(0), "function one() {", "function one(x) {"),
        edit("/repo/a.ts", at(1), "function two() {", "function two(x) {"),
        edit("/repo/a.ts", at(2), "function three() {", "function three(x) {"),
        edit("/repo/a.ts", at(3), "function four() {", "function four(x) {"),
        edit("/repo/b.ts", at(4), "function one(x) {", "function one() {"),
      ], at(5)),
      "edit_churn",
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// error_repeat

Deno.test("error_repeat fires when the same error survives two fix attempts", () => {
  const err = (n: number) =>
    `TypeError: Cannot read properties of undefined (reading 'id') at /repo/src/x.ts:${n}:7`;
  const a = activity([
    call({ tool: "Bash", command: "node app.js", ts: at(0), success: false, error: err(10) }),
    edit("/repo/src/x.ts", at(1)),
    call({
      tool: "Bash",
      command: "node app.js --verbose",
      ts: at(2),
      success: false,
      error: err(12),
    }),
    edit("/repo/src/y.ts", at(3)),
    call({ tool: "Bash", command: "node app.js", ts: at(4), success: false, error: err(15) }),
  ], at(5));
  const [finding] = kinds(a, "error_repeat");
  assert.equal(finding.severity, "warning");
  assert.match(finding.evidence, /came back 2 times after 2 edits/);
  assert.match(finding.evidence, /Cannot read properties of undefined/);
});

Deno.test("error_repeat stays quiet without edits in between, when errors differ, or once it passes", () => {
  const fail = (ts: number, msg = "Error: connection refused 127.0.0.1:5432") =>
    call({ tool: "Bash", command: "node app.js", ts, success: false, error: msg });
  assert.deepEqual(
    kinds(activity([fail(at(0)), fail(at(1)), fail(at(2))], at(3)), "error_repeat"),
    [],
  );
  assert.deepEqual(
    kinds(
      activity([
        fail(at(0), "Error: a"),
        edit("/repo/a.ts", at(1)),
        fail(at(2), "Error: b"),
        edit("/repo/a.ts", at(3)),
        fail(at(4), "Error: c"),
      ], at(5)),
      "error_repeat",
    ),
    [],
  );
  assert.deepEqual(
    kinds(
      activity([
        fail(at(0)),
        edit("/repo/a.ts", at(1)),
        fail(at(2)),
        edit("/repo/a.ts", at(3)),
        fail(at(4)),
        shell("node app.js", at(5), true),
      ], at(6)),
      "error_repeat",
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// no_progress

Deno.test("no_progress fires after many calls without a file change or passing test", () => {
  const events = Array.from({ length: 30 }, (_, i) => read(`/repo/f${i % 7}.ts`, at(i)));
  const [finding] = kinds(
    activity([
      edit("/repo/a.ts", at(0)),
      ...events.map((e, i) => e.map((x) => ({ ...x, ts: x.ts + 1000 + i }))),
    ], at(40)),
    "no_progress",
  );
  assert.equal(finding.severity, "info");
  assert.match(
    finding.evidence,
    /30 tool calls over 29 min since the last file change or passing test \(Read×30\)/,
  );
});

Deno.test("no_progress stays quiet when edits, agent changes or passing tests keep coming", () => {
  const reads = Array.from({ length: 20 }, (_, i) => read(`/repo/f${i}.ts`, at(i)));
  const more = Array.from({ length: 20 }, (_, i) => read(`/repo/g${i}.ts`, at(30 + i)));
  assert.deepEqual(
    kinds(activity([...reads, edit("/repo/a.ts", at(25)), ...more], at(60)), "no_progress"),
    [],
  );
  assert.deepEqual(
    kinds(activity([...reads, shell("npm test", at(25), true), ...more], at(60)), "no_progress"),
    [],
  );
  assert.deepEqual(
    kinds(
      activity([...reads, ...more], at(60), {
        file_changes: [change("/repo/a.ts", at(26), "agent")],
      }),
      "no_progress",
    ),
    [],
  );
});

// ---------------------------------------------------------------------------------------------
// token_burn

Deno.test("token_burn fires when the recent rate is far above the session's own baseline", () => {
  const baseline = Array.from({ length: 20 }, (_, i) => usage(at(i), { input_tokens: 20_000 }));
  const burst = Array.from(
    { length: 5 },
    (_, i) => usage(at(26 + i), { input_tokens: 90_000, output_tokens: 10_000 }),
  );
  const [finding] = kinds(
    activity([], at(30, 30), { usage: [...baseline, ...burst] }),
    "token_burn",
  );
  assert.equal(finding.severity, "warning");
  assert.match(
    finding.evidence,
    /500k weighted tokens in the last 5 min — 4\.9× this session's usual rate \(21k\/min\)/,
  );
});

Deno.test("token_burn stays quiet for steady spend, short sessions and small bursts", () => {
  const steady = Array.from({ length: 30 }, (_, i) => usage(at(i), { input_tokens: 50_000 }));
  assert.deepEqual(kinds(activity([], at(30), { usage: steady }), "token_burn"), []);
  const short = [
    usage(at(0)),
    ...Array.from({ length: 5 }, (_, i) => usage(at(6 + i), { input_tokens: 200_000 })),
  ];
  assert.deepEqual(
    kinds(activity([], at(11), { usage: short }), "token_burn"),
    [],
    "no 15-minute baseline",
  );
  const baseline = Array.from({ length: 20 }, (_, i) => usage(at(i), { input_tokens: 100 }));
  const small = [usage(at(27), { input_tokens: 20_000 })];
  assert.deepEqual(
    kinds(activity([], at(30), { usage: [...baseline, ...small] }), "token_burn"),
    [],
    "below the floor",
  );
});

// ---------------------------------------------------------------------------------------------
// engine

Deno.test("detectAnomalies sorts by severity, is deterministic, and ignores other sessions", () => {
  const a = activity(
    [
      read("/repo/src/a.ts", at(0)),
      edit("/repo/src/a.ts", at(5)),
      shell("npx tsc", at(6), false, TSC_FAIL),
      call({ tool: "Read", ts: at(6), file: "/repo/src/a.ts", success: true, session: "other" }),
    ],
    at(7),
    { file_changes: [change("/repo/src/a.ts", at(3))] },
  );
  const first = detectAnomalies(a);
  assert.deepEqual(first, detectAnomalies(a));
  // external_modified_during_session leaves an edited file to stale_file_view.
  assert.deepEqual(first.map((f) => [f.kind, f.severity]), [
    ["build_broken_after_my_edit", "critical"],
    ["stale_file_view", "critical"],
  ]);
  assert.ok(first.every((f) => /^[a-z_]+:[0-9a-f]{8}$/.test(f.fingerprint)));
  const quiet = detectAnomalies(a, {
    config: { staleLookbackMs: 60_000 },
    kinds: ["stale_file_view"],
  });
  assert.deepEqual(quiet, []);
  assert.equal(DEFAULT_ANOMALY_CONFIG.repeatedFailures, 3);
  assert.equal(a.session_id, SESSION);
});
