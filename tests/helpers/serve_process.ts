/**
 * Runs the real `vantage serve` as a child process under the shipped
 * permission set, and the real `vantage hook` against it.
 */
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import type { AgentHome } from "./agent_home.ts";
import { MAIN } from "./mcp_stdio.ts";

/** A running server. */
export interface ServeProcess {
  /** Its port. */
  port: number;
  /** Its base URL. */
  url: string;
  /** The child. */
  child: Deno.ChildProcess;
  /** Everything it logged so far. */
  stderr(): string;
  /** Sends SIGTERM and waits for the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

/** The env a child needs to act on `home`'s data (HOME and VANTAGE_HOME resolved the same way). */
function pathsOf(home: AgentHome) {
  return { ...resolvePaths(home.dataHome), userHome: home.home };
}

/**
 * Starts `serve --port 0` and waits until it has recorded its port (at most `startMs`: a test
 * that starts servers on a machine its real clients keep busy gives them longer).
 */
export async function startServe(
  home: AgentHome,
  args: string[] = [],
  roots: string[] = [],
  startMs = 20_000,
): Promise<ServeProcess> {
  // The store serve will use (`--store` wins over VANTAGE_STORE), as its launcher scopes it.
  const storeAt = args.indexOf("--store");
  const store = storeAt >= 0 ? args[storeAt + 1] : home.env.VANTAGE_STORE;
  const flags = permissionFlags("serve", pathsOf(home), roots, store);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "serve", "--port", "0", ...args],
    env: home.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let log = "";
  (async () => {
    for await (const chunk of child.stderr) log += new TextDecoder().decode(chunk);
  })();
  (async () => {
    for await (const _ of child.stdout) { /* drain */ }
  })();
  const deadline = Date.now() + startMs;
  let port: number | undefined;
  while (Date.now() < deadline) {
    try {
      const lock = JSON.parse(await Deno.readTextFile(`${home.dataHome}/serve.lock`));
      if (typeof lock.port === "number" && lock.pid === child.pid) {
        port = lock.port;
        break;
      }
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (port === undefined) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    throw new Error(`serve did not start: ${log}`);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    stderr: () => log,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      return (await child.status).code;
    },
  };
}

/** What a hook run printed. */
export interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `vantage hook --agent <agent>` with `payload` on stdin under the hook permission set. */
export async function runHook(
  home: AgentHome,
  agent: string,
  payload: string,
  env: Record<string, string> = {},
): Promise<HookRun> {
  const flags = permissionFlags("hook", pathsOf(home), []);
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "hook", "--agent", agent],
    env: { ...home.env, ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(payload));
  await writer.close();
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    ms: performance.now() - started,
  };
}
