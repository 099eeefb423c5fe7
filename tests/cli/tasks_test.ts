/**
 * The shipped tasks, run for real: `deno task start` and `deno task mcp` in
 * the repository with HOME, VANTAGE_HOME and VANTAGE_ROOTS pointing at
 * temporary folders. The launcher must give the server read and write of
 * every root and of the data home VANTAGE_HOME names — exactly the computed
 * permission set — pass stdio and SIGTERM through, and leave nothing in
 * ~/.vantage.
 */
import assert from "node:assert/strict";
import { delimiter, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { denoDir } from "../helpers/agent_home.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";
import { processTree, readStat } from "../helpers/process_tree.ts";
import config from "../../deno.json" with { type: "json" };

const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** Generous: `deno task` asks `deno eval` for its path, then the launcher starts the command. */
const START_DEADLINE_MS = 90_000;

/** Temporary folders laid out like a user's machine, with data home and roots apart from HOME. */
interface Machine {
  home: string;
  dataHome: string;
  roots: string[];
  outside: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

async function makeMachine(extra: Record<string, string> = {}): Promise<Machine> {
  const base = await Deno.makeTempDir({ prefix: "vantage-tasks-" });
  const home = join(base, "home");
  const dataHome = join(base, "data");
  const roots = [join(base, "project"), join(base, "notes")];
  const outside = join(base, "elsewhere");
  for (const dir of [home, ...roots, outside]) await Deno.mkdir(dir, { recursive: true });
  // Nothing of the caller's Vantage settings may leak in: only what this machine sets.
  const inherited = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => !name.startsWith("VANTAGE_")),
  );
  return {
    home,
    dataHome,
    roots,
    outside,
    env: {
      ...inherited,
      HOME: home,
      VANTAGE_HOME: dataHome,
      VANTAGE_ROOTS: roots.join(delimiter),
      DENO_DIR: denoDir(),
      ...extra,
    },
    cleanup: () => Deno.remove(base, { recursive: true }).catch(() => {}),
  };
}

/**
 * Kills `child` and everything below it, deepest first: after a failure the
 * launcher and the server must not outlive the test (SIGKILL to `deno task`
 * alone would leave them running).
 */
async function killTree(child: Deno.ChildProcess): Promise<void> {
  for (const { pid } of processTree(child.pid).reverse()) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await child.status;
}

/** SIGKILLs `pid` when it is still a Vantage process (it may have ended and its id been reused). */
function killStray(pid: number): void {
  try {
    if (!commandLine(pid).includes(MAIN)) return;
    Deno.kill(pid, "SIGKILL");
  } catch {
    // Gone.
  }
}

/** The argv of a running process, from /proc. */
function commandLine(pid: number): string[] {
  return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").slice(0, -1);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Collects a child's output stream as text. */
function collect(stream: ReadableStream<Uint8Array>): () => string {
  let text = "";
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  })();
  return () => text;
}

