/**
 * A SessionStart hook with no server running starts one in the background;
 * the server replays the spooled event. Only one server runs per data home.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runHook } from "../helpers/serve_process.ts";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

function stored(dataHome: string): number {
  try {
    const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM events WHERE session_id = 'auto'").get() as {
        n: number;
      }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

Deno.test("a SessionStart hook starts the server when none runs, and its event is stored", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const env = { VANTAGE_PORT: String(freePort()) };
  try {
    const run = await runHook(
      home,
      "claude-code",
      JSON.stringify({
        session_id: "auto",
        cwd: "/work/auto",
        hook_event_name: "SessionStart",
        source: "startup",
      }),
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "");
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && stored(home.dataHome) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(stored(home.dataHome), 1);
    // The spool is replayed before the server listens; wait for it to record its port.
    let lock: { pid: number; port?: number } = { pid: 0 };
    while (Date.now() < deadline && lock.port === undefined) {
      lock = JSON.parse(await Deno.readTextFile(`${home.dataHome}/serve.lock`));
      if (lock.port === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(lock.port, Number(env.VANTAGE_PORT));
    // A second session start finds the server and starts nothing more.
    const second = await runHook(
      home,
      "claude-code",
      JSON.stringify({
        session_id: "auto",
        cwd: "/work/auto",
        hook_event_name: "SessionStart",
        source: "resume",
      }),
      env,
    );
    assert.equal(second.code, 0);
    assert.equal(stored(home.dataHome), 2);
    const after = JSON.parse(await Deno.readTextFile(`${home.dataHome}/serve.lock`));
    assert.equal(after.pid, lock.pid);
    Deno.kill(lock.pid, "SIGTERM");
    const end = Date.now() + 10_000;
    while (Date.now() < end) {
      try {
        await Deno.stat(`${home.dataHome}/serve.lock`);
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    // Whatever failed above, the server this test started must not outlive it.
    try {
      const lock = JSON.parse(await Deno.readTextFile(`${home.dataHome}/serve.lock`));
      Deno.kill(lock.pid, "SIGTERM");
    } catch {
      // Never started, or already stopped.
    }
    await home.cleanup();
  }
});
