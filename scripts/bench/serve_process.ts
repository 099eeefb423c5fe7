/** Starting the real `vantage serve` for the benchmarks, under its shipped flags. */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";

/** The CLI entry point. */
export const MAIN: string = join(new URL("../..", import.meta.url).pathname, "main.ts");

/** Deno's cache: a child with another HOME must keep using it rather than download again. */
export function denoDir(): string {
  return Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
}

/** The env of a Vantage child acting on `home`/`dataHome`, on `store` when given (team mode). */
export function childEnv(home: string, dataHome: string, store?: string): Record<string, string> {
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    HOME: home,
    VANTAGE_HOME: dataHome,
    DENO_DIR: denoDir(),
  };
  delete env.VANTAGE_STORE;
  if (store !== undefined) env.VANTAGE_STORE = store;
  return env;
}

/**
 * Starts `serve --port 0` for `home`/`dataHome` (on the PostgreSQL `store` when given, else the
 * data home's SQLite file) and waits until it has recorded its port.
 */
export async function startServe(
  home: string,
  dataHome: string,
  store?: string,
): Promise<{ child: Deno.ChildProcess; port: number }> {
  const paths = { ...resolvePaths(dataHome), userHome: home };
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags("serve", paths, [], store), MAIN, "serve", "--port", "0"],
    env: childEnv(home, dataHome, store),
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 800; i++) {
    try {
      const lock = JSON.parse(await Deno.readTextFile(`${dataHome}/serve.lock`));
      if (lock.pid === child.pid && typeof lock.port === "number") {
        return { child, port: lock.port };
      }
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("serve did not start");
}
