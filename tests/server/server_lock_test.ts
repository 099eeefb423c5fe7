/**
 * One `serve` per data home, held by an OS file lock: in-process checks of
 * the lock functions, then real `vantage serve` processes under their
 * shipped permissions — a frozen owner keeps its home, a killed one gives it
 * up, two started together leave exactly one running.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { VantageError } from "../../src/core/errors.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { acquireServerLock, readServerLock } from "../../src/store/server_lock.ts";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";
import { startServe } from "../helpers/serve_process.ts";

const LOCK = "serve.lock";

async function tempHome(): Promise<string> {
  return join(await Deno.makeTempDir({ prefix: "vantage-lock-" }), "home");
}

async function conflictOf(attempt: Promise<unknown>): Promise<VantageError> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof VantageError && error.kind === "conflict") return error;
    throw error;
  }
  assert.fail("the lock was taken twice");
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

Deno.test("server lock: a second taker in the same process gets a conflict naming pid and port", async () => {
  const home = await tempHome();
  try {
    const lock = await acquireServerLock(home);
    const starting = await conflictOf(acquireServerLock(home));
    assert.match(starting.message, new RegExp(`pid ${Deno.pid}\\b`));
    assert.match(starting.message, /starting/);
    const early = await readServerLock(home);
    assert.equal(early?.pid, Deno.pid);
    assert.equal(early?.port, undefined);
    await lock.record(43210);
    const running = await conflictOf(acquireServerLock(home));
    assert.match(running.message, new RegExp(`pid ${Deno.pid}, port 43210`));
    assert.equal(running.details?.pid, Deno.pid);
    assert.equal(running.details?.port, 43210);
    const info = await readServerLock(home);
    assert.equal(info?.pid, Deno.pid);
    assert.equal(info?.port, 43210);
    // Reading probed the lock; the owner still holds it.
    await conflictOf(acquireServerLock(home));
    await lock.release();
    assert.equal(exists(join(home, LOCK)), false);
    assert.equal(await readServerLock(home), undefined);
    const again = await acquireServerLock(home);
    await again.release();
  } finally {
    await Deno.remove(join(home, ".."), { recursive: true });
  }
});

Deno.test("server lock: the lock file is 0600 and a created data home 0700", async () => {
  const home = await tempHome();
  try {
    const lock = await acquireServerLock(home);
    assert.equal(Deno.statSync(join(home, LOCK)).mode! & 0o777, 0o600);
    assert.equal(Deno.statSync(home).mode! & 0o077, 0);
    await lock.release();
    // A lock file an older version left readable by others is narrowed when taken.
    Deno.writeTextFileSync(join(home, LOCK), "", { mode: 0o644 });
    Deno.chmodSync(join(home, LOCK), 0o644);
    const again = await acquireServerLock(home);
    assert.equal(Deno.statSync(join(home, LOCK)).mode! & 0o777, 0o600);
    await again.release();
  } finally {
    await Deno.remove(join(home, ".."), { recursive: true });
  }
});

Deno.test("server lock: a dead owner's leftover file is not a server, and is taken over", async () => {
  const home = await tempHome();
  try {
    await Deno.mkdir(home, { recursive: true });
    // What a killed server leaves: its JSON, but no process holding the lock.
    const leftover = { pid: 2_000_000_001, port: 1, started_at: 5 };
    await Deno.writeTextFile(join(home, LOCK), JSON.stringify(leftover) + " ".repeat(200));
    assert.equal(await readServerLock(home), undefined);
    const lock = await acquireServerLock(home);
    const info = await readServerLock(home);
    assert.equal(info?.pid, Deno.pid);
    assert.equal(info?.port, undefined);
    assert.ok(info !== undefined && info.started_at > 5);
    await lock.release();
  } finally {
    await Deno.remove(join(home, ".."), { recursive: true });
  }
});

Deno.test("server lock: a reader's momentary probe does not turn a free lock into a conflict", async () => {
  const home = await tempHome();
  try {
    await Deno.mkdir(home, { recursive: true });
    // A reader caught between probing the lock and letting it go (shared lock held).
    const reader = Deno.openSync(join(home, LOCK), { read: true, write: true, create: true });
    assert.equal(reader.tryLockSync(false), true);
    const letGo = setTimeout(() => reader.close(), 300);
    try {
      const lock = await acquireServerLock(home);
      assert.equal((await readServerLock(home))?.pid, Deno.pid);
      await lock.release();
    } finally {
      clearTimeout(letGo);
      try {
        reader.close();
      } catch { /* closed by the timer */ }
    }
  } finally {
    await Deno.remove(join(home, ".."), { recursive: true });
  }
});

