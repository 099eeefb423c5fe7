/**
 * The command line an agent runs to reach Vantage: the compiled executable
 * when Vantage runs as one, else `deno run --quiet` with the scoped
 * permission set of that command (never `-A`) and the absolute path of
 * `main.ts`. `--quiet` keeps Deno's own diagnostics (a dependency download's
 * "Download …" lines, the new-release notice) off the agent's stderr; its
 * errors still show.
 *
 * @module
 */
import { basename } from "node:path";
import { resolvePaths } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import { permissionFlags, type PermissionProfile } from "../core/permissions.ts";
import type { InstallEnvironment } from "./environment.ts";

/** A program, its arguments and the environment it needs. */
export interface LaunchCommand {
  /** Absolute path of the program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Variables to set for it (only those the user set at install time). */
  env: Record<string, string>;
  /** Whether `command` is the compiled Vantage executable. */
  compiled: boolean;
}

/** Whether the running executable is the compiled Vantage binary rather than `deno`. */
export function isCompiled(environment: InstallEnvironment): boolean {
  const name = basename(environment.execPath).toLowerCase();
  return name !== "deno" && name !== "deno.exe";
}

/**
 * The command that runs `vantage <subcommand…>` under `profile`'s
 * permissions.
 *
 * @example
 * ```ts
 * import { currentEnvironment } from "./environment.ts";
 * import { vantageCommand } from "./launch_command.ts";
 * const launch = vantageCommand(currentEnvironment(), "mcp-serve", ["mcp-serve"]);
 * launch.args.includes("-A"); // false
 * ```
 */
export function vantageCommand(
  environment: InstallEnvironment,
  profile: PermissionProfile,
  subcommand: readonly string[],
): LaunchCommand {
  const compiled = isCompiled(environment);
  const env: Record<string, string> = {};
  for (const name of ["VANTAGE_HOME", "VANTAGE_ROOTS"]) {
    const value = environment.variables[name];
    if (value !== undefined) env[name] = value;
  }
  if (compiled) {
    return { command: environment.execPath, args: [...subcommand], env, compiled };
  }
  if (environment.mainPath === undefined) {
    throw new VantageError(
      "unavailable",
      "Vantage is running from a remote module, so there is no local main.ts for agents to " +
        "launch; install from a local checkout or use the compiled vantage executable",
    );
  }
  // Deno finds its cached dependencies through DENO_DIR; agents may not inherit it.
  const denoDir = environment.variables.DENO_DIR;
  if (denoDir !== undefined) env.DENO_DIR = denoDir;
  const paths = { ...resolvePaths(environment.dataHome), userHome: environment.userHome };
  const flags = permissionFlags(profile, paths, environment.roots);
  return {
    command: environment.execPath,
    args: ["run", "--quiet", ...flags, environment.mainPath, ...subcommand],
    env,
    compiled,
  };
}

/**
 * The launch as one POSIX shell command line: `NAME=value` assignments for
 * its environment, then the quoted program and arguments. Hooks are shell
 * strings in every agent's config.
 *
 * @example
 * ```ts
 * import { shellCommandLine } from "./launch_command.ts";
 * shellCommandLine({ command: "/bin/vantage", args: ["hook", "--agent", "codex"], env: {}, compiled: true });
 * // "/bin/vantage hook --agent codex"
 * ```
 */
export function shellCommandLine(launch: LaunchCommand): string {
  const assignments = Object.entries(launch.env).map(([name, value]) =>
    `${name}=${shellQuote(value)}`
  );
  return [...assignments, shellQuote(launch.command), ...launch.args.map(shellQuote)].join(" ");
}

/**
 * Quotes one word for a POSIX shell, leaving plain words (paths, flags)
 * readable.
 *
 * @example
 * ```ts
 * import { shellQuote } from "./launch_command.ts";
 * shellQuote("--allow-env=HOME,VANTAGE_*"); // "'--allow-env=HOME,VANTAGE_*'"
 * ```
 */
export function shellQuote(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_.,:/=@%+-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

/**
 * Splits a POSIX shell command line into words (quotes and backslashes
 * honoured; no expansion), for checking that a registered command exists.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      word = (word ?? "") + line.slice(index + 1, end === -1 ? line.length : end);
      index = end === -1 ? line.length : end;
    } else if (char === '"') {
      let value = "";
      index += 1;
      while (index < line.length && line[index] !== '"') {
        if (line[index] === "\\" && index + 1 < line.length) index += 1;
        value += line[index];
        index += 1;
      }
      word = (word ?? "") + value;
    } else if (char === "\\" && index + 1 < line.length) {
      word = (word ?? "") + line[index + 1];
      index += 1;
    } else if (char === " " || char === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
