/**
 * Hooks end to end: the real `vantage hook` process posting to the real
 * `vantage serve`, the spool when the server is down, concurrency, and bad
 * input — the hook always exits 0 and nothing valid is lost.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runHook, startServe } from "../helpers/serve_process.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";

function query<T>(dataHome: string, sql: string, ...params: Array<string | number>): T[] {
  const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("condition not met in time");
}

Deno.test("real Claude Code and Codex hook payloads are stored with their session id and cwd", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const server = await startServe(home, ["--no-tail"]);
  try {
    const env = { VANTAGE_URL: server.url };
    for (const [agent, flag] of [["claude_code", "claude-code"], ["codex", "codex"]]) {
      const lines = (await Deno.readTextFile(`${FIXTURES}${agent}/hooks.jsonl`)).trim().split("\n");
      for (const line of lines) {
        const run = await runHook(home, flag, line, env);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stderr, "");
      }
      const rows = query<{ n: number; session_id: string; cwd: string }>(
        home.dataHome,
        "SELECT count(*) AS n, session_id, cwd FROM events WHERE agent = ? GROUP BY session_id, cwd",
        agent,
      );
      assert.equal(rows.length, 1, agent);
      assert.equal(rows[0].n, lines.length, agent);
      const first = JSON.parse(lines[0]);
      assert.equal(rows[0].session_id, first.session_id);
      assert.equal(rows[0].cwd, first.cwd);
    }
    const failures = query<{ n: number }>(
      home.dataHome,
      "SELECT count(*) AS n FROM events WHERE agent = 'claude_code' AND event_type = 'PostToolUseFailure'",
    );
    assert.ok(failures[0].n >= 1);
  } finally {
    assert.equal(await server.stop(), 0);
    await home.cleanup();
  }
});

Deno.test("eight hooks firing at once lose nothing", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const server = await startServe(home, ["--no-tail"]);
  try {
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runHook(
          home,
          "claude-code",
          JSON.stringify({
            session_id: "concurrent",
            cwd: "/work/p",
            hook_event_name: "PostToolUse",
            tool_name: "Bash",
            tool_input: { command: `echo ${i}` },
            tool_response: { stdout: String(i) },
          }),
          { VANTAGE_URL: server.url },
        )),
    );
    assert.ok(runs.every((r) => r.code === 0));
    // Any hook that missed the budget spooled; the server replays the spool on a timer.
    await waitFor(() =>
      query<{ n: number }>(
        home.dataHome,
        "SELECT count(*) AS n FROM events WHERE session_id = 'concurrent'",
      )[0]
        .n === 8
    );
    const commands = query<{ command: string }>(
      home.dataHome,
      "SELECT command FROM events WHERE session_id = 'concurrent' ORDER BY command",
    ).map((r) => r.command);
    assert.deepEqual(commands, Array.from({ length: 8 }, (_, i) => `echo ${i}`));
  } finally {
    await server.stop();
    await home.cleanup();
  }
});

Deno.test("with the server down the hook spools and exits 0; the server replays exactly once", async () => {
  const home = await makeAgentHome({ fixtures: false });
  try {
    // Nothing listens on this port.
    const down = { VANTAGE_URL: "http://127.0.0.1:9" };
    for (let i = 0; i < 3; i++) {
      const run = await runHook(
        home,
        "codex",
        JSON.stringify({
          session_id: "offline",
          cwd: "/work/q",
          hook_event_name: "UserPromptSubmit",
          prompt: `prompt ${i}`,
        }),
        down,
      );
      assert.equal(run.code, 0);
      assert.equal(run.stdout, "");
    }
    const spool = await Deno.readTextFile(`${home.dataHome}/spool/hooks.jsonl`);
    assert.equal(spool.trim().split("\n").length, 3);

    const server = await startServe(home, ["--no-tail"]);
    try {
      const rows = query<{ prompt: string }>(
        home.dataHome,
        "SELECT prompt FROM events WHERE session_id = 'offline' ORDER BY prompt",
      );
      assert.deepEqual(rows.map((r) => r.prompt), ["prompt 0", "prompt 1", "prompt 2"]);
    } finally {
      await server.stop();
    }
    // A second start replays nothing again.
    const again = await startServe(home, ["--no-tail"]);
    await again.stop();
    const count = query<{ n: number }>(
      home.dataHome,
      "SELECT count(*) AS n FROM events WHERE session_id = 'offline'",
    );
    assert.equal(count[0].n, 3);
  } finally {
    await home.cleanup();
  }
});

Deno.test("bad hook input: clear stderr lines, exit 0, and everything valid is stored", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const server = await startServe(home, ["--no-tail"]);
  // This test is about what the server answers, not about the hook's time budget: on a loaded
  // machine a 300 ms budget would send a refused payload to the spool, silently.
  const env = { VANTAGE_URL: server.url, VANTAGE_HOOK_TIMEOUT_MS: "10000" };
  try {
    const empty = await runHook(home, "claude-code", "", env);
    assert.equal(empty.code, 0);
    assert.match(empty.stderr, /empty payload/);
    const garbage = await runHook(home, "claude-code", "{not json", env);
    assert.equal(garbage.code, 0);
    assert.match(garbage.stderr, /payload is not JSON/);
    const unknownAgent = await runHook(home, "vim", "{}", env);
    assert.equal(unknownAgent.code, 0);
    assert.match(unknownAgent.stderr, /unknown agent 'vim'/);
    const noSession = await runHook(
      home,
      "claude-code",
      JSON.stringify({ hook_event_name: "Stop" }),
      env,
    );
    assert.equal(noSession.code, 0);
    assert.match(noSession.stderr, /payload refused: .*session/);

    const big = "x".repeat(5 * 1024 * 1024);
    const large = await runHook(
      home,
      "claude-code",
      JSON.stringify({
        session_id: "big",
        cwd: "/work/big",
        hook_event_name: "PostToolUse",
        tool_name: "Read",
        tool_input: { file_path: "/work/big/huge.txt" },
        tool_response: { content: big },
      }),
      env,
    );
    assert.equal(large.code, 0, large.stderr);
    await waitFor(() =>
      query<{ n: number }>(
        home.dataHome,
        "SELECT count(*) AS n FROM events WHERE session_id = 'big'",
      )[0].n === 1
    );
    const stored = query<{ size: number; file_path: string; cut: number }>(
      home.dataHome,
      "SELECT length(raw) AS size, file_path, instr(raw, '…[cut 4980736 chars]…') AS cut FROM events WHERE session_id = 'big'",
    )[0];
    // Taken whole (its fields are read from all of it), but its 5 MiB string is kept as 256 KiB.
    assert.ok(stored.size > 256 * 1024 && stored.size < 257 * 1024, String(stored.size));
    assert.ok(stored.cut > 0);
    assert.equal(stored.file_path, "/work/big/huge.txt");

    const odd = await runHook(
      home,
      "claude-code",
      JSON.stringify({
        session_id: "odd",
        cwd: "/work/odd",
        hook_event_name: "SomethingNew",
      }),
      env,
    );
    assert.equal(odd.code, 0, odd.stderr);
    await waitFor(() =>
      query<{ n: number }>(
        home.dataHome,
        "SELECT count(*) AS n FROM events WHERE session_id = 'odd'",
      )[0].n === 1
    );
    assert.equal(
      query<{ event_type: string }>(
        home.dataHome,
        "SELECT event_type FROM events WHERE session_id = 'odd'",
      )[0]
        .event_type,
      "SomethingNew",
    );
  } finally {
    await server.stop();
    await home.cleanup();
  }
});
