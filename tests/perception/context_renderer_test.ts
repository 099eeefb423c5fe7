import assert from "node:assert/strict";
import {
  changedSections,
  type ContextSnapshot,
  estimateTokens,
  renderContext,
} from "../../src/perception/context_renderer.ts";

const SNAPSHOT: ContextSnapshot = {
  project: {
    name: "vantage",
    root: "/work/main",
    stack: "TypeScript · build=deno check · test=deno task test",
  },
  session: {
    id: "a1b2c3d4e5f6",
    duration_ms: 12 * 60_000,
    tool_calls: 47,
    tokens_in: 84_210,
    tokens_out: 312_045,
  },
  focus: "/work/main/src/perception/file_watcher.ts",
  recent_files: ["/work/main/src/a.ts", "/work/main/src/b.ts"],
  build: {
    status: "failed",
    command: "deno check",
    exit_code: 1,
    errors_30m: 2,
    last_error: "src/a.ts:12:7: TS2322 Type 'string' is not assignable to type 'number'.",
    age_ms: 6 * 60_000,
  },
  external_changes: {
    files: ["/work/main/README.md"],
    git: ['commit 3f4e920 "Fix parser" on main'],
  },
  anomalies: [{
    kind: "stale_file_view",
    severity: "critical",
    evidence: "a.ts changed on disk 2 min before your Edit, not by you.",
    suggestion: "Re-read a.ts before the next edit.",
    related_files: ["/work/main/src/a.ts"],
    fingerprint: "stale_file_view:1234abcd",
  }],
};

Deno.test("renderContext renders every section the first time", () => {
  const out = renderContext(SNAPSHOT);
  assert.equal(
    out.text,
    [
      "<vantage-context>",
      "project: vantage (TypeScript · build=deno check · test=deno task test)",
      "session: a1b2c3d4 · 12 min · 47 tool calls · tokens in=84k out=312k",
      "focus: src/perception/file_watcher.ts",
      "recent_files: src/a.ts, src/b.ts",
      "build: FAILED `deno check` exit=1 · 2 failed runs in 30 min · 6 min ago",
      "build_error: src/a.ts:12:7: TS2322 Type 'string' is not assignable to type 'number'.",
      "external_changes: README.md",
      'git: commit 3f4e920 "Fix parser" on main',
      "anomalies:",
      "- [critical] stale_file_view: a.ts changed on disk 2 min before your Edit, not by you. → Re-read a.ts before the next edit.",
      "</vantage-context>",
    ].join("\n"),
  );
  assert.deepEqual(out.sections, [
    "project",
    "session",
    "focus",
    "recent_files",
    "build",
    "external",
    "anomalies",
  ]);
  assert.equal(out.tokens, estimateTokens(out.text));
  assert.equal(out.truncated, false);
  assert.deepEqual(renderContext(structuredClone(SNAPSHOT)), out, "deterministic");
});

Deno.test("renderContext says nothing when only counters changed", () => {
  const later: ContextSnapshot = {
    ...SNAPSHOT,
    session: { ...SNAPSHOT.session!, tool_calls: 60, duration_ms: 20 * 60_000 },
    build: { ...SNAPSHOT.build!, age_ms: 9 * 60_000 },
    anomalies: [{
      ...SNAPSHOT.anomalies![0],
      evidence: "a.ts changed on disk 5 min before your Edit.",
    }],
  };
  assert.deepEqual(renderContext(later, SNAPSHOT), {
    text: "",
    sections: [],
    tokens: 0,
    truncated: false,
  });
  assert.deepEqual(changedSections(later, SNAPSHOT), []);
});

Deno.test("renderContext re-sends only the sections that changed", () => {
  const next: ContextSnapshot = {
    ...SNAPSHOT,
    build: { status: "ok", command: "deno check", exit_code: 0, age_ms: 10_000 },
    focus: "/work/main/src/perception/context_renderer.ts",
  };
  const out = renderContext(next, SNAPSHOT);
  assert.deepEqual(out.sections, ["session", "focus", "build"]);
  assert.equal(
    out.text,
    [
      "<vantage-context>",
      "session: a1b2c3d4 · 12 min · 47 tool calls · tokens in=84k out=312k",
      "focus: src/perception/context_renderer.ts",
      "build: ok `deno check` · just now",
      "</vantage-context>",
    ].join("\n"),
  );
});

Deno.test("renderContext announces resolved anomalies but not emptied lists", () => {
  const resolved: ContextSnapshot = { ...SNAPSHOT, anomalies: [], external_changes: undefined };
  const out = renderContext(resolved, SNAPSHOT);
  assert.deepEqual(out.sections, ["session", "anomalies"]);
  assert.match(out.text, /anomalies: none \(earlier ones resolved\)/);
  assert.doesNotMatch(out.text, /external/);
});

Deno.test("renderContext stays within the token budget with '+N more'", () => {
  const big: ContextSnapshot = {
    ...SNAPSHOT,
    recent_files: Array.from({ length: 40 }, (_, i) => `/work/main/src/module_${i}/file_${i}.ts`),
    external_changes: {
      files: Array.from({ length: 25 }, (_, i) => `/work/main/docs/page_${i}.md`),
      git: Array.from({ length: 5 }, (_, i) => `commit ${i}abcdef "${"long message ".repeat(20)}"`),
    },
    anomalies: Array.from({ length: 12 }, (_, i) => ({
      kind: i % 2 === 0 ? "tool_loop" : "edit_churn",
      severity: i < 3 ? "critical" as const : "warning" as const,
      evidence: `evidence ${i} `.repeat(30),
      suggestion: `suggestion ${i} `.repeat(30),
      fingerprint: `fp${i}`,
    })),
  };
  const out = renderContext(big);
  assert.ok(out.tokens <= 500, `tokens ${out.tokens}`);
  assert.equal(out.truncated, true);
  assert.match(out.text, /\+\d+ more/);
  assert.ok(
    out.text.startsWith("<vantage-context>\n") && out.text.endsWith("\n</vantage-context>"),
  );
  assert.match(out.text, /- \[critical\]/, "the most severe anomalies survive");
  const small = renderContext(big, undefined, { maxTokens: 60 });
  assert.ok(small.tokens <= 60, `tokens ${small.tokens}`);
  assert.ok(small.text.endsWith("…\n</vantage-context>"));
});

Deno.test("renderContext shortens long paths and renders everything when forced", () => {
  const deep = "/work/main/" + Array.from({ length: 12 }, (_, i) => `level${i}`).join("/") +
    "/leaf_file.ts";
  const out = renderContext({ focus: deep, project: { name: "p", root: "/work/main" } });
  assert.match(out.text, /focus: …\/level10\/level11\/leaf_file\.ts/);
  const forced = renderContext(SNAPSHOT, SNAPSHOT, {
    force: true,
    header: "Preserve through compaction — current state:",
  });
  assert.deepEqual(forced.sections, [
    "project",
    "session",
    "focus",
    "recent_files",
    "build",
    "external",
    "anomalies",
  ]);
  assert.match(forced.text, /^<vantage-context>\nPreserve through compaction/);
  assert.equal(renderContext({}).text, "");
});