/** The paths of the documents stored in a data home's database. */
function storedPaths(dataHome: string): string[] {
  const db = new DatabaseSync(join(dataHome, "vantage.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT path FROM docs_documents ORDER BY path").all() as { path: string }[])
      .map((row) => row.path);
  } finally {
    db.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("deno task start: serves with VANTAGE_HOME and VANTAGE_ROOTS, stops on SIGTERM", async () => {
  const port = freePort();
  const machine = await makeMachine({ VANTAGE_PORT: String(port) });
  const inRoot = join(machine.roots[1], "plan.md");
  const outsideFile = join(machine.outside, "secret.md");
  await Deno.writeTextFile(inRoot, "# Plan\nShip the launcher.\n");
  await Deno.writeTextFile(outsideFile, "# Secret\n");
  const task = new Deno.Command(Deno.execPath(), {
    args: ["task", "start"],
    cwd: REPO,
    env: machine.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = collect(task.stdout);
  const stderr = collect(task.stderr);
  const url = `http://127.0.0.1:${port}`;
  let stopped = false;
  let exited = false;
  let servePid: number | undefined;
  task.status.then(() => exited = true);
  try {
    let health: { pid: number } | undefined;
    const deadline = Date.now() + START_DEADLINE_MS;
    while (health === undefined && !exited && Date.now() < deadline) {
      try {
        const response = await fetch(`${url}/api/health`);
        if (response.ok) health = await response.json();
        else await response.body?.cancel();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.ok(health !== undefined, `serve did not answer on ${url}:\n${stderr()}`);

    // deno task → launcher → serve, and serve holds exactly the computed permission set.
    servePid = health.pid;
    const serve = readStat(health.pid)!;
    const launcher = readStat(serve.ppid)!;
    assert.equal(launcher.ppid, task.pid);
    const launcherArgs = commandLine(launcher.pid);
    assert.ok(
      launcherArgs.some((arg) => arg.endsWith("scripts/launch.ts")),
      launcherArgs.join(" "),
    );
    for (const arg of launcherArgs) {
      assert.doesNotMatch(arg, /^(-A|--allow-all|--allow-(read|write|net|ffi|sys))/, arg);
    }
    const paths = { ...resolvePaths(machine.dataHome), userHome: machine.home };
    assert.deepEqual(commandLine(serve.pid).slice(1), [
      "run",
      ...permissionFlags("serve", paths, machine.roots),
      MAIN,
      "serve",
    ]);

    const add = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/api/ops/docs.add`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ path }),
      });
    const added = await add(inRoot);
    const addedBody = await added.json();
    assert.equal(added.status, 200, JSON.stringify(addedBody));
    assert.equal(addedBody.result.documents_added, 1);

    const refused = await add(outsideFile);
    const refusedBody = await refused.json();
    assert.equal(refused.status, 403, JSON.stringify(refusedBody));
    assert.equal(refusedBody.operation_error.details.kind, "forbidden");
    assert.equal(
      refusedBody.operation_error.message,
      `read access to ${outsideFile} was refused: it is outside the folders Vantage may read ` +
        `(the data home, the agents' folders and VANTAGE_ROOTS); add its folder to VANTAGE_ROOTS and restart`,
    );

    // Over a real socket too, a sandboxed page's request is refused before it is read.
    const fromNull = await add(join(machine.roots[0], "planted.md"), { origin: "null" });
    assert.equal(fromNull.status, 403);
    assert.match((await fromNull.json()).error.message, /^Origin: null/);

    task.kill("SIGTERM");
    const status = await task.status;
    stopped = true;
    assert.equal(status.code, 0, stderr());
    assert.match(stderr(), /serve: stopped/);
    // The launcher and the server ended with the task (and were reaped, not left as zombies).
    assert.equal(readStat(serve.pid), undefined);
    assert.equal(readStat(launcher.pid), undefined);
    assert.equal(stdout(), "");

    // The data is in VANTAGE_HOME, and nothing was written to ~/.vantage.
    assert.deepEqual(storedPaths(machine.dataHome), [inRoot]);
    assert.equal(await exists(join(machine.home, ".vantage")), false);
  } finally {
    if (!stopped) await killTree(task);
    if (servePid !== undefined) killStray(servePid);
    await machine.cleanup();
  }
});

/** A JSON-RPC conversation over a child's stdin and stdout, one message a line. */
function jsonRpc(child: Deno.ChildProcess) {
  const writer = child.stdin.getWriter();
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const done = (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        lines.push(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
      }
      wake?.();
    }
    if (buffer !== "") lines.push(buffer);
    ended = true;
    wake?.();
  })();
  let read = 0;
  return {
    /** Every line stdout carried so far. */
    lines,
    async send(message: unknown) {
      await writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
    },
    /** The answer to request `id` (every line before it must be JSON-RPC too). */
    async answer(id: number, deadlineMs: number): Promise<Record<string, unknown>> {
      const deadline = Date.now() + deadlineMs;
      for (;;) {
        while (read < lines.length) {
          const message = JSON.parse(lines[read++]);
          assert.equal(message.jsonrpc, "2.0");
          if (message.id === id) return message;
        }
        if (ended) throw new Error(`stdout ended before the answer to request ${id}`);
        if (Date.now() > deadline) throw new Error(`no answer to request ${id}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    close: () => writer.close(),
    done,
  };
}

Deno.test("deno task mcp: answers initialize over stdio and stores into VANTAGE_HOME", async () => {
  const machine = await makeMachine();
  const inRoot = join(machine.roots[0], "readme.md");
  const outsideFile = join(machine.outside, "secret.md");
  await Deno.writeTextFile(inRoot, "# Readme\n");
  await Deno.writeTextFile(outsideFile, "# Secret\n");
  const task = new Deno.Command(Deno.execPath(), {
    args: ["task", "mcp"],
    cwd: REPO,
    env: machine.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = collect(task.stderr);
  const rpc = jsonRpc(task);
  let ended = false;
  try {
    await rpc.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "tasks-test", version: "1" },
      },
    });
    const initialized = await rpc.answer(1, START_DEADLINE_MS).catch((error) => {
      throw new Error(`${error.message}; stderr:\n${stderr()}`);
    });
    const result = initialized.result as { serverInfo: { name: string }; capabilities: object };
    assert.equal(result.serverInfo.name, "vantage");
    assert.ok("tools" in result.capabilities);
    await rpc.send({ jsonrpc: "2.0", method: "notifications/initialized" });

    const execute = async (id: number, path: string) => {
      await rpc.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "execute",
          arguments: { operation_id: "docs.add", arguments: { path } },
        },
      });
      return (await rpc.answer(id, 60_000)).result as {
        isError?: boolean;
        structuredContent: Record<string, unknown>;
      };
    };
    const added = await execute(2, inRoot);
    assert.notEqual(added.isError, true, JSON.stringify(added));
    assert.equal(
      (added.structuredContent.result as { documents_added: number }).documents_added,
      1,
    );
    const refused = await execute(3, outsideFile);
    assert.equal(refused.isError, true);
    assert.match(
      (refused.structuredContent.operation_error as { message: string }).message,
      new RegExp(`read access to ${outsideFile} was refused.*add its folder to VANTAGE_ROOTS`),
    );

    // The agent closes stdin: mcp-serve, the launcher and the task all end cleanly.
    await rpc.close();
    const status = await task.status;
    ended = true;
    await rpc.done;
    assert.equal(status.code, 0, stderr());
    assert.equal(rpc.lines.length, 3, rpc.lines.join("\n"));

    assert.deepEqual(storedPaths(machine.dataHome), [inRoot]);
    assert.equal(await exists(join(machine.home, ".vantage")), false);
  } finally {
    if (!ended) await killTree(task);
    await machine.cleanup();
  }
});

/** A task's command line with the runtime's path put in, as the task shell would. */
function taskArgs(name: "start" | "mcp"): string[] {
  return config.tasks[name]
    .replace(`$(deno eval 'console.log(Deno.execPath())')`, Deno.execPath())
    .split(/\s+/)
    .slice(1);
}

Deno.test("launcher: passes SIGINT and SIGTERM to its child and exits with the child's code", async (t) => {
  const machine = await makeMachine();
  // The launcher alone (no `deno task` around it, which passes signals on by itself).
  const launched: Deno.ChildProcess[] = [];
  const exited = new Set<Deno.ChildProcess>();
  /** Grandchildren a failed step could orphan (a launcher that died leaves no tree to walk). */
  const strays = new Set<number>();
  const launch = (args: string[], stdin: "null" | "piped") => {
    const child = new Deno.Command(Deno.execPath(), {
      args,
      cwd: REPO,
      env: machine.env,
      stdin,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    launched.push(child);
    child.status.then(() => exited.add(child));
    return child;
  };
  try {
    await t.step("SIGINT to the launcher stops serve gracefully; exit 0", async () => {
      const launcher = launch([...taskArgs("start"), "--port", "0", "--no-tail"], "null");
      const stderr = collect(launcher.stderr);
      collect(launcher.stdout);
      // serve logs where its dashboard is just before it starts listening for signals.
      const deadline = Date.now() + START_DEADLINE_MS;
      while (!/serve: dashboard at/.test(stderr()) && Date.now() < deadline) {
        if (exited.has(launcher)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(stderr(), /serve: dashboard at/);
      const lock = JSON.parse(await Deno.readTextFile(join(machine.dataHome, "serve.lock")));
      const servePid: number = lock.pid;
      strays.add(servePid);
      assert.equal(readStat(servePid)!.ppid, launcher.pid);
      launcher.kill("SIGINT");
      const status = await launcher.status;
      assert.equal(status.code, 0, stderr());
      assert.match(stderr(), /serve: shutting down[\s\S]*serve: stopped/);
      assert.equal(readStat(servePid), undefined);
    });

    await t.step("SIGTERM ends mcp-serve; the launcher exits with its code, 143", async () => {
      const launcher = launch(taskArgs("mcp"), "piped");
      const stderr = collect(launcher.stderr);
      const rpc = jsonRpc(launcher);
      await rpc.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "tasks-test", version: "1" },
        },
      });
      await rpc.answer(1, START_DEADLINE_MS);
      const tree = processTree(launcher.pid);
      assert.equal(tree.length, 2, JSON.stringify(tree));
      const mcpPid = tree[1].pid;
      strays.add(mcpPid);
      assert.ok(commandLine(mcpPid).includes("mcp-serve"));
      launcher.kill("SIGTERM");
      const status = await launcher.status;
      // mcp-serve keeps the default action for SIGTERM: killed by it, 128 + 15.
      assert.equal(status.code, 143, stderr());
      assert.equal(readStat(mcpPid), undefined);
      await rpc.close().catch(() => {});
      await rpc.done;
    });

    await t.step("an unknown command is refused with what it launches", async () => {
      const output = await new Deno.Command(Deno.execPath(), {
        args: [...taskArgs("start").slice(0, -1), "nonsense"],
        cwd: REPO,
        env: machine.env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(output.code, 2);
      assert.equal(
        new TextDecoder().decode(output.stderr).trim(),
        "launch: unknown command 'nonsense'; it launches serve or mcp-serve",
      );
    });
  } finally {
    // Whatever a failed step left running.
    for (const child of launched) if (!exited.has(child)) await killTree(child);
    for (const pid of strays) killStray(pid);
    await machine.cleanup();
  }
});
