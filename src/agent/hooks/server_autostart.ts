/**
 * Starts `vantage serve` in the background when a session starts and no
 * server answers: the user installed hooks, so they want Vantage running.
 * The server's own lock keeps it to one instance per data home.
 *
 * @module
 */
import { readEnv, type VantagePaths } from "../../core/config.ts";
import { permissionFlags, programRoot } from "../../core/permissions.ts";

/** The command line that runs `serve` the way this process was run. */
export function serveCommand(paths: VantagePaths): { command: string; args: string[] } {
  const exec = Deno.execPath();
  const name = exec.split(/[\\/]/).pop() ?? "";
  if (!/^deno(\.exe)?$/.test(name)) return { command: exec, args: ["serve"] };
  const root = programRoot();
  return {
    command: exec,
    args: ["run", ...permissionFlags("serve", paths), `${root}/main.ts`, "serve"],
  };
}

/**
 * Spawns the server detached from this process; returns false when
 * autostart is turned off (`VANTAGE_AUTOSTART=0`) or the spawn failed.
 */
export function startServerInBackground(paths: VantagePaths): boolean {
  if (readEnv("VANTAGE_AUTOSTART") === "0") return false;
  try {
    const { command, args } = serveCommand(paths);
    const child = new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    // The hook must exit now; the server lives on.
    child.unref();
    return true;
  } catch {
    return false;
  }
}
