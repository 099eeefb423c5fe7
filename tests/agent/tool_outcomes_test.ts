/**
 * Codex's PostToolUse hook carries a command's output but not its exit code; the real `serve`
 * takes the exit code from the rollout of the same session by call id, whichever arrives
 * first. Driven with the real `vantage hook` process and the payloads and rollout the real
 * Codex wrote (tests/fixtures/transcripts/codex).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { runHook, startServe } from "../helpers/serve_process.ts";
import { findFiles, FIXTURES } from "../helpers/transcript_fixtures.ts";

interface ToolRow {
  tool_use_id: string;
  success: number | null;
  error: string | null;
}

function toolResults(dataHome: string): ToolRow[] {
  const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
  try {
    return (db.prepare(
      `SELECT tool_use_id, success, error FROM events
       WHERE agent = 'codex' AND event_type = 'PostToolUse' ORDER BY tool_use_id`,
    ).all() as unknown as ToolRow[]).map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

function outcomeCount(dataHome: string): number {
  const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM tool_outcomes").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not in time: ${what}`);
}

/** The fixture rollout's path below a home, as Codex laid it out. */
async function rollout(home: AgentHome): Promise<{ from: string; to: string }> {
  const [from] = await findFiles(`${FIXTURES}codex/sessions`, (n) => n.startsWith("rollout-"));
  const relative = from.slice(`${FIXTURES}codex/`.length);
  return { from, to: join(home.home, ".codex", relative) };
}

async function placeRollout(home: AgentHome): Promise<void> {
  const { from, to } = await rollout(home);
  await Deno.mkdir(dirname(to), { recursive: true });
  await Deno.copyFile(from, to);
}

/** Posts every recorded Codex hook payload, its transcript path moved into `home`. */
async function postHooks(home: AgentHome, url: string): Promise<void> {
  const lines = (await Deno.readTextFile(`${FIXTURES}codex/hooks.jsonl`)).trim().split("\n");
  for (const line of lines) {
    const payload = line.replaceAll("/home/fixture/", `${home.home}/`);
    // Generous: this is about what is stored, not about the hook's time budget.
    const run = await runHook(home, "codex", payload, {
      VANTAGE_URL: home.env.VANTAGE_URL ?? url,
      VANTAGE_HOOK_TIMEOUT_MS: "10000",
    });
    assert.equal(run.code, 0, run.stderr);
  }
}

const EXPECTED: ToolRow[] = [
  { tool_use_id: "call_script_001", success: 1, error: null },
  {
    tool_use_id: "call_script_002",
    success: 0,
    error: "Exit code 2\nls: cannot access 'missing-dir': No such file or directory",
  },
];

Deno.test("a Codex tool result stored before its rollout says the exit code takes it later", async () => {
  const home = await makeAgentHome({ fixtures: false });
  await Deno.mkdir(join(home.home, ".codex", "sessions"), { recursive: true });
  const server = await startServe(home);
  try {
    await postHooks(home, server.url);
    // No rollout yet: both outcomes unknown (`ls missing-dir` printed only its error text).
    assert.deepEqual(toolResults(home.dataHome), [
      { tool_use_id: "call_script_001", success: null, error: null },
      { tool_use_id: "call_script_002", success: null, error: null },
    ]);
    await placeRollout(home);
    await waitFor(
      () => toolResults(home.dataHome).every((row) => row.success !== null),
      "the tailer completes both events",
    );
    assert.deepEqual(toolResults(home.dataHome), EXPECTED);
  } finally {
    assert.equal(await server.stop(), 0);
    await home.cleanup();
  }
});

Deno.test("a Codex tool result whose rollout already says the exit code is stored with it", async () => {
  const home = await makeAgentHome({ fixtures: false });
  await placeRollout(home);
  const server = await startServe(home);
  try {
    // item_completed and function_call_output both give each call's code: one row per call.
    await waitFor(() => outcomeCount(home.dataHome) === 2, "the start-up scan reads the rollout");
    await postHooks(home, server.url);
    assert.deepEqual(toolResults(home.dataHome), EXPECTED);
  } finally {
    assert.equal(await server.stop(), 0);
    await home.cleanup();
  }
});
