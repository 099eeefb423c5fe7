/**
 * Shared helpers for the install tests: a temporary home, an install
 * environment pointing into it, snapshots of a folder tree, and a way to run
 * the install/uninstall/doctor commands as a child process.
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { InstallEnvironment } from "../../src/install/environment.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";

/** The test-only command runner. */
export const RUNNER = fileURLToPath(new URL("./run_command.ts", import.meta.url));

/** A fresh temporary home folder. */
export async function temporaryHome(prefix = "vantage-install-"): Promise<string> {
  return await Deno.makeTempDir({ prefix });
}

/** An install environment whose home and data home are inside `home`. */
export function testEnvironment(
  home: string,
  overrides: Partial<InstallEnvironment> = {},
): InstallEnvironment {
  return {
    userHome: home,
    dataHome: join(home, ".vantage"),
    variables: {},
    roots: [],
    platform: "linux",
    execPath: Deno.execPath(),
    mainPath: MAIN,
    ...overrides,
  };
}

/** Every file (with its exact text) and folder under `root`, by relative path. */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  async function walk(folder: string): Promise<void> {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      const key = relative(root, path);
      if (entry.isDirectory) {
        result[key + "/"] = "<folder>";
        await walk(path);
      } else if (entry.isSymlink) {
        result[key] = `<link ${await Deno.readLink(path)}>`;
      } else {
        result[key] = new TextDecoder().decode(await Deno.readFile(path));
      }
    }
  }
  await walk(root);
  return result;
}

/** Writes `files` (relative path → text) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    await Deno.mkdir(join(full, ".."), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
}

let denoDirCache: string | undefined;

/** Deno's real cache folder, so children with a temporary HOME need not download anything. */
export function realDenoDir(): string {
  if (denoDirCache !== undefined) return denoDirCache;
  const explicit = Deno.env.get("DENO_DIR");
  if (explicit !== undefined && explicit !== "") return denoDirCache = explicit;
  const output = new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  denoDirCache = JSON.parse(new TextDecoder().decode(output.stdout)).denoDir as string;
  return denoDirCache;
}

/** What a command printed and returned. */
export interface CommandRun {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/**
 * Runs `vantage <args>` (install, uninstall or doctor) as a child process
 * with HOME set to `home` and only a small, known environment.
 */
export async function runVantageCommand(
  args: string[],
  home: string,
  env: Record<string, string> = {},
): Promise<CommandRun> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", RUNNER, ...args],
    env: baseEnvironment(home, env),
    clearEnv: true,
    cwd: home,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** A minimal environment for a child whose home is `home`. */
export function baseEnvironment(
  home: string,
  env: Record<string, string> = {},
): Record<string, string> {
  const base: Record<string, string> = {
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: realDenoDir(),
    // Nothing listens here, so doctor's health check fails fast and predictably.
    VANTAGE_URL: "http://127.0.0.1:9",
  };
  for (const name of ["SSL_CERT_FILE", "DENO_CERT", "DENO_TLS_CA_STORE", "LANG", "TERM"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) base[name] = value;
  }
  return { ...base, ...env };
}
