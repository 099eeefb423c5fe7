import assert from "node:assert/strict";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { type McpProcess, startMcpProcess } from "../helpers/mcp_process.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";
import {
  checkStore,
  cliAdd,
  freshFolder,
  httpAdd,
  httpHook,
  Ledger,
  mcpAdd,
  vantage,
} from "./writers.ts";

/** Rounds of writing and killing (`VANTAGE_KILL_ROUNDS`, default 12: three per writer kind). */
const ROUNDS = Number(Deno.env.get("VANTAGE_KILL_ROUNDS") ?? "12");

const KINDS = ["cli", "mcp-serve", "serve", "hook"] as const;
type Kind = typeof KINDS[number];

/** SIGKILL, unless the process has finished already. */
function kill(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // It finished before it could be killed.
  }
}

/** A pause of `min` to `max` ms. */
function pause(min: number, max: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, min + Math.random() * (max - min)));
}

Deno.test({
  name:
    `kill -9 of each writer kind in turn (${ROUNDS} rounds) loses no confirmed write and damages nothing`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const root = await Deno.makeTempDir({ prefix: "vantage-kill-src-" });
    home.env.VANTAGE_ROOTS = root;
    const ledger = new Ledger();
    const killed: Record<Kind, number> = { cli: 0, "mcp-serve": 0, serve: 0, hook: 0 };
    let serve: ServeProcess | undefined;
    let mcps: McpProcess[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        serve ??= await startServe(home, ["--no-tail"], [root]);
        while (mcps.length < 2) mcps.push(await startMcpProcess(home, [root]));
        const victim = KINDS[round % KINDS.length];
        const url = serve.url;
        const roundServe = serve;
        const roundMcps = [...mcps];
        let stop = false;
        const loop = async (mayDie: boolean, write: () => Promise<void>) => {
          while (!stop) {
            try {
              await write();
            } catch (error) {
              // A write to the process this round kills may fail; nothing else may.
              if (!mayDie) ledger.errors.push(String(error));
            }
          }
        };
        // A larger add in a CLI process: long enough to be killed in the middle of its batches.
        const tree = await freshTree(root, round);
        const treeAdd = cliTreeAdd(home, root, tree);
        const cliAdds = Array.from({ length: 2 }, () => cliAdd(home, root, ledger));
        const hooks = hookLoop(home, url, ledger, () => stop);
        const writers = Promise.all([
          loop(victim === "serve", () => httpAdd(url, ledger)),
          loop(victim === "serve", () => httpHook(url, ledger)),
          ...roundMcps.map((mcp, i) =>
            loop(victim === "mcp-serve" && i === 0, () => mcpAdd(mcp, root, ledger))
          ),
        ]);
        await pause(300, 2500);
        if (victim === "cli") {
          kill(await treeAdd.child);
          for (const add of cliAdds) kill(await add.child);
        } else if (victim === "mcp-serve") {
          await roundMcps[0].kill("SIGKILL");
          mcps = mcps.filter((mcp) => mcp !== roundMcps[0]);
        } else if (victim === "serve") {
          await roundServe.stop("SIGKILL");
          serve = undefined;
        } else {
          hooks.kill();
        }
        killed[victim]++;
        stop = true;
        await writers;
        for (const add of cliAdds) await add.done;
        await treeAdd.done;
        await hooks.done;
      }
      for (const mcp of mcps.splice(0)) await mcp.close();
      // The last server replays what hooks spooled while a killed one was gone.
      serve ??= await startServe(home, ["--no-tail"], [root]);
      assert.equal(await serve.stop(), 0, serve.stderr());
      serve = undefined;

      assert.deepEqual(ledger.errors, []);
      const check = checkStore(home.dataHome, ledger);
      assert.deepEqual(check.problems, []);
      // And as a user would check it: every chunk read back and hashed, packs included.
      const doctor = await vantage(home, ["doctor", "--store", "--json"]);
      assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
      assert.equal(JSON.parse(doctor.stdout).ok, true, doctor.stdout);
      console.log(
        `killed ${JSON.stringify(killed)}; writes attempted ${
          JSON.stringify(ledger.attempts)
        }; confirmed ${ledger.docs.size} documents, ${ledger.hookSessions.size} hooks; store: ${check.documents} documents, ${check.packedChunks} chunks in packs`,
      );
      assert.ok(ledger.docs.size >= 20, `only ${ledger.docs.size} documents confirmed`);
      assert.ok(check.packedChunks >= 10, `only ${check.packedChunks} chunks in packs`);
    } finally {
      for (const mcp of mcps) await mcp.kill("SIGKILL");
      await serve?.stop("SIGKILL");
      await home.cleanup();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  },
});

/** A tree of 120 files, a third of them pack-sized binaries, for one round's large add. */
async function freshTree(root: string, round: number): Promise<string> {
  const folder = `${root}/tree-${round}`;
  for (let i = 0; i < 40; i++) await freshFolder(folder, `t${i}`);
  return folder;
}

/**
 * `vantage add <tree>` in its own process. Its documents are not put in the
 * ledger (the point is to be killed mid-add); the store checks still cover
 * every byte it committed.
 */
function cliTreeAdd(
  home: AgentHome,
  root: string,
  tree: string,
): { child: Promise<Deno.ChildProcess>; done: Promise<void> } {
  const flags = permissionFlags("cli", { ...resolvePaths(home.dataHome), userHome: home.home }, [
    root,
  ]);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "add", tree, "--json"],
    env: { ...home.env, VANTAGE_ROOTS: root },
    stdout: "null",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const done = child.output().then(() => {});
  return { child: Promise.resolve(child), done };
}

/**
 * `vantage hook` processes one after another, posting to `url` until told
 * to stop. One killed mid-delivery is not in the ledger; the others are, and
 * must be stored exactly once whether they reached the server or spooled.
 */
function hookLoop(
  home: AgentHome,
  url: string,
  ledger: Ledger,
  stopped: () => boolean,
): { kill(): void; done: Promise<void> } {
  const flags = permissionFlags(
    "hook",
    { ...resolvePaths(home.dataHome), userHome: home.home },
    [],
  );
  let current: Deno.ChildProcess | undefined;
  const done = (async () => {
    while (!stopped()) {
      ledger.count("cli_hook");
      const session = `stress-hook-${crypto.randomUUID()}`;
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", ...flags, MAIN, "hook", "--agent", "claude_code"],
        env: { ...home.env, VANTAGE_URL: url, VANTAGE_AUTOSTART: "0" },
        stdin: "piped",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      current = child;
      const writer = child.stdin.getWriter();
      const payload = { session_id: session, hook_event_name: "Stop", cwd: "/work/stress" };
      await writer.write(new TextEncoder().encode(JSON.stringify(payload))).catch(() => {});
      await writer.close().catch(() => {});
      const output = await child.output();
      current = undefined;
      if (output.signal === "SIGKILL") continue;
      if (output.code === 0) ledger.hookSessions.add(session);
      else {
        ledger.errors.push(
          `vantage hook exited ${output.code}: ${new TextDecoder().decode(output.stderr)}`,
        );
      }
    }
  })();
  return {
    kill() {
      try {
        current?.kill("SIGKILL");
      } catch {
        // Finished just now.
      }
    },
    done,
  };
}
