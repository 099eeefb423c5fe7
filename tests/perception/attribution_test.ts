import assert from "node:assert/strict";
import type { HookEvent } from "../../src/model/agent_records.ts";
import { attributeChange, attributeChanges } from "../../src/perception/attribution.ts";
import { call, CWD, T0 } from "./anomaly_fixtures.ts";

const change = (path: string, ts: number) => ({ path, kind: "modify" as const, ts });

Deno.test("attributeChange credits an edit tool naming the file within the window", () => {
  const events = call({ tool: "Edit", file: "/repo/src/a.ts", ts: T0 - 2000, success: true });
  const result = attributeChange(change("/repo/src/a.ts", T0), events);
  assert.equal(result.attribution, "agent");
  assert.equal(result.session_id, "sess-1");
  assert.equal(result.tool_name, "Edit");
  assert.equal(result.agent, "claude_code");
});

Deno.test("attributeChange resolves relative paths and patch file lists against the cwd", () => {
  const patch: HookEvent = {
    agent: "codex",
    session_id: "c1",
    cwd: CWD,
    event_type: "PreToolUse",
    ts: T0 - 1000,
    tool_name: "apply_patch",
    file_path: "src/a.ts",
    file_paths: ["src/a.ts", "src/b.ts"],
    raw: {},
  };
  assert.equal(attributeChange(change("/repo/src/b.ts", T0), [patch]).attribution, "agent");
  assert.equal(attributeChange(change("/repo/src/c.ts", T0), [patch]).attribution, "unknown");
});

Deno.test("attributeChange credits shell commands naming the path or its base name", () => {
  const sed = call({
    tool: "Bash",
    command: "sed -i 's/a/b/' src/util.ts",
    ts: T0 - 500,
    success: true,
  });
  assert.equal(attributeChange(change("/repo/src/util.ts", T0), sed).attribution, "agent");
  const byBase = call({
    tool: "Bash",
    command: "npx prettier --write util.ts",
    ts: T0 - 500,
    success: true,
  });
  assert.equal(attributeChange(change("/repo/lib/util.ts", T0), byBase).attribution, "agent");
  const partial = call({ tool: "Bash", command: "cat util.tsx", ts: T0 - 500, success: true });
  assert.equal(attributeChange(change("/repo/lib/util.ts", T0), partial).attribution, "unknown");
});

Deno.test("attributeChange says unknown outside the window, for reads, and for other files", () => {
  const old = call({ tool: "Edit", file: "/repo/a.ts", ts: T0 - 7000, success: true });
  assert.equal(attributeChange(change("/repo/a.ts", T0), old).attribution, "unknown");
  const later = call({ tool: "Edit", file: "/repo/a.ts", ts: T0 + 3000 });
  assert.equal(attributeChange(change("/repo/a.ts", T0), later).attribution, "unknown");
  const readOnly = call({ tool: "Read", file: "/repo/a.ts", ts: T0 - 100, success: true });
  assert.equal(attributeChange(change("/repo/a.ts", T0), readOnly).attribution, "unknown");
  const other = call({ tool: "Write", file: "/repo/b.ts", ts: T0 - 100, success: true });
  assert.equal(attributeChange(change("/repo/a.ts", T0), other).attribution, "unknown");
  // The PostToolUse of a write lands a moment after the change itself.
  const post: HookEvent = { ...other[1], file_path: "/repo/a.ts", ts: T0 + 400 };
  assert.equal(attributeChange(change("/repo/a.ts", T0), [post]).attribution, "agent");
  assert.equal(
    attributeChange(change("/repo/a.ts", T0), old, { windowMs: 10_000 }).attribution,
    "agent",
  );
});

Deno.test("attributeChanges attributes a batch against the same events", () => {
  const events = [
    ...call({ tool: "Write", file: "/repo/a.ts", ts: T0 - 1000, success: true }),
    ...call({ tool: "Edit", file: "/repo/b.ts", ts: T0 - 60_000, success: true }),
  ];
  const result = attributeChanges([change("/repo/a.ts", T0), change("/repo/b.ts", T0)], events);
  assert.deepEqual(result.map((r) => r.attribution), ["agent", "unknown"]);
  assert.deepEqual(attributeChanges([], events), []);
});
