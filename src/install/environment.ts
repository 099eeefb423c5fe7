/**
 * What an install depends on outside its flags: the user's home, the data
 * home, the platform, and how Vantage itself is being run. Gathered once, so
 * tests can hand the installer a temporary home instead of changing the
 * process environment.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readEnv, userHomeDirectory } from "../core/config.ts";
import { documentRoots } from "../core/permissions.ts";

/** The environment variables an install reads. */
export const INSTALL_VARIABLES: readonly string[] = [
  "VANTAGE_HOME",
  "VANTAGE_ROOTS",
  "VANTAGE_URL",
  "VANTAGE_PORT",
  "VANTAGE_TOKEN",
  "DENO_DIR",
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "COPILOT_HOME",
  "OPENCLAW_STATE_DIR",
];

/** The inputs an install or uninstall reads from its surroundings. */
export interface InstallEnvironment {
  /** The user's home directory: every agent's config lives below it. */
  userHome: string;
  /** Vantage's data home (`VANTAGE_HOME`, default `~/.vantage`). */
  dataHome: string;
  /**
   * The variables the installer reads, only those the user set:
   * `VANTAGE_HOME`, `VANTAGE_ROOTS` and `DENO_DIR` (passed on to the commands
   * agents launch), `VANTAGE_URL`, `VANTAGE_PORT` and `VANTAGE_TOKEN` (where
   * `--otel` points the agents' telemetry), and the agents' own folder overrides (`CLAUDE_CONFIG_DIR`,
   * `CODEX_HOME`, `COPILOT_HOME`, `OPENCLAW_STATE_DIR`).
   */
  variables: Record<string, string>;
  /** Document roots (`VANTAGE_ROOTS`), which widen the permission flags. */
  roots: string[];
  /** The operating system. */
  platform: typeof Deno.build.os;
  /** The running executable: `deno`, or the compiled `vantage` binary. */
  execPath: string;
  /** Absolute path of `main.ts` when running from source, else undefined. */
  mainPath: string | undefined;
}

/**
 * The environment of the current process.
 *
 * @example
 * ```ts
 * import { currentEnvironment } from "./environment.ts";
 * const env = currentEnvironment();
 * env.dataHome.length > 0; // true
 * ```
 */
export function currentEnvironment(): InstallEnvironment {
  const userHome = userHomeDirectory();
  const variables: Record<string, string> = {};
  for (const name of INSTALL_VARIABLES) {
    const value = readEnv(name);
    if (value !== undefined) variables[name] = value;
  }
  const mainUrl = new URL("../../main.ts", import.meta.url);
  return {
    userHome,
    dataHome: variables.VANTAGE_HOME ?? join(userHome, ".vantage"),
    variables,
    roots: documentRoots(),
    platform: Deno.build.os,
    execPath: Deno.execPath(),
    mainPath: mainUrl.protocol === "file:" ? fileURLToPath(mainUrl) : undefined,
  };
}

/** The folder holding Vantage's install records for each agent. */
export function installStateDirectory(environment: InstallEnvironment): string {
  return join(environment.dataHome, "install");
}

/** An agent's folder: the override variable when set, else `~/<folder>`. */
export function agentFolder(
  environment: InstallEnvironment,
  variable: string,
  folder: string,
): string {
  return environment.variables[variable] ?? join(environment.userHome, folder);
}

/** Shortens a path under the user's home to `~/…` for messages. */
export function displayPath(environment: InstallEnvironment, path: string): string {
  const home = environment.userHome.replace(/\/+$/, "");
  if (path === home) return "~";
  if (home !== "" && path.startsWith(home + "/")) return "~" + path.slice(home.length);
  return path;
}