Deno.test("server lock: releasing never removes a lock file someone else holds", async () => {
  const home = await tempHome();
  try {
    const first = await acquireServerLock(home);
    await first.record(1111);
    // Someone deletes the held file by hand; a new server then takes a new one.
    await Deno.remove(join(home, LOCK));
    const second = await acquireServerLock(home);
    await second.record(2222);
    await first.release();
    assert.equal((await readServerLock(home))?.port, 2222);
    await conflictOf(acquireServerLock(home));
    await second.release();
    assert.equal(exists(join(home, LOCK)), false);
  } finally {
    await Deno.remove(join(home, ".."), { recursive: true });
  }
});

Deno.test("server lock: processes racing to take and release it never hold it together", async () => {
  const home = await tempHome();
  try {
    await Deno.mkdir(home, { recursive: true });
    const dir = join(home, "..");
    const contender = new URL("../helpers/lock_contender.ts", import.meta.url).pathname;
    const program = new URL("../..", import.meta.url).pathname;
    // Every contender starts its loop at the same moment, after all have loaded.
    const start = Date.now() + 3_000;
    const runs = Array.from({ length: 4 }, () =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          `--allow-read=${program},${dir}`,
          `--allow-write=${dir}`,
          contender,
          home,
          String(start),
          "1500",
        ],
        stdout: "piped",
        stderr: "piped",
      }).output());
    const totals = { taken: 0, refused: 0, overlaps: 0 };
    for (const output of await Promise.all(runs)) {
      const text = new TextDecoder().decode(output.stdout);
      assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
      const counts = JSON.parse(text) as typeof totals;
      totals.taken += counts.taken;
      totals.refused += counts.refused;
      totals.overlaps += counts.overlaps;
    }
    assert.equal(totals.overlaps, 0, JSON.stringify(totals));
    // The race really happened: turns were taken and refused.
    assert.ok(totals.taken > 10 && totals.refused > 10, JSON.stringify(totals));
  } finally {
    await Deno.remove(join(home, ".."), { recursive: true });
  }
});

Deno.test("server lock: another process reading the file while the owner records finds JSON", async () => {
  const home = await tempHome();
  try {
    const lock = await acquireServerLock(home);
    // A reader as plain as the test helpers: read the file, parse it, count what does not parse.
    const reader = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `const [path, until] = Deno.args; let reads = 0, torn = 0;
        while (Date.now() < Number(until)) {
          const text = Deno.readTextFileSync(path);
          reads++;
          try { JSON.parse(text); } catch { torn++; }
        }
        console.log(JSON.stringify({ reads, torn }));`,
        join(home, LOCK),
        String(Date.now() + 3_000),
      ],
      stdout: "piped",
    }).output();
    let port = 1;
    let done = false;
    reader.finally(() => done = true);
    while (!done) {
      await lock.record(port);
      // Ports of changing width: the JSON grows and shrinks.
      port = port > 60_000 ? 1 : port * 7;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const counts = JSON.parse(new TextDecoder().decode((await reader).stdout));
    assert.ok(counts.reads > 100, JSON.stringify(counts));
    assert.equal(counts.torn, 0, JSON.stringify(counts));
    await lock.release();
  } finally {
    await Deno.remove(join(home, ".."), { recursive: true });
  }
});

/** A `serve` child that may or may not win the lock, with its stderr collected. */
interface Contender {
  child: Deno.ChildProcess;
  stderr: Promise<string>;
}

function spawnServe(home: AgentHome): Contender {
  const flags = permissionFlags(
    "serve",
    { ...resolvePaths(home.dataHome), userHome: home.home },
    [],
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "serve", "--port", "0", "--no-tail"],
    env: home.env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  return { child, stderr };
}

