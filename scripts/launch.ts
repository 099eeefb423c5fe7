/**
 * What `deno task start` and `deno task mcp` run: computes the scoped
 * permission set of `serve` or `mcp-serve` from the environment, the same
 * way the installer does for agents (the data home from `VANTAGE_HOME` or
 * `~/.vantage`, read and write of every `VANTAGE_ROOTS` entry), and runs
 * `deno run <flags> main.ts <command> …` with it as a child.
 *
 * A task string cannot compute this itself: `VANTAGE_ROOTS` is a path list
 * to split, and `VANTAGE_HOME` may be unset. So the task runs this launcher
 * with only what it needs (read `HOME` and `VANTAGE_*`, start this Deno), and
 * the child gets exactly `permissionFlags`. The child shares stdin, stdout
 * and stderr (MCP's JSON-RPC passes straight through), SIGINT, SIGTERM and
 * SIGHUP are passed on to it, and the launcher exits with its code.
 *
 * Usage: `deno run --allow-env=HOME,VANTAGE_* --allow-run=<deno> scripts/launch.ts serve|mcp-serve [args…]`
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { resolvePaths } from "../src/core/config.ts";
import { documentRoots, permissionFlags, type PermissionProfile } from "../src/core/permissions.ts";

/** The CLI entry the child runs. */
const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

/** The commands a task launches, each with its permission profile. */
const PROFILES: Readonly<Record<string, PermissionProfile>> = {
  serve: "serve",
  "mcp-serve": "mcp-serve",
};

/** Signals a terminal or a supervisor sends that the child must hear too. */
const FORWARDED: readonly Deno.Signal[] = Deno.build.os === "windows"
  ? ["SIGINT"]
  : ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * The `deno` arguments that run `command` with `args` under its scoped
 * permission set, as this process's environment sets it.
 *
 * @example
 * ```ts ignore
 * launchArguments("serve", ["--port", "0"]);
 * // ["run", "--allow-read=…", …, "/repo/main.ts", "serve", "--port", "0"]
 * ```
 */
export function launchArguments(command: string, args: readonly string[]): string[] {
  const profile = PROFILES[command];
  if (profile === undefined) {
    throw new Error(
      `launch: unknown command '${command}'; it launches ${Object.keys(PROFILES).join(" or ")}`,
    );
  }
  // `serve --store postgres://…` reaches that server (else VANTAGE_STORE's, if any).
  const storeFlag = args.findIndex((arg) => arg === "--store" || arg.startsWith("--store="));
  const store = storeFlag === -1
    ? undefined
    : args[storeFlag].startsWith("--store=")
    ? args[storeFlag].slice("--store=".length)
    : args[storeFlag + 1];
  const flags = store === undefined
    ? permissionFlags(profile, resolvePaths(), documentRoots())
    : permissionFlags(profile, resolvePaths(), documentRoots(), store);
  return ["run", ...flags, MAIN, command, ...args];
}

/** Runs the child to its end and returns its exit code (128 + the signal when one killed it). */
async function launch(argv: readonly string[]): Promise<number> {
  const [command = "", ...args] = argv;
  let childArgs: string[];
  try {
    childArgs = launchArguments(command, args);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: childArgs,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // Listening keeps this process alive on a signal, so the child decides how to stop and this
  // process reports how it did. (Ctrl-C reaches both; serve's shutdown runs once either way.)
  const forwarders = FORWARDED.map((signal) => {
    const forward = () => {
      try {
        child.kill(signal);
      } catch {
        // Already gone: its status is about to arrive.
      }
    };
    Deno.addSignalListener(signal, forward);
    return [signal, forward] as const;
  });
  const status = await child.status;
  for (const [signal, forward] of forwarders) Deno.removeSignalListener(signal, forward);
  return status.code;
}

if (import.meta.main) {
  Deno.exit(await launch(Deno.args));
}