/**
 * The child's exit status, or undefined if it still runs after `ms` (a
 * safety net: a serve that wrongly starts would otherwise never return).
 */
async function exitOf(
  child: Deno.ChildProcess,
  ms: number,
): Promise<Deno.CommandStatus | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) =>
    timer = setTimeout(() => resolve(undefined), ms)
  );
  try {
    return await Promise.race([child.status, late]);
  } finally {
    clearTimeout(timer);
  }
}

function kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch { /* already gone */ }
}

async function health(url: string): Promise<{ pid: number }> {
  const response = await fetch(`${url}/api/health`);
  assert.equal(response.status, 200);
  return await response.json();
}

Deno.test("serve lock: a second serve fails while the first is frozen, and the first keeps its home", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const first = await startServe(home, ["--no-tail"]);
  try {
    // Frozen: it cannot answer anything, yet it is alive and holds the lock.
    Deno.kill(first.child.pid, "SIGSTOP");
    const second = spawnServe(home);
    const status = await exitOf(second.child, 60_000);
    if (status === undefined) kill(second.child, "SIGKILL");
    const log = await second.stderr;
    assert.notEqual(status, undefined, `the second serve kept running:\n${log}`);
    assert.notEqual(status!.code, 0, log);
    assert.match(
      log,
      new RegExp(`already serving .*pid ${first.child.pid}, port ${first.port}\\b`),
    );
    Deno.kill(first.child.pid, "SIGCONT");
    assert.equal((await health(first.url)).pid, first.child.pid);
    const lock = JSON.parse(await Deno.readTextFile(`${home.dataHome}/${LOCK}`));
    assert.equal(lock.pid, first.child.pid);
    assert.equal(lock.port, first.port);
    assert.equal(await first.stop(), 0);
    assert.equal(exists(`${home.dataHome}/${LOCK}`), false);
  } finally {
    kill(first.child, "SIGCONT");
    await first.stop("SIGKILL");
    await home.cleanup();
  }
});

Deno.test("serve lock: after kill -9 of the owner a new serve takes over", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const first = await startServe(home, ["--no-tail"]);
  let next: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    await first.stop("SIGKILL");
    // The leftover file still names the dead owner; readers do not take it for a server.
    const leftover = JSON.parse(await Deno.readTextFile(`${home.dataHome}/${LOCK}`));
    assert.equal(leftover.pid, first.child.pid);
    assert.equal(await readServerLock(home.dataHome), undefined);
    next = await startServe(home, ["--no-tail"]);
    assert.equal((await health(next.url)).pid, next.child.pid);
    const info = await readServerLock(home.dataHome);
    assert.equal(info?.pid, next.child.pid);
    assert.equal(info?.port, next.port);
    assert.equal(await next.stop(), 0);
  } finally {
    await next?.stop("SIGKILL");
    await home.cleanup();
  }
});

Deno.test("serve lock: of two serves started at once exactly one runs", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const both = [spawnServe(home), spawnServe(home)];
  try {
    const first = await Promise.race([
      ...both.map((contender, index) => contender.child.status.then(() => index)),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 60_000)),
    ]);
    assert.notEqual(first, undefined, "both serves kept running");
    const loser = both[first!];
    const winner = both[1 - first!];
    const log = await loser.stderr;
    assert.notEqual((await loser.child.status).code, 0, log);
    assert.match(log, new RegExp(`already serving .*pid ${winner.child.pid}\\b`));
    // The winner records its port and answers; it never exits on its own.
    let info = await readServerLock(home.dataHome);
    const deadline = Date.now() + 60_000;
    while (info?.port === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      info = await readServerLock(home.dataHome);
    }
    assert.equal(info?.pid, winner.child.pid);
    assert.equal((await health(`http://127.0.0.1:${info!.port}`)).pid, winner.child.pid);
    kill(winner.child, "SIGTERM");
    assert.equal((await winner.child.status).code, 0, await winner.stderr);
  } finally {
    for (const contender of both) {
      kill(contender.child, "SIGKILL");
      await contender.child.status;
      await contender.stderr.catch(() => "");
    }
    await home.cleanup();
  }
});
